package io.cohort.cli;

import io.cohort.api.v1.ErrorCode;
import io.cohort.client.CohortException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;

/**
 * An operation that failed or was refused (exit code 1), as printed on stderr: one line
 * {@code cohort: <what failed>[: <ERROR_NAME (code)>: <server message>]} and, where it helps, a
 * second line {@code hint: <what to do>}.
 */
final class CliFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final String UNREACHABLE_HINT =
            "is the cluster running? start one with scripts/cluster.sh up, or pass --bootstrap (or set COHORT_BOOTSTRAP)";
    static final String SLOW_HINT = "a node is there but answered too slowly (overloaded, or short of CPU): "
            + "retry with a longer --timeout, and check 'cohort cluster status'";

    private final String hint;

    /** A failure the CLI itself decided on (a refused operation), with an optional hint. */
    CliFailure(String message, String hint) {
        super(message);
        this.hint = hint;
    }

    private CliFailure(String message, String hint, Throwable cause) {
        super(message, cause);
        this.hint = hint;
    }

    /** {@code what} failed with {@code e}; the hint follows from the error code. */
    static CliFailure of(String what, CohortException e) {
        return of(what, e, null);
    }

    /** {@code what} failed with {@code e}; {@code hint} if non-null, else the one that follows from the code. */
    static CliFailure of(String what, CohortException e, String hint) {
        if (e instanceof io.cohort.client.TransportSecurityException) {
            // The message already says what to change; a hint about running clusters would mislead.
            return new CliFailure(what + ": " + e.getMessage(), null, e);
        }
        // CohortException's message is "ERROR_NAME (code): <client context>: <server message>".
        return new CliFailure(what + ": " + e.getMessage(), hint != null ? hint : hintFor(e), e);
    }

    String hint() {
        return hint;
    }

    /** Prints the error line, the hint line if any, and with {@code verbose} the stack trace. */
    void print(PrintWriter err, boolean verbose) {
        err.println("cohort: " + getMessage());
        if (hint != null) {
            err.println("hint: " + hint);
        }
        if (verbose && getCause() != null) {
            getCause().printStackTrace(err);
        }
        err.flush();
    }

    /** Whether {@code e} says that no node could be reached at all (connection refused, unknown host). */
    static boolean unreachable(CohortException e) {
        return transportFailure(e) == Status.Code.UNAVAILABLE;
    }

    /** Whether {@code e} says that a node was connected to but did not answer in time. */
    static boolean slow(CohortException e) {
        return transportFailure(e) == Status.Code.DEADLINE_EXCEEDED;
    }

    /** The gRPC status code of the transport failure behind {@code e}, or null if it is not one. */
    private static Status.Code transportFailure(CohortException e) {
        if (e.errorCode() != ErrorCode.COORDINATOR_NOT_AVAILABLE && e.errorCode() != ErrorCode.UNKNOWN_SERVER_ERROR) {
            return null;
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof StatusRuntimeException s) {
                return s.getStatus().getCode();
            }
        }
        return null;
    }

    /** What to do about {@code e}, or null if there is nothing useful to say. */
    static String hintFor(CohortException e) {
        return switch (e.errorCode()) {
            // The cluster answered when the command started (AdminCommand), so some nodes run.
            case COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS ->
                    "no node could serve it in time (no reachable, ready leader): check 'cohort cluster status', "
                            + "or retry with a longer --timeout";
            case NON_EMPTY_GROUP -> "stop its members first";
            case GROUP_ID_NOT_FOUND -> "'cohort groups list' lists the groups";
            case GROUP_SUBSCRIBED_TO_TOPIC ->
                    "the group's members consume the topic: stop them, or drop the topic from their subscription, first";
            case UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION ->
                    "the group has members: stop its consumers first";
            case REQUEST_TIMED_OUT -> "it may still happen: check 'cohort cluster status', or retry with a longer wait";
            case UNKNOWN_SERVER_ERROR -> unreachable(e) || slow(e) ? "a node does not answer: check 'cohort cluster status'"
                    : "see the node's log (logs/node-<id>.log), or retry with --verbose";
            default -> null;
        };
    }
}
