package io.cohort.cluster;

import io.grpc.InsecureChannelCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** How to build a {@link ProcessCluster}; {@link #start()} launches it. */
public final class ProcessClusterBuilder {
    int nodeCount = 3;
    int partitions = 8;
    String clusterId = "cohort-it";
    String name = "cluster";
    final Map<String, String> settings = new LinkedHashMap<>();
    final List<String> jvmArgs = new ArrayList<>(ProcessCluster.DEFAULT_JVM_ARGS);
    final List<String> commandPrefix = new ArrayList<>();
    Path serverJar = defaultServerJar();
    Path baseDir = Path.of(System.getProperty(ProcessCluster.BASE_DIR_PROPERTY, "target/cluster-tests"));
    Duration startTimeout = Duration.ofSeconds(90);
    boolean faultyNetwork;
    final Map<Integer, Long> smallDiskBytes = new TreeMap<>();
    boolean raftTls;
    boolean leaderWarmup;
    io.grpc.ChannelCredentials clientCredentials = InsecureChannelCredentials.create();

    ProcessClusterBuilder() {
    }

    /**
     * Mutual TLS on every Raft port: the harness makes a throwaway peer CA and a certificate
     * per node under {@code <run>/tls} and passes them as {@code raft.tls.*}.
     */
    public ProcessClusterBuilder raftTls() {
        this.raftTls = true;
        return this;
    }

    /**
     * Routes every Raft link (node a to node b) through its own proxy in this JVM, so tests can
     * cut and heal links ({@link ProcessCluster#links()}). Nodes are then named
     * {@code cohort-n<id>} in the peers list; a client JVM must resolve those names to 127.0.0.1
     * (run it with {@code -Djdk.net.hosts.file} pointing at {@link RaftLinks#clientHostsFile}).
     */
    public ProcessClusterBuilder faultyNetwork() {
        this.faultyNetwork = true;
        return this;
    }

    /**
     * Puts node {@code nodeId}'s data dir on a tmpfs of {@code bytes} (mounted before the node
     * starts, unmounted by {@link ProcessCluster#close()}), which a test fills with
     * {@link ProcessCluster#smallDisk(int)}. Needs root; the start fails with a message otherwise.
     */
    public ProcessClusterBuilder smallDisk(int nodeId, long bytes) {
        smallDiskBytes.put(nodeId, bytes);
        return this;
    }

    private static Path defaultServerJar() {
        String configured = System.getProperty(ProcessCluster.SERVER_JAR_PROPERTY);
        return (configured != null ? Path.of(configured)
                : Path.of("..", "coordinator-server", "target", "cohort-server.jar")).toAbsolutePath().normalize();
    }

    /** The credentials of the cluster's own channels to the client ports, for nodes run with {@code tls.*}. */
    public ProcessClusterBuilder clientCredentials(io.grpc.ChannelCredentials credentials) {
        this.clientCredentials = credentials;
        return this;
    }

    public ProcessClusterBuilder nodes(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node, got " + count);
        }
        this.nodeCount = count;
        return this;
    }

    public ProcessClusterBuilder partitions(int count) {
        this.partitions = count;
        return this;
    }

    public ProcessClusterBuilder clusterId(String id) {
        this.clusterId = id;
        return this;
    }

    /** Names the run directory ({@code <name>-<timestamp>}), e.g. after the test. */
    public ProcessClusterBuilder name(String runName) {
        this.name = runName;
        return this;
    }

    /**
     * A server setting passed to every node as {@code --set key=value}; {@code <id>} in the value
     * becomes the node's id (per-node files: {@code tls.cert=.../node-<id>.pem}).
     */
    public ProcessClusterBuilder set(String key, Object value) {
        settings.put(key, String.valueOf(value));
        return this;
    }

    /**
     * Nodes run the leader-path warm-up at start, as a deployed node does (the default there).
     * Without this call the harness turns it off: it costs each node start about 6 CPU-seconds
     * (docs/OPERATIONS.md, node.warmup.enabled) on a 2-core machine and changes nothing a
     * correctness test looks at; the tests that measure or stress restarts (the rolling restart,
     * chaos) turn it on. Passing nothing keeps an older
     * server jar, which does not know the setting, startable.
     */
    public ProcessClusterBuilder leaderWarmup() {
        leaderWarmup = true;
        return this;
    }

    /** Extra JVM options for every node, after {@link ProcessCluster#DEFAULT_JVM_ARGS}. */
    public ProcessClusterBuilder jvmArgs(String... args) {
        jvmArgs.addAll(List.of(args));
        return this;
    }

    /**
     * Words placed before each node's java command, e.g. {@code taskset -c 0} to keep the nodes on
     * some CPUs. The prefix must exec java, so that the started process is the node (its pid is the
     * one SIGKILLed and measured).
     */
    public ProcessClusterBuilder commandPrefix(List<String> prefix) {
        commandPrefix.addAll(prefix);
        return this;
    }

    public ProcessClusterBuilder serverJar(Path jar) {
        this.serverJar = jar.toAbsolutePath().normalize();
        return this;
    }

    public ProcessClusterBuilder baseDir(Path dir) {
        this.baseDir = dir;
        return this;
    }

    /** How long a node may take from launch to its SERVING line. */
    public ProcessClusterBuilder startTimeout(Duration timeout) {
        this.startTimeout = timeout;
        return this;
    }

    /**
     * The cluster with its ports, peers and directories fixed, but no node started yet: for a
     * test that prepares the nodes' data dirs first (a restore from a backup), then
     * {@link ProcessCluster#startAll()}.
     */
    public ProcessCluster create() {
        if (!Files.isRegularFile(serverJar)) {
            throw new IllegalStateException("server jar " + serverJar + " does not exist: build it with "
                    + "'mvn -B package -pl coordinator-server -am' (or run the whole reactor: 'mvn -B verify')");
        }
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
        return new ProcessCluster(this, baseDir.toAbsolutePath().normalize().resolve(name + "-" + stamp));
    }

    /** Creates the run directory and starts every node; waits until each prints SERVING. */
    public ProcessCluster start() {
        ProcessCluster cluster = create();
        try {
            return cluster.startAll();
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }
}
