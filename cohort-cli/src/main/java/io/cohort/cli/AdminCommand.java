package io.cohort.cli;

import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command that talks to the cluster: opens a client for the global options, learns the
 * cluster's shape first (so an unreachable cluster fails once, with its hint), runs, and closes
 * the client. Subclasses print their result with {@link Render} and return the exit code.
 */
abstract class AdminCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        validate();
        try (CohortClient client = cli().newClient()) {
            try {
                client.partitionCount();
            } catch (CohortException e) {
                throw CliFailure.of("connecting to " + String.join(",", cli().bootstrap()), e, connectHint(e));
            }
            return execute(client);
        } finally {
            out().flush();
            err().flush();
        }
    }

    /** Cannot reach any node, or reached but too slow, or something that is not a Cohort node. */
    private static String connectHint(CohortException e) {
        if (CliFailure.unreachable(e)) {
            return CliFailure.UNREACHABLE_HINT;
        }
        if (CliFailure.slow(e)) {
            return CliFailure.SLOW_HINT;
        }
        return "is --bootstrap the client port of a Cohort node (7101 and up with scripts/cluster.sh)?";
    }

    /** Checks the arguments before any call; throws {@link #usage} for a usage error. */
    void validate() {
    }

    /** Runs the command; returns the exit code (0 or 1). Throws CliFailure to fail with one message. */
    abstract int execute(CohortClient client);

    final CohortCli cli() {
        return (CohortCli) spec.root().userObject();
    }

    final OutputFormat format() {
        return cli().output();
    }

    final PrintWriter out() {
        return spec.commandLine().getOut();
    }

    final PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Prints {@code failure} on stderr and carries on (for commands over several groups). */
    final void report(CliFailure failure) {
        cli().report(err(), failure);
    }

    /** A usage error (exit 2) found after parsing. */
    final ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
