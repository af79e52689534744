package io.cohort.cli;

import io.cohort.client.Bootstrap;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.internal.Endpoint;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code cohort}: the admin CLI of a Cohort cluster, modelled on kafka-consumer-groups.sh and
 * etcdctl. {@code java -jar cohort.jar [--bootstrap HOST:PORT,...] [--output table|json]
 * [--timeout SECONDS] COMMAND ...}; scripts/cohort runs it.
 *
 * <p>Exit codes: 0 success; 1 the operation failed (a protocol error, an unreachable cluster, a
 * refused operation); 2 a usage error. Results go to stdout; errors to stderr as one line
 * {@code cohort: <what failed>: <ERROR_NAME (code)>: <server message>}, often followed by a
 * {@code hint: } line. Stack traces only with {@code --verbose}.
 *
 * <p>Each command gathers plain values through {@link CohortClient} ({@link Gather}) and prints
 * them with pure renderers ({@link Render}).
 */
@Command(name = "cohort", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT,
        versionProvider = CohortCli.Version.class, sortOptions = false, usageHelpAutoWidth = true,
        description = "Inspects and administers a Cohort cluster: consumer groups, committed offsets, "
                + "coordinators, Raft partitions.",
        subcommands = {GroupsCommand.class, OffsetsCommand.class, FindCoordinatorCommand.class, ClusterCommand.class,
                AclsCommand.class, TopicsCommand.class,
                SnapshotCommand.class},
        footerHeading = "%nExit codes:%n",
        footer = {"  0  success", "  1  the operation failed or was refused (the reason on stderr)",
                "  2  usage error"})
public final class CohortCli implements Runnable {
    /** The client id the CLI's calls carry. */
    static final String CLIENT_ID = "cohort-cli";
    /** The per-attempt deadline of a call, unless --timeout is shorter. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    @Spec
    CommandSpec spec;

    private List<String> bootstrap = List.of(Bootstrap.LOCAL_NODES.split(","));
    private int timeoutSeconds = 30;

    @Option(names = "--output", order = 2, scope = ScopeType.INHERIT, paramLabel = "table|json", defaultValue = "table",
            description = "How results print on stdout: aligned columns (default) or one JSON document.")
    OutputFormat output;

    @Option(names = "--token", order = 5, scope = ScopeType.INHERIT, paramLabel = "TOKEN",
            defaultValue = "${env:COHORT_TOKEN}",
            description = "A bearer token (<name>.<secret>) to authenticate as User:<name> (default: $COHORT_TOKEN). "
                    + "Use it over TLS only.")
    String token;

    @Option(names = "--verbose", order = 4, scope = ScopeType.INHERIT,
            description = "Print stack traces with errors, and the client's debug log on stderr.")
    boolean verbose;

    @Option(names = "--bootstrap", order = 1, scope = ScopeType.INHERIT, paramLabel = "HOST:PORT[,HOST:PORT...]",
            defaultValue = "${env:" + Bootstrap.ENV + ":-" + Bootstrap.LOCAL_NODES + "}",
            description = "Client endpoints of one or more nodes; the others are learned from them. "
                    + "Default: $" + Bootstrap.ENV + " if set, else the nodes of scripts/cluster.sh "
                    + "(now: ${DEFAULT-VALUE}).")
    void bootstrap(String value) {
        List<String> endpoints = new ArrayList<>();
        for (String one : value.split(",")) {
            if (one.isBlank()) {
                continue;
            }
            try {
                endpoints.add(Endpoint.parse(one).toString());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--bootstrap': "
                        + e.getMessage());
            }
        }
        if (endpoints.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--bootstrap': "
                    + "expected HOST:PORT[,HOST:PORT...], got '" + value + "'");
        }
        this.bootstrap = List.copyOf(endpoints);
    }

    @Option(names = "--cacert", order = 5, scope = ScopeType.INHERIT, paramLabel = "FILE",
            defaultValue = "${env:COHORT_CACERT}",
            description = "Speak TLS, trusting node certificates signed by the CA in this PEM file "
                    + "(env COHORT_CACERT; scripts/cluster.sh up --tls writes data/certs/ca.pem).")
    Path caCert;

    @Option(names = "--cert", order = 6, scope = ScopeType.INHERIT, paramLabel = "FILE",
            defaultValue = "${env:COHORT_CERT}",
            description = "The client certificate (PEM) for nodes that ask for one; needs --key and --cacert "
                    + "(env COHORT_CERT).")
    Path cert;

    @Option(names = "--key", order = 7, scope = ScopeType.INHERIT, paramLabel = "FILE",
            defaultValue = "${env:COHORT_KEY}",
            description = "The private key (PEM, PKCS#8) of --cert (env COHORT_KEY).")
    Path key;

    @Option(names = "--timeout", order = 3, scope = ScopeType.INHERIT, paramLabel = "SECONDS", defaultValue = "30",
            description = "How long a call may keep retrying (failovers, elections) before it fails "
                    + "(default: ${DEFAULT-VALUE}).")
    void timeout(int seconds) {
        if (seconds <= 0) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--timeout': "
                    + "expected a positive number of seconds, got " + seconds);
        }
        this.timeoutSeconds = seconds;
    }

    public static void main(String[] args) {
        configureLogging(args);
        System.exit(commandLine().execute(args));
    }

    /**
     * Sends the client's slf4j-simple log to stderr at WARN (DEBUG for io.cohort with --verbose).
     * Must run before the first logger is created; -D options given to the JVM win.
     */
    static void configureLogging(String[] args) {
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        boolean verbose = Arrays.asList(args).contains("--verbose");
        if (verbose) {
            setIfAbsent("org.slf4j.simpleLogger.log.io.cohort", "debug");
        }
        silenceJavaUtilLogging(verbose);
    }

