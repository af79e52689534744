package io.cohort.bench;

import io.cohort.testsupport.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A 3-node Apache Kafka KRaft cluster on loopback, every node one JVM running {@code kafka.Kafka} in
 * combined mode (broker + controller), configured as docs/BENCHMARKS.md's anchor: a static
 * controller quorum of all three, offsets topic replication 3 with 50 partitions,
 * min.insync.replicas 2, group.initial.rebalance.delay.ms 0; everything else Kafka's defaults.
 * Nodes are formatted once ({@code kafka.tools.StorageTool format}), killed with SIGKILL and
 * started again on their data.
 */
final class KafkaCluster implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final int EXIT_SIGKILL = 137;
    private static final String STARTED = "Kafka Server started";

    private final String classpath;
    private final List<String> jvmArgs;
    private final List<String> commandPrefix;
    private final Path runDir;
    private final String clusterId;
    private final Map<Integer, Node> nodes = new TreeMap<>();
    private final Thread shutdownHook;

    private static final class Node {
        final int id;
        final int brokerPort;
        final int controllerPort;
        final Path dir;
        int starts;
        volatile Process process;

        Node(int id, int brokerPort, int controllerPort, Path dir) {
            this.id = id;
            this.brokerPort = brokerPort;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }

        Path log() {
            return dir.resolve("logs").resolve("server.log");
        }

        Path stdout() {
            return dir.resolve("stdout." + starts + ".log");
        }
    }

    /**
     * {@code commandPrefix}: words before each broker's java command, which must exec it (taskset for
     * {@code --driver-cpus}); empty for none.
     */
    KafkaCluster(Path classpathFile, List<String> jvmArgs, List<String> commandPrefix, Path runDir, String clusterId)
            throws IOException {
        this.classpath = Files.readString(classpathFile).trim();
        if (classpath.isEmpty()) {
            throw new IllegalStateException(classpathFile + " is empty: resolve it with benchmarks/kafka/pom.xml");
        }
        this.jvmArgs = List.copyOf(jvmArgs);
        this.commandPrefix = List.copyOf(commandPrefix);
        this.runDir = runDir;
        this.clusterId = clusterId;
        int[] ports = TestPorts.next(6);
        for (int i = 1; i <= 3; i++) {
            nodes.put(i, new Node(i, ports[2 * (i - 1)], ports[2 * (i - 1) + 1], runDir.resolve("node-" + i)));
        }
        this.shutdownHook = new Thread(this::killAll, "kafka-cluster-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    String bootstrap() {
        return nodes.values().stream().map(n -> HOST + ":" + n.brokerPort).collect(Collectors.joining(","));
    }

    /** The broker's version, from its jar's name on the class path (kafka_2.13-X.jar). */
    String brokerVersion() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("kafka_2\\.1[0-9]-([0-9][^/:]*)\\.jar").matcher(classpath);
        return m.find() ? m.group(1) : "unknown";
    }

    Set<Integer> nodeIds() {
        return nodes.keySet();
    }

    Path runDir() {
        return runDir;
    }

    boolean isRunning(int id) {
        Process p = nodes.get(id).process;
        return p != null && p.isAlive();
    }

    long pid(int id) {
        return nodes.get(id).process.pid();
    }

    List<Long> pids() {
        List<Long> out = new ArrayList<>();
        for (Node n : nodes.values()) {
            if (n.process != null && n.process.isAlive()) {
                out.add(n.process.pid());
            }
        }
        return out;
    }

    /** Writes every node's configuration, formats its storage, starts all three and waits for each. */
    void formatAndStartAll(long timeoutMs) throws IOException, InterruptedException {
        String voters = nodes.values().stream().map(n -> n.id + "@" + HOST + ":" + n.controllerPort)
                .collect(Collectors.joining(","));
        for (Node n : nodes.values()) {
            Files.createDirectories(n.dir.resolve("data"));
            Files.createDirectories(n.dir.resolve("logs"));
            Files.writeString(n.dir.resolve("server.properties"), serverProperties(n, voters));
            Files.writeString(n.dir.resolve("log4j2.properties"), log4j2(n));
            List<String> format = new ArrayList<>(List.of(java(), "-Xmx256m", "-cp", classpath,
                    "-Dlog4j2.configurationFile=" + n.dir.resolve("log4j2.properties"),
                    "kafka.tools.StorageTool", "format", "-t", clusterId,
                    "-c", n.dir.resolve("server.properties").toString()));
            Files.writeString(n.dir.resolve("format.log"), Machine.run(format, 120));
        }
        for (Node n : nodes.values()) {
            launch(n);
        }
        for (Node n : nodes.values()) {
            awaitStarted(n, timeoutMs);
        }
    }

    /** Starts a stopped node on its data and waits until it logs that it started. */
    void start(int id, long timeoutMs) throws IOException {
        Node n = nodes.get(id);
        if (isRunning(id)) {
            throw new IllegalStateException("kafka node " + id + " is already running");
        }
        launch(n);
        awaitStarted(n, timeoutMs);
    }

    /** Starts every stopped node on its data at once, then waits until each logs that it started. */
    void startAll(long timeoutMs) throws IOException {
        List<Node> launched = new ArrayList<>();
        for (Node n : nodes.values()) {
            if (!isRunning(n.id)) {
                launch(n);
                launched.add(n);
            }
        }
        for (Node n : launched) {
            awaitStarted(n, timeoutMs);
        }
    }

    /** SIGKILL ({@link Process#destroyForcibly()} is kill -9 on Linux), then waits for the exit. */
    void kill(int id) throws InterruptedException {
        Node n = nodes.get(id);
        Process p = n.process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("kafka node " + id + " is not running");
        }
        p.destroyForcibly();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("kafka node " + id + " did not exit within 10 s of SIGKILL");
        }
        if (p.exitValue() != EXIT_SIGKILL) {
            throw new IllegalStateException("kafka node " + id + " exited with " + p.exitValue() + ", not 137 (SIGKILL)");
        }
    }

    private void launch(Node n) throws IOException {
        n.starts++;
        List<String> command = new ArrayList<>(commandPrefix);
        command.add(java());
        command.addAll(jvmArgs);
        command.add("-Dlog4j2.configurationFile=" + n.dir.resolve("log4j2.properties"));
        command.add("-Dkafka.logs.dir=" + n.dir.resolve("logs"));
        // Tags the process so that a stray broker can be found: pgrep -af cohort.bench.kafka
        command.add("-Dcohort.bench.kafka=" + runDir);
        command.addAll(List.of("-cp", classpath, "kafka.Kafka", n.dir.resolve("server.properties").toString()));
        n.process = new ProcessBuilder(command).directory(n.dir.toFile())
                .redirectErrorStream(true).redirectOutput(n.stdout().toFile()).start();
    }

    private void awaitStarted(Node n, long timeoutMs) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        // The log is appended across starts: count the start lines, wait for one more than before.
        long before = n.starts - 1;
        while (true) {
            if (countStarted(n) > before) {
                return;
            }
            if (!n.process.isAlive()) {
                throw new IllegalStateException("kafka node " + n.id + " exited with " + n.process.exitValue()
                        + " while starting; see " + n.stdout() + " and " + n.log() + "\n" + tail(n.stdout(), 20));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("kafka node " + n.id + " did not log '" + STARTED + "' within "
                        + timeoutMs + " ms; see " + n.log());
            }
            Machine.sleep(50);
        }
    }

    private static long countStarted(Node n) throws IOException {
        if (!Files.exists(n.log())) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(n.log(), StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains(STARTED)).count();
        } catch (UncheckedIOException e) {
            return 0; // a line cut mid-character while it is written: try again
        }
    }

    private String serverProperties(Node n, String voters) {
        return String.join("\n",
                "# Written by the Cohort benchmark (docs/BENCHMARKS.md: the anchor's configuration).",
                "process.roles=broker,controller",
                "node.id=" + n.id,
                "controller.quorum.voters=" + voters,
                "listeners=PLAINTEXT://" + HOST + ":" + n.brokerPort + ",CONTROLLER://" + HOST + ":" + n.controllerPort,
                "advertised.listeners=PLAINTEXT://" + HOST + ":" + n.brokerPort,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                "log.dirs=" + n.dir.resolve("data"),
                "offsets.topic.replication.factor=3",
                "offsets.topic.num.partitions=50",
                "min.insync.replicas=2",
                "group.initial.rebalance.delay.ms=0",
                "transaction.state.log.replication.factor=3",
                "transaction.state.log.min.isr=2",
                "")
                ;
    }

    private static String log4j2(Node n) {
        return String.join("\n",
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = FILE",
                "appender.file.fileName = " + n.dir.resolve("logs").resolve("server.log"),
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = FILE",
                "logger.request.name = kafka.request.logger",
                "logger.request.level = WARN",
                "",
                "");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(unreadable " + file + ")";
        }
    }

    private void killAll() {
        for (Node n : nodes.values()) {
            if (n.process != null && n.process.isAlive()) {
                n.process.destroyForcibly();
            }
        }
        for (Node n : nodes.values()) {
            if (n.process != null) {
                try {
                    n.process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Kills every node (the data is thrown away with the run anyway). */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Already shutting down.
        }
    }

    /** Deletes the nodes' data directories, keeps configs and logs. */
    void deleteData() {
        for (Node n : nodes.values()) {
            deleteTree(n.dir.resolve("data"));
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            Machine.log("could not delete " + dir + ": " + e);
        }
    }
}
