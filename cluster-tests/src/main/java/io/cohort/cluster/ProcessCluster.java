package io.cohort.cluster;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.cluster.tls.Certificates;
import io.cohort.testsupport.TestPorts;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A cluster of real Cohort node processes on loopback: every node is its own JVM started from the
 * packaged server jar ({@code coordinator-server/target/cohort-server.jar}) with the node's CLI, on
 * free ports, with its data, logs, stdout and stderr under one run directory. Nodes can be killed
 * with SIGKILL, stopped with SIGTERM and started again with the same identity and data.
 *
 * <p>Layout of a run: {@code <base>/<name>-<timestamp>/node-<i>/{data,logs,stdout.<n>.log,
 * stderr.<n>.log}}, where {@code n} counts the node's starts. {@link #close()} kills every node but
 * keeps the files, so a failed test leaves them behind; {@link #deleteFiles()} removes them.
 *
 * <p>The harness knows the node only through its command-line contract and the one stdout line
 * {@code COHORT NODE <id> SERVING client=<host:port> raft=<host:port> metrics=<port>}, which a
 * node prints once its gRPC server is up and its health is SERVING.
 */
public final class ProcessCluster implements AutoCloseable {
    /** System property naming the server jar; set by the build (see cluster-tests/pom.xml). */
    public static final String SERVER_JAR_PROPERTY = "cohort.server.jar";
    /** System property naming the directory that holds the run directories. */
    public static final String BASE_DIR_PROPERTY = "cohort.cluster.dir";
    /**
     * JVM options of every node: the project's test heap, exit on OutOfMemoryError as
     * scripts/cluster.sh does (a node that ran out of heap must not limp on), and C1 only with the
     * serial collector.
     * Three node JVMs beside Maven on two cores spend their first seconds compiling; without C2 and
     * the parallel GC threads, a 3-node cluster measured here reached SERVING and settled its
     * leaders in about half the time under load (e.g. 20 s instead of 40-80 s to preferred
     * leaders). The nodes serve a test's few requests; peak throughput does not matter.
     */
    public static final List<String> DEFAULT_JVM_ARGS = List.of("-Xmx512m", "-XX:+ExitOnOutOfMemoryError",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static final String HOST = "127.0.0.1";
    /** The node setting of the leader-path warm-up (see {@link ProcessClusterBuilder#leaderWarmup()}). */
    static final String LEADER_WARMUP_SETTING = "node.warmup.enabled";
    /** SIGKILL'd processes exit with 128 + 9 (Linux and macOS). */
    private static final int EXIT_SIGKILL = 137;
    static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private final Path serverJar;
    private final Path runDir;
    /** Replaced by the node id in setting values. */
    static final String NODE_ID_PLACEHOLDER = "<id>";
    /** How {@link #channel} talks to the client ports: plaintext unless the nodes run TLS. */
    private final io.grpc.ChannelCredentials clientCredentials;
    private final int partitions;
    private final String clusterId;
    private final Map<String, String> settings;
    private final List<String> jvmArgs;
    /** Words before each node's java command ({@link ProcessClusterBuilder#commandPrefix}); empty by default. */
    private final List<String> commandPrefix;
    private final Duration startTimeout;
    private final Map<Integer, NodeProcess> nodes = new TreeMap<>();
    private final Thread shutdownHook;
    /** The fault-injecting proxies on every Raft link; null unless built with {@link ProcessClusterBuilder#faultyNetwork()}. */
    private final RaftLinks links;
    /** The nodes whose data dir is a small tmpfs ({@link ProcessClusterBuilder#smallDisk}). */
    private final Map<Integer, SmallDisk> smallDisks = new TreeMap<>();
    /** The run's throwaway peer CA; null unless built with {@link ProcessClusterBuilder#raftTls()}. */
    private final Certificates.Ca peerCa;
    /** Processes started with a node's identity beside the cluster ({@link #startOutsider}). */
    private final List<NodeProcess> outsiders = new ArrayList<>();
    /** What the running nodes' ClusterStatus says: leaders, catch-up, descriptions. */
    private final ClusterStatuses statuses = new ClusterStatuses(this);

    ProcessCluster(ProcessClusterBuilder builder, Path runDir) {
        this.serverJar = builder.serverJar;
        this.runDir = runDir;
        this.clientCredentials = builder.clientCredentials;
        this.partitions = builder.partitions;
        this.clusterId = builder.clusterId;
        this.settings = new LinkedHashMap<>(builder.settings);
        if (!builder.leaderWarmup) {
            settings.putIfAbsent(LEADER_WARMUP_SETTING, "false");
        }
        this.jvmArgs = List.copyOf(builder.jvmArgs);
        this.commandPrefix = List.copyOf(builder.commandPrefix);
        this.startTimeout = builder.startTimeout;
        // Below the ephemeral range and reserved for this JVM alone (TestPorts): no other test JVM and no
        // outgoing connection takes a node's port, also while the node is down between kill and restart.
        int[] ports = TestPorts.next(3 * builder.nodeCount);
        this.peerCa = builder.raftTls ? Certificates.ca("cohort-it peer CA " + runDir.getFileName()) : null;
        for (int i = 1; i <= builder.nodeCount; i++) {
            int base = 3 * (i - 1);
            NodeProcess node = new NodeProcess(i, ports[base], ports[base + 1], ports[base + 2], runDir.resolve("node-" + i));
            if (peerCa != null) {
                node.raftTlsSettings.putAll(raftTlsSettings(peerCa, i, "node-" + i));
            }
            nodes.put(i, node);
        }
        mountSmallDisks(builder.smallDiskBytes);
        Map<Integer, Integer> raftPorts = new TreeMap<>();
        Map<Integer, Integer> clientPorts = new TreeMap<>();
        nodes.forEach((id, node) -> {
            raftPorts.put(id, node.raftPort);
            clientPorts.put(id, node.clientPort);
        });
        this.links = builder.faultyNetwork ? RaftLinks.start(raftPorts, clientPorts) : null;
        // A test JVM that exits without close() must not leave node JVMs behind.
        this.shutdownHook = new Thread(() -> {
            killAllQuietly();
            unmountSmallDisks();
        }, "process-cluster-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static ProcessClusterBuilder builder() {
        return new ProcessClusterBuilder();
    }

    private void mountSmallDisks(Map<Integer, Long> sizes) {
        try {
            sizes.forEach((id, bytes) -> smallDisks.put(id, SmallDisk.mount(dataDir(id), bytes)));
        } catch (RuntimeException e) {
            unmountSmallDisks();
            throw e;
        }
    }

    /** The small tmpfs holding node {@code nodeId}'s data dir ({@link ProcessClusterBuilder#smallDisk}). */
    public SmallDisk smallDisk(int nodeId) {
        SmallDisk disk = smallDisks.get(nodeId);
        if (disk == null) {
            throw new IllegalArgumentException("node " + nodeId + " has no small disk (ProcessClusterBuilder.smallDisk)");
        }
        return disk;
    }

    /** Unmounts every small disk; the nodes must be stopped. Reports failures on stderr, never throws. */
    private void unmountSmallDisks() {
        for (SmallDisk disk : smallDisks.values()) {
            try {
                disk.unmount();
            } catch (RuntimeException e) {
                System.err.println("[process-cluster] " + e.getMessage());
            }
        }
    }

    /** Whether the Raft ports speak mutual TLS ({@link ProcessClusterBuilder#raftTls()}). */
    public boolean raftTls() {
        return peerCa != null;
    }

    /** Where the run's certificates are: {@code <run>/tls}. */
    public Path tlsDir() {
        return runDir.resolve("tls");
    }

    /** The PEM file of the run's peer CA, which every node trusts. Only with {@link ProcessClusterBuilder#raftTls()}. */
    public Path peerCaFile() {
        if (peerCa == null) {
            throw new IllegalStateException("this cluster was built without raftTls()");
        }
        return tlsDir().resolve("peer-ca.crt");
    }

    /**
     * A certificate for node {@code nodeId}'s hosts (127.0.0.1, localhost and its faulty-network
     * name) signed by {@code ca}, trusting {@code trustedCaFile}, as {@code raft.tls.*} settings.
     * With the run's peer CA this is what the node gets; with another CA it makes an impostor.
     */
    public Map<String, String> raftTlsSettings(Certificates.Ca ca, int nodeId, String fileStem, Path trustedCaFile) {
        Certificates.Leaf leaf = ca.issue("n" + nodeId, List.of(HOST, "localhost", RaftLinks.hostName(nodeId)), tlsDir(),
                fileStem);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("raft.tls.enabled", "true");
        settings.put("raft.tls.cert", leaf.certFile().toString());
        settings.put("raft.tls.key", leaf.keyFile().toString());
        settings.put("raft.tls.ca", trustedCaFile.toString());
        return settings;
    }

    private Map<String, String> raftTlsSettings(Certificates.Ca ca, int nodeId, String fileStem) {
        ca.writeCertificate(tlsDir().resolve("peer-ca.crt"));
        return raftTlsSettings(ca, nodeId, fileStem, tlsDir().resolve("peer-ca.crt"));
    }

    /**
     * Starts a process with node {@code asNodeId}'s identity (its id and ports, the same peers and
     * cluster id) but a fresh directory {@code <run>/<name>} and, instead of the node's Raft TLS,
     * {@code raftTls} (empty: plaintext); waits until it prints SERVING. The node itself must not be
     * running (the ports are the same). For tests of what an impostor can do.
     */
    public Outsider startOutsider(String name, int asNodeId, Map<String, String> raftTls) {
        NodeProcess node = node(asNodeId);
        if (isRunning(asNodeId)) {
            throw new IllegalStateException("node " + asNodeId + " is running; an outsider with its ports cannot start");
        }
        NodeProcess outsider = new NodeProcess(asNodeId, node.clientPort, node.raftPort, node.metricsPort, runDir.resolve(name));
        outsider.raftTlsSettings.putAll(raftTls);
        synchronized (outsiders) {
            outsiders.add(outsider);
        }
        launch(outsider);
        awaitServing(outsider);
        return new Outsider(outsider, HOST);
    }

    /** The node ids, 1..N. */
    public Set<Integer> nodeIds() {
        return nodes.keySet();
    }

    public int size() {
        return nodes.size();
    }

    public int partitions() {
        return partitions;
    }

    public Path runDir() {
        return runDir;
    }

    /**
     * The {@code --peers} value every node gets: {@code id=host:raftPort:clientPort,...}. The host is
     * 127.0.0.1, or with a faulty network {@code cohort-n<id>}, which each node resolves through its
     * own hosts file (see {@link RaftLinks}).
     */
    public String peersSpec() {
        return nodes.values().stream()
                .map(n -> n.id + "=" + hostOf(n.id) + ":" + n.raftPort + ":" + n.clientPort)
                .collect(Collectors.joining(","));
    }

    private String hostOf(int nodeId) {
        return links == null ? HOST : RaftLinks.hostName(nodeId);
    }

    /** {@code 127.0.0.1:port,...} of every node's client port: a bootstrap list for clients. */
    public String bootstrap() {
        return nodes.values().stream().map(n -> HOST + ":" + n.clientPort).collect(Collectors.joining(","));
    }

    /**
     * The proxies on the Raft links, to cut and heal them. Only for a cluster built with
     * {@link ProcessClusterBuilder#faultyNetwork()}.
     */
    public RaftLinks links() {
        if (links == null) {
            throw new IllegalStateException("this cluster was built without faultyNetwork()");
        }
        return links;
    }

    /**
     * Freezes node {@code nodeId} with SIGSTOP: the process keeps its sockets and memory but runs
     * no code, like a JVM in a long GC pause or a VM that was suspended (a zombie leader).
     */
    public void pause(int nodeId) {
        signal(nodeId, "STOP");
    }

    /** Lets a node frozen by {@link #pause} run again (SIGCONT). */
    public void resume(int nodeId) {
        signal(nodeId, "CONT");
    }

    private void signal(int nodeId, String signal) {
        Process process = requireRunning(node(nodeId));
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not send SIG" + signal + " to node " + nodeId, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling node " + nodeId, e);
        }
    }

    public int clientPort(int nodeId) {
        return node(nodeId).clientPort;
    }

    public int raftPort(int nodeId) {
        return node(nodeId).raftPort;
    }

    public int metricsPort(int nodeId) {
        return node(nodeId).metricsPort;
    }

    public Path nodeDir(int nodeId) {
        return node(nodeId).dir;
    }

    public Path dataDir(int nodeId) {
        return node(nodeId).dir.resolve("data");
    }

    public Path logDir(int nodeId) {
        return node(nodeId).dir.resolve("logs");
    }

    /** NodeProcess {@code nodeId}'s log file, {@code node-<id>.log} in its {@link #logDir}. */
    public Path logFile(int nodeId) {
        return logDir(nodeId).resolve("node-" + nodeId + ".log");
    }

    public boolean isRunning(int nodeId) {
        Process process = node(nodeId).process;
        return process != null && process.isAlive();
    }

    /** The ids of the nodes whose process is alive. */
    public List<Integer> runningNodeIds() {
        return nodes.keySet().stream().filter(this::isRunning).toList();
    }

    /** The OS process id of a running node. */
    public long pid(int nodeId) {
        NodeProcess node = node(nodeId);
        if (node.process == null) {
            throw new IllegalStateException("node " + nodeId + " was never started");
        }
        return node.process.pid();
    }

    /**
     * Writes the thread dump of every running node ({@code jcmd <pid> Thread.print -l}) to
     * {@code dir/threads-node-<id>.txt}: what a wedged node was doing, taken before the nodes are
     * stopped. Best effort: a node that does not answer within 30 s gets the error in its file.
     */
    public void dumpThreads(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        for (int id : runningNodeIds()) {
            Path out = dir.resolve("threads-node-" + id + ".txt");
            try {
                Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(pid(id)), "Thread.print", "-l")
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!dump.waitFor(30, TimeUnit.SECONDS)) {
                    dump.destroyForcibly();
                    Files.writeString(out, "\njcmd did not finish within 30 s\n", StandardOpenOption.APPEND);
                }
            } catch (IOException e) {
                Files.writeString(out, "jcmd failed: " + e + "\n");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Starts every node that is not running, all at once, and waits until each prints SERVING. */
    public ProcessCluster startAll() {
        List<NodeProcess> launched = new ArrayList<>();
        for (NodeProcess node : nodes.values()) {
            if (!isRunning(node.id)) {
                launch(node);
                launched.add(node);
            }
        }
        for (NodeProcess node : launched) {
            awaitServing(node);
        }
        return this;
    }

    /**
     * Adds node {@code nodeId} to this run (new ports, its own directory) and starts it in join mode
     * ({@code --join} of node {@code seedNodeId}'s client port, {@code --peers} itself only): it takes
     * the cluster's settings from the seed and waits, empty, for {@code add-node}. Waits until it
     * prints SERVING. Later {@link #start}s of it keep the join option (its data dir then holds the
     * settings). If the node exists already (a replacement with the same id), its ports are kept.
     */
    public void startJoining(int nodeId, int seedNodeId) {
        NodeProcess node = nodes.get(nodeId);
        if (node == null) {
            int[] ports = TestPorts.next(3);
            node = new NodeProcess(nodeId, ports[0], ports[1], ports[2], runDir.resolve("node-" + nodeId));
            nodes.put(nodeId, node);
        }
        if (isRunning(nodeId)) {
            throw new IllegalStateException("node " + nodeId + " is already running");
        }
        node.joinSeed = HOST + ":" + node(seedNodeId).clientPort;
        launch(node);
        awaitServing(node);
    }

    /** {@code host:raftPort} of node {@code nodeId}, as add-node takes it. */
    public String raftAddress(int nodeId) {
        return hostOf(nodeId) + ":" + node(nodeId).raftPort;
    }

    /** {@code host:clientPort} of node {@code nodeId}, as add-node takes it. */
    public String clientAddress(int nodeId) {
        return hostOf(nodeId) + ":" + node(nodeId).clientPort;
    }

    /** Starts node {@code nodeId} (with its existing data, if any) and waits until it prints SERVING. */
    public void start(int nodeId) {
        NodeProcess node = node(nodeId);
        if (isRunning(nodeId)) {
            throw new IllegalStateException("node " + nodeId + " is already running (pid " + node.process.pid() + ")");
        }
        launch(node);
        awaitServing(node);
    }

    /**
     * NodeProcess {@code nodeId} runs {@code jar} from its next start on (another release, for a mixed-version
     * cluster during a rolling upgrade); null goes back to the cluster's jar.
     */
    public void useServerJar(int nodeId, Path jar) {
        node(nodeId).serverJar = jar;
    }

    /**
     * Kills node {@code nodeId} with SIGKILL ({@link Process#destroyForcibly()} is {@code kill -9} on
     * Linux) and waits until it is gone. Checks the exit status: a process that exited any other way
     * (it crashed earlier, or handled a signal) fails the call, since the test would not be
     * testing what it claims.
     */
    public void kill(int nodeId) {
        NodeProcess node = node(nodeId);
        Process process = requireRunning(node);
        node.closeChannel();
        process.destroyForcibly();
        int exit = node.awaitExit(process, Duration.ofSeconds(10));
        if (exit != EXIT_SIGKILL) {
            throw new IllegalStateException("node " + nodeId + " (pid " + process.pid() + ") exited with " + exit
                    + " instead of " + EXIT_SIGKILL + " (SIGKILL); see " + node.stderr());
        }
    }

    /**
     * Stops node {@code nodeId} with SIGTERM (the graceful path: it hands off the partitions it
     * leads, then exits) and waits up to {@code timeout} for it to exit.
     *
     * @return the exit status (143 when the JVM ends through its SIGTERM shutdown hooks)
     */
    public int stop(int nodeId, Duration timeout) {
        NodeProcess node = node(nodeId);
        Process process = requireRunning(node);
        node.closeChannel();
        process.destroy();
        return node.awaitExit(process, timeout);
    }

    /**
     * Waits up to {@code timeout} for node {@code nodeId} to exit by itself (it is not signalled).
     *
     * @return its exit status
     */
    public int awaitExit(int nodeId, Duration timeout) {
        NodeProcess node = node(nodeId);
        if (node.process == null) {
            throw new IllegalStateException("node " + nodeId + " was never started");
        }
        return node.awaitExit(node.process, timeout);
    }

    private Process requireRunning(NodeProcess node) {
        if (!isRunning(node.id)) {
            throw new IllegalStateException("node " + node.id + " is not running" + node.exitDescription());
        }
        return node.process;
    }

    /** A channel (plaintext, or the builder's clientCredentials) to node {@code nodeId}'s client port; a fresh one after each (re)start. */
    public ManagedChannel channel(int nodeId) {
        NodeProcess node = node(nodeId);
        synchronized (node) {
            if (node.channel == null) {
                node.channel = Grpc.newChannelBuilderForAddress(HOST, node.clientPort, clientCredentials)
                        .build();
            }
            return node.channel;
        }
    }

    public GroupCoordinatorGrpc.GroupCoordinatorBlockingStub coordinator(int nodeId) {
        return GroupCoordinatorGrpc.newBlockingStub(channel(nodeId));
    }

    public ClusterAdminGrpc.ClusterAdminBlockingStub admin(int nodeId) {
        return ClusterAdminGrpc.newBlockingStub(channel(nodeId));
    }

    /** ClusterStatus as node {@code nodeId} sees it (5 s deadline). */
    public ClusterStatusResponse status(int nodeId) {
        return admin(nodeId).withDeadlineAfter(5, TimeUnit.SECONDS).clusterStatus(ClusterStatusRequest.getDefaultInstance());
    }

    /**
     * Waits until every partition has a leader that every running node agrees on, that leader is
     * itself running and reports itself leader-ready.
     *
     * @return the leader of each partition, by partition index
     */
    public Map<Integer, Integer> awaitStableLeaders(Duration timeout) {
        AtomicReference<Map<Integer, Integer>> leaders = new AtomicReference<>();
        awaitCondition(timeout, "every partition led by a running, leader-ready node that all running nodes agree on",
                () -> {
                    leaders.set(statuses.agreedLeaders());
                    return leaders.get() != null;
                }, this::describeStatuses);
        return leaders.get();
    }

    /**
     * Waits until every partition is led by its preferred node (the first of its replicas as
     * ClusterStatus lists them; the {@code p mod N}-th node in id order when every node holds every
     * partition), which is where Cohort moves leadership once all nodes are up and caught up. A
     * partition whose leader runs with {@code auto.leader.rebalance.enable=false} (its ClusterStatus
     * says so) stays where it is: any agreed, ready leader will do for it.
     */
    public Map<Integer, Integer> awaitPreferredLeaders(Duration timeout) {
        AtomicReference<Map<Integer, Integer>> leaders = new AtomicReference<>();
        awaitCondition(timeout, "every partition led by its preferred node (its first replica)", () -> {
            leaders.set(statuses.agreedLeaders());
            if (leaders.get() == null) {
                return false;
            }
            Map<Integer, Integer> preferred = preferredLeaders();
            if (preferred == null) {
                return false;
            }
            for (Map.Entry<Integer, Integer> led : leaders.get().entrySet()) {
                if (!led.getValue().equals(preferred.get(led.getKey())) && !statuses.keepsLeadership(led.getValue())) {
                    return false;
                }
            }
            return true;
        }, this::describeStatuses);
        return leaders.get();
    }

    /**
     * The preferred leader of every partition (the first of its replicas, from a running node's
     * ClusterStatus), or null if no running node answers.
     */
    public Map<Integer, Integer> preferredLeaders() {
        return statuses.preferredLeaders();
    }

    /** One line per running node and partition: leader, term, commit/applied index. For failure messages. */
    public String describeStatuses() {
        return statuses.describe();
    }

    /**
     * Waits until node {@code nodeId}'s replica of every partition knows a running leader and has
     * applied at least everything that leader had committed. Each leader's commit index is read
     * before the node's applied index, so a commit index the node could not have seen yet never
     * counts against it.
     */
    public void awaitCaughtUp(int nodeId, Duration timeout) {
        awaitCondition(timeout, "node " + nodeId + " has applied everything the partition leaders committed",
                () -> statuses.isCaughtUp(nodeId), this::describeStatuses);
    }

    /**
     * Polls {@code condition} every 50 ms until it holds; past {@code timeout} fails with
     * {@code what}, the {@code detail} (evaluated then) and where the node logs are.
     */
    public void awaitCondition(Duration timeout, String what, BooleanSupplier condition, Supplier<String> detail) {
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadlineNanos) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what + detail.get()
                        + "\n" + describeFiles());
            }
            pause(POLL_INTERVAL);
        }
    }

    /**
     * Every file of the run except the nodes' Raft data: each node's stdout, stderr and logs, and
     * whatever the test wrote beside them (a history, a report). For failure reports.
     */
    public List<Path> logFiles() {
        if (!Files.isDirectory(runDir)) {
            return List.of();
        }
        Set<Path> dataDirs = nodes.keySet().stream().map(this::dataDir).collect(Collectors.toSet());
        try (Stream<Path> walk = Files.walk(runDir)) {
            return walk.filter(Files::isRegularFile)
                    .filter(f -> dataDirs.stream().noneMatch(f::startsWith))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A readable list of the run directory and its log files. */
    public String describeFiles() {
        StringBuilder text = new StringBuilder("cluster run directory: ").append(runDir);
        for (Path file : logFiles()) {
            text.append("\n  ").append(file);
        }
        return text.toString();
    }

    /** Kills every running node (SIGKILL), closes the channels and unmounts small disks; keeps other files. */
    @Override
    public void close() {
        killAllQuietly();
        unmountSmallDisks();
        if (links != null) {
            links.close();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; the hook runs anyway.
        }
    }

    private void killAllQuietly() {
        List<NodeProcess> all = new ArrayList<>(nodes.values());
        synchronized (outsiders) {
            all.addAll(outsiders);
        }
        for (NodeProcess node : all) {
            node.closeChannel();
            Process process = node.process;
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
        }
        for (NodeProcess node : all) {
            if (node.process != null) {
                try {
                    node.process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Deletes the run directory (call after {@link #close()}, when the run passed). */
    public void deleteFiles() {
        if (!Files.exists(runDir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(runDir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + runDir, e);
        }
    }

    private NodeProcess node(int nodeId) {
        NodeProcess node = nodes.get(nodeId);
        if (node == null) {
            throw new IllegalArgumentException("no node " + nodeId + " in this cluster (nodes " + nodes.keySet() + ")");
        }
        return node;
    }

    private void launch(NodeProcess node) {
        node.launch(command(node), links == null ? null : links.hostsFileOf(node.id), serverJar);
    }

    private void awaitServing(NodeProcess node) {
        node.awaitServing(startTimeout, this::describeFiles);
    }

    private List<String> command(NodeProcess node) {
        Path jar = node.serverJar != null ? node.serverJar : serverJar;
        List<String> command = new ArrayList<>(commandPrefix);
        command.add(java());
        command.addAll(jvmArgs);
        // Off unless the build asks for it (NodeClassArchive): the nodes map the classes a throwaway node loaded.
        command.addAll(NodeClassArchive.jvmOptions(jar, runDir.getParent()));
        if (links != null) {
            // This node reaches each peer through its own proxy for that link (RaftLinks).
            command.add("-Djdk.net.hosts.file=" + node.dir.resolve("hosts"));
        }
        // Tags the process so a stray node can be found with ps.
        command.add("-Dcohort.cluster.run=" + runDir);
        command.addAll(List.of("-jar", jar.toString(),
                "--node-id", String.valueOf(node.id),
                "--cluster-id", clusterId,
                "--peers", node.joinSeed == null ? peersSpec()
                        : node.id + "=" + hostOf(node.id) + ":" + node.raftPort + ":" + node.clientPort,
                "--data-dir", node.dir.resolve("data").toString(),
                "--log-dir", node.logDir().toString(),
                "--partitions", String.valueOf(partitions),
                "--metrics-port", String.valueOf(node.metricsPort)));
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            command.add("--set");
            command.add(setting.getKey() + "=" + setting.getValue().replace(NODE_ID_PLACEHOLDER, String.valueOf(node.id)));
        }
        for (Map.Entry<String, String> setting : node.raftTlsSettings.entrySet()) {
            command.add("--set");
            command.add(setting.getKey() + "=" + setting.getValue());
        }
        if (node.joinSeed != null) {
            command.addAll(List.of("--join", node.joinSeed));
        }
        return command;
    }

    /** The java executable of this JVM's Java, which the nodes run on. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** How node {@code nodeId}'s last process ended ("" while it runs): for failure messages. */
    String exitDescription(int nodeId) {
        return node(nodeId).exitDescription();
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }


}
