package io.cohort.server;

import io.cohort.raft.ClusterMetadata;
import io.cohort.raft.CommonPoolParallelism;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar cohort-server.jar [--config FILE] [--node-id N] [--peers ...] [--set key=value ...]}:
 * starts one node and runs it until SIGTERM (or Ctrl-C), which stops it in order
 * ({@link CohortServer#close()}).
 *
 * <p>Exit codes: 0 after an orderly stop or for --help/--version; 2 for a bad command line or
 * configuration; 3 when the data dir belongs to a cluster created with other settings; 1 when the
 * node cannot start otherwise (a port in use, an unusable data dir); 74 when its storage failed
 * while it ran (it stopped in order; a supervisor restarts it). Each failure prints one line to
 * stderr.
 */
@Command(name = "cohort-server", mixinStandardHelpOptions = true, versionProvider = CohortServerMain.Version.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs one Cohort node: its replicas of the offsets partitions (offsets.replication.factor of the nodes"
                + " hold each; every node holds partition 0), the gRPC API on its client port, "
                + "/metrics over HTTP.", "", "Settings come from --config, then --set, then the options below "
                + "(later wins). Keys: ${cohort.server.keys} (docs/OPERATIONS.md)."})
public final class CohortServerMain {
    public static final int EXIT_OK = 0;
    public static final int EXIT_START_FAILED = 1;
    public static final int EXIT_BAD_CONFIG = 2;
    public static final int EXIT_METADATA_MISMATCH = 3;
    /**
     * The node's storage failed while it ran (a log or snapshot write: disk full, I/O error) and it
     * stopped; start it again once the data dir is writable. 74 is EX_IOERR of sysexits.h.
     */
    public static final int EXIT_STORAGE_FAILED = 74;
    /**
     * The orderly stop of a SIGTERM took longer than {@code node.stop.timeout.ms}: every thread's
     * stack is on stderr and the JVM was halted. 70 is EX_SOFTWARE of sysexits.h.
     */
    public static final int EXIT_STOP_TIMED_OUT = 70;
    /** How long the orderly stop after a storage failure may take before the JVM is halted. */
    static final long STORAGE_FAILURE_STOP_LIMIT_MS = 30_000;
    /**
     * A thread died of OutOfMemoryError. The same code as HotSpot's -XX:+ExitOnOutOfMemoryError,
     * which scripts/cluster.sh passes and which catches the errors this handler cannot see; the log
     * line tells it apart from {@link #EXIT_METADATA_MISMATCH}.
     */
    public static final int EXIT_OUT_OF_MEMORY = 3;

    @Option(names = "--config", paramLabel = "FILE", description = "A properties file with node settings.")
    Path configFile;

    @Option(names = "--node-id", paramLabel = "N", description = "This node's id, 1..N (node.id; required).")
    String nodeId;

    @Option(names = "--peers", paramLabel = "ID=HOST:RAFT:CLIENT,...",
            description = "Every node of the cluster (peers; default 1=127.0.0.1:7201:7101,2=...:7202:7102,3=...:7203:7103).")
    String peers;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Raft logs and snapshots (data.dir; default data/node-<id>).")
    String dataDir;

    @Option(names = "--log-dir", paramLabel = "DIR", description = "Where node-<id>.log goes (log.dir; default logs).")
    String logDir;

    @Option(names = "--partitions", paramLabel = "P",
            description = "Offsets partitions, fixed at cluster creation (offsets.partitions; default "
                    + CohortDefaults.PARTITIONS + ").")
    String partitions;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "HTTP port of /metrics (metrics.port; default 7300+id; 0 = any free port, -1 = off).")
    String metricsPort;

    @Option(names = "--cluster-id", paramLabel = "ID", description = "The cluster's id (cluster.id; default "
            + CohortDefaults.CLUSTER_ID + ").")
    String clusterId;

    @Option(names = "--join", paramLabel = "HOST:CLIENT_PORT",
            description = "Join a running cluster through this member (cluster.join): take the cluster's settings "
                    + "and members from it, start with empty replicas and wait for 'cohort cluster add-node'.")
    String join;

    /** Whether the node starts in join mode (cluster.join set). */
    boolean joining;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Any setting, as in the config file.")
    Map<String, String> settings = new LinkedHashMap<>();

    /** The outcome of {@link #launch}: a running server, or the exit code of a failed start. */
    public record Launch(int exitCode, CohortServer server) {
    }

    static {
        // Before anything loads CompletableFuture (see CommonPoolParallelism).
        CommonPoolParallelism.ensure();
    }

    public static void main(String[] args) throws InterruptedException {
        haltOnOutOfMemory();
        if (args.length > 0 && args[0].equals("tokens")) {
            System.exit(io.cohort.server.auth.TokenTool.run(java.util.Arrays.copyOfRange(args, 1, args.length),
                    System.in, System.out, System.err));
        }
        AtomicReference<CohortServer> running = new AtomicReference<>();
        // Registered before the start, so a SIGTERM during start-up still stops what has started.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            CohortServer server = running.get();
            if (server != null) {
                StopWatchdog.start(server.config().stopTimeoutMs(), EXIT_STOP_TIMED_OUT,
                        "the orderly stop (" + ServerConfig.STOP_TIMEOUT_MS + ")", System.err);
                server.close();
            }
        }, "cohort-shutdown"));
        Launch launch = launch(args, System.out, System.err);
        if (launch.server() == null) {
            System.exit(launch.exitCode());
        }
        CohortServer server = launch.server();
        running.set(server);
        // The orderly stop after a storage failure is bounded (hand-offs, drain), but a disk that
        // hangs could hold it: the exit code must reach the supervisor regardless.
        server.storageFailed().thenRun(() -> StopWatchdog.start(STORAGE_FAILURE_STOP_LIMIT_MS, EXIT_STORAGE_FAILED,
                "node stop after storage failure", System.err));
        server.awaitTermination();
        Optional<String> storageFailure = server.storageFailure();
        if (storageFailure.isPresent()) {
            System.err.println("cohort-server: node " + server.config().nodeId() + " stopped: storage failed ("
                    + storageFailure.get() + "); exit code " + EXIT_STORAGE_FAILED
                    + ": restart it once the data dir is writable");
            System.exit(EXIT_STORAGE_FAILED);
        }
    }

    /**
     * Insurance beside -XX:+ExitOnOutOfMemoryError, for a java command line without it: a thread
     * that dies of OutOfMemoryError halts the JVM (no shutdown hooks: they would need memory too),
     * so a node that ran out of heap exits and its supervisor restarts it, instead of limping on
     * with dead threads. Errors that Ratis or gRPC catch in their own threads never get here; the
     * JVM flag covers those.
     */
    static void haltOnOutOfMemory() {
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
            if (error instanceof OutOfMemoryError) {
                System.err.println("Terminating due to java.lang.OutOfMemoryError in thread " + thread.getName()
                        + ": " + error.getMessage());
                Runtime.getRuntime().halt(EXIT_OUT_OF_MEMORY);
            }
            // What the JVM prints for an uncaught exception without a default handler.
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            error.printStackTrace(System.err);
        });
    }

    /**
     * Parses {@code args}, configures logging, starts the node and prints the SERVING line to
     * {@code out}; on failure prints one line to {@code err} and returns the exit code.
     */
    public static Launch launch(String[] args, PrintStream out, PrintStream err) {
        CohortServerMain options = new CohortServerMain();
        // The key list of the help comes from the one list the parser accepts, so it cannot drift.
        System.setProperty("cohort.server.keys", String.join(", ", ServerConfig.KEYS));
        CommandLine commandLine = new CommandLine(options)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true));
        try {
            CommandLine.ParseResult parsed = commandLine.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) {
                return new Launch(EXIT_OK, null);
            }
        } catch (CommandLine.ParameterException e) {
            err.println("cohort-server: " + e.getMessage() + " (see --help)");
            return new Launch(EXIT_BAD_CONFIG, null);
        }
        ServerConfig config;
        try {
            config = options.toConfig();
        } catch (ConfigException e) {
            err.println("cohort-server: bad configuration: " + e.getMessage());
            return new Launch(EXIT_BAD_CONFIG, null);
        }
        Logging.configure(config);
        try {
            CohortServer server = CohortServer.start(config, options.joining);
            out.println(server.servingLine());
            out.flush();
            return new Launch(EXIT_OK, server);
        } catch (ClusterMetadata.MismatchException e) {
            err.println("cohort-server: node " + config.nodeId() + " refuses to start: " + e.getMessage());
            Logging.error("refusing to start", e);
            return new Launch(EXIT_METADATA_MISMATCH, null);
        } catch (IOException | RuntimeException e) {
            err.println("cohort-server: node " + config.nodeId() + " failed to start: " + e.getMessage());
            Logging.error("failed to start", e);
            return new Launch(EXIT_START_FAILED, null);
        }
    }

    /** The settings: --config, then --set, then the dedicated options (each named in error messages). */
    ServerConfig toConfig() {
        Map<String, Map<String, String>> layers = new LinkedHashMap<>();
        layers.put("--set", settings);
        putIfSet(layers, "--node-id", ServerConfig.NODE_ID, nodeId);
        putIfSet(layers, "--cluster-id", ServerConfig.CLUSTER_ID, clusterId);
        putIfSet(layers, "--peers", ServerConfig.PEERS, peers);
        putIfSet(layers, "--data-dir", ServerConfig.DATA_DIR, dataDir);
        putIfSet(layers, "--log-dir", ServerConfig.LOG_DIR, logDir);
        putIfSet(layers, "--partitions", ServerConfig.PARTITIONS, partitions);
        putIfSet(layers, "--metrics-port", ServerConfig.METRICS_PORT, metricsPort);
        putIfSet(layers, "--join", ServerConfig.JOIN, join);
        ServerConfig config = ServerConfig.load(configFile, layers);
        String seed = joinSeed(layers);
        if (seed == null || seed.isBlank()) {
            return config;
        }
        joining = true;
        // Before the first call to the seed loads the logging (it would fall back to DEBUG on stdout).
        Logging.configure(config);
        // The cluster's settings win over the node's own: a joining node invents none of them. Its
        // own replication factor, if it names one, must be the cluster's (a node started with the
        // same settings as the others names it; another value would be silently overridden).
        layers.put(ServerConfig.JOIN + " " + seed, JoinBootstrap.clusterLayer(config, seed));
        ServerConfig joined = ServerConfig.load(configFile, layers);
        if (config.replicationFactor() > 0 && joined.replicationFactor() > 0
                && config.replicationFactor() != joined.replicationFactor()) {
            throw new ConfigException("invalid " + ServerConfig.REPLICATION_FACTOR + " '" + config.replicationFactor()
                    + "': the cluster joined through " + seed + " has " + joined.replicationFactor()
                    + "; leave it out on a joining node (it takes the cluster's)");
        }
        return joined;
    }

    /** cluster.join from the layers (the last wins), else from the config file. */
    private String joinSeed(Map<String, Map<String, String>> layers) {
        String seed = null;
        for (Map<String, String> layer : layers.values()) {
            seed = layer.getOrDefault(ServerConfig.JOIN, seed);
        }
        if (seed == null && configFile != null) {
            java.util.Properties file = new java.util.Properties();
            try (java.io.Reader in = java.nio.file.Files.newBufferedReader(configFile)) {
                file.load(in);
            } catch (IOException e) {
                throw new ConfigException("cannot read config file " + configFile + ": " + e.getMessage());
            }
            seed = file.getProperty(ServerConfig.JOIN);
        }
        return seed == null ? null : seed.trim();
    }

    private static void putIfSet(Map<String, Map<String, String>> layers, String option, String key, String value) {
        if (value != null) {
            layers.put(option, Map.of(key, value));
        }
    }

    /** The version from the jar manifest, or "dev" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = CohortServerMain.class.getPackage().getImplementationVersion();
            return new String[] {"cohort-server " + (version == null ? "dev" : version)};
        }
    }
}