    /**
     * gRPC logs through java.util.logging, whose default handler prints multi-line stack traces on
     * stderr (an unknown --bootstrap host printed a name-resolution failure with its trace before the
     * CLI's own one-line error). The CLI reports every failure itself, so JUL is switched off unless
     * --verbose asks for everything.
     */
    static void silenceJavaUtilLogging(boolean verbose) {
        if (!verbose) {
            java.util.logging.Logger root = java.util.logging.LogManager.getLogManager().getLogger("");
            for (java.util.logging.Handler handler : root.getHandlers()) {
                root.removeHandler(handler);
            }
            root.setLevel(java.util.logging.Level.OFF);
        }
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** The command line with the CLI's error handling; callers may redirect its out and err. */
    public static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new CohortCli());
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        cmd.setExecutionExceptionHandler(CohortCli::handleExecutionException);
        cmd.setParameterExceptionHandler(CohortCli::handleParameterException);
        return cmd;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** A new client for the global options; the caller closes it. */
    CohortClient newClient() {
        Duration apiTimeout = Duration.ofSeconds(timeoutSeconds);
        CohortClient.Builder builder = CohortClient.builder().bootstrap(bootstrap).clientId(CLIENT_ID)
                .apiTimeout(apiTimeout).bearerToken(token)
                .requestTimeout(apiTimeout.compareTo(REQUEST_TIMEOUT) < 0 ? apiTimeout : REQUEST_TIMEOUT);
        if (caCert != null || cert != null || key != null) {
            if (caCert == null) {
                throw new ParameterException(spec.commandLine(), "--cert/--key need --cacert (the CA that signed "
                        + "the nodes' certificates), or COHORT_CACERT");
            }
            try {
                builder.tls(caCert, cert, key);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        return builder.build();
    }

    List<String> bootstrap() {
        return bootstrap;
    }

    OutputFormat output() {
        return output;
    }

    boolean verbose() {
        return verbose;
    }

    /** Prints a failure to the command's stderr (see {@link CliFailure}). */
    void report(PrintWriter err, CliFailure failure) {
        failure.print(err, verbose);
    }

    private static int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parsed) {
        CohortCli root = (CohortCli) cmd.getCommandSpec().root().userObject();
        PrintWriter err = cmd.getErr();
        CliFailure failure;
        if (ex instanceof CliFailure f) {
            failure = f;
        } else if (ex instanceof CohortException e) {
            failure = CliFailure.of(cmd.getCommandSpec().qualifiedName(" "), e);
        } else {
            failure = new CliFailure(cmd.getCommandSpec().qualifiedName(" ") + ": unexpected error: " + ex,
                    root.verbose ? null : "retry with --verbose to see where it happened");
        }
        failure.print(err, root.verbose);
        if (root.verbose && !(ex instanceof CliFailure) && !(ex instanceof CohortException)) {
            ex.printStackTrace(err);
        }
        err.flush();
        return 1;
    }

    /** Usage errors: the message, picocli's suggestions, the synopsis and where help is (exit 2). */
    private static int handleParameterException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("cohort: " + ex.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.print(cmd.getHelp().fullSynopsis());
        err.println("Try '" + cmd.getCommandSpec().qualifiedName(" ") + " --help' for more information.");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The version from the jar's manifest ("dev" when run from classes). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = CohortCli.class.getPackage().getImplementationVersion();
            return new String[] {"cohort " + (version == null ? "dev" : version)};
        }
    }
}
