package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 16, backup and restore: {@code cohort snapshot save} (the CLI jar, as a process) backs up
 * a running 3-node cluster while committers keep committing; {@code cohort snapshot restore}
 * creates the data dirs of a fresh 3-node cluster (new ports, new cluster id) from the file, one
 * node at a time; the restored cluster serves every offset acknowledged before the save began (and
 * none higher than any ever sent), lists every group, and accepts new commits. Every restored node
 * holds byte-identical snapshot and configuration files.
 *
 * <p>The boundary "acknowledged before the save" is taken before the CLI's JVM starts, seconds
 * before its first call, so a save that handed out a snapshot a few entries stale would still
 * pass here; BackupRestoreTest checks that case on the export itself.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SnapshotRestoreIT {
    /** The CLI jar the test runs as a process; set by the build (see cluster-tests/pom.xml). */
    static final String CLI_JAR_PROPERTY = "cohort.cli.jar";
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final int GROUPS = 9;
    private static final String TOPIC = "orders";
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final String RESTORED_CLUSTER_ID = "cohort-it-restored";

    private final List<ProcessCluster> clusters = new ArrayList<>();
    private boolean passed;

    /** Per group: the highest offset acknowledged, and the highest ever sent. */
    private final Map<String, AtomicLong> acknowledged = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> sent = new ConcurrentHashMap<>();

    @AfterEach
    void closeClusters() {
        for (ProcessCluster cluster : clusters) {
            cluster.close();
            if (passed) {
                cluster.deleteFiles();
            } else {
                System.err.println("[cluster-tests] SnapshotRestoreIT FAILED; files kept:\n" + cluster.describeFiles());
            }
        }
    }

    @Test
    void saveUnderLoadRestoreIntoAFreshClusterKeepsEveryAcknowledgedOffset() throws Exception {
        // Automatic snapshots every 10 entries: the save must not hand out one of those, taken
        // before the commits acknowledged just before it started.
        ProcessCluster source = start(ProcessCluster.builder().nodes(NODES).partitions(PARTITIONS)
                .set("raft.snapshot.every.entries", 10)
                .clusterId("cohort-it-source").name("SnapshotRestoreIT-source"));
        source.awaitStableLeaders(SETTLE);
        Path backup = source.runDir().resolve("backup.cohort");
        Map<String, Long> acknowledgedBeforeSave;
        String saveOutput;
        try (CohortClient client = client(source.bootstrap())) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> committers = startCommitters(client, stop);
            Awaitility.await("every group has acknowledged commits").atMost(SETTLE)
                    .until(() -> acknowledged.size() == GROUPS
                            && acknowledged.values().stream().allMatch(a -> a.get() >= 3));
            acknowledgedBeforeSave = snapshot(acknowledged);
            // The leaders where the balancer puts them, so that they stay there during the save.
            Map<Integer, Integer> leadersBefore = source.awaitPreferredLeaders(SETTLE);
            saveOutput = cli(source.runDir(), "--bootstrap", source.bootstrap(), "snapshot", "save", backup.toString());
            // Each partition from a follower (the replica asked holds its apply for the snapshot; on
            // the leader that would hold every commit), where the leader did not move meanwhile.
            Map<Integer, Integer> leadersAfter = leaders(client);
            Map<Integer, Integer> sources = sourceNodes(saveOutput);
            assertThat(sources).hasSize(PARTITIONS);
            sources.forEach((partition, node) -> {
                if (leadersBefore.get(partition).equals(leadersAfter.get(partition))) {
                    assertThat(node).as("source of partition %s (leaders %s)", partition, leadersAfter)
                            .isNotEqualTo(leadersBefore.get(partition));
                }
            });
            Map<String, Long> acknowledgedAfterSave = snapshot(acknowledged);
            Awaitility.await("commits continue after the save").atMost(SETTLE).until(() -> acknowledged.entrySet()
                    .stream().allMatch(e -> e.getValue().get() > acknowledgedAfterSave.get(e.getKey())));
            stop.set(true);
            for (Thread committer : committers) {
                committer.join(30_000);
            }
        }
        source.close();
        assertThat(saveOutput).contains("checksum: ok").contains(PARTITIONS + " partitions");
        assertThat(cli(source.runDir(), "snapshot", "status", backup.toString())).contains("checksum: ok");

        ProcessCluster restored = ProcessCluster.builder().nodes(NODES).partitions(PARTITIONS)
                .clusterId(RESTORED_CLUSTER_ID).name("SnapshotRestoreIT-restored").create();
        clusters.add(restored);
        for (int node = 1; node <= NODES; node++) {
            String output = cli(restored.runDir(), "snapshot", "restore", backup.toString(),
                    "--data-dir", restored.dataDir(node).toString(), "--node-id", Integer.toString(node),
                    "--peers", restored.peersSpec(), "--cluster-id", RESTORED_CLUSTER_ID);
            assertThat(output).contains("Restored node " + node + " of cluster " + RESTORED_CLUSTER_ID);
        }
        assertSameStateFiles(restored);
        restored.startAll();
        restored.awaitStableLeaders(SETTLE);

        try (CohortClient client = client(restored.bootstrap())) {
            assertThat(client.listGroups(List.of()).stream().map(g -> g.getGroupId()).collect(Collectors.toSet()))
                    .containsAll(acknowledgedBeforeSave.keySet());
            for (Map.Entry<String, Long> group : acknowledgedBeforeSave.entrySet()) {
                Map<TopicPartition, OffsetAndMetadata> offsets = client.fetchOffsets(group.getKey());
                assertThat(offsets).as("offsets of %s", group.getKey()).hasSize(2);
                for (OffsetAndMetadata offset : offsets.values()) {
                    assertThat(offset.offset()).as("restored offset of %s", group.getKey())
                            .isGreaterThanOrEqualTo(group.getValue())
                            .isLessThanOrEqualTo(sent.get(group.getKey()).get());
                }
            }
            // The restored cluster takes new commits.
            for (String group : acknowledgedBeforeSave.keySet()) {
                long next = sent.get(group).get() + 1_000;
                client.commitOffsets(group, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(next, -1, "")));
                assertThat(client.fetchOffsets(group).get(new TopicPartition(TOPIC, 0)).offset()).isEqualTo(next);
            }
        }
        passed = true;
    }

    private static Map<Integer, Integer> leaders(CohortClient client) {
        Map<Integer, Integer> leaders = new TreeMap<>();
        client.clusterStatus(false).getPartitionsList()
                .forEach(p -> leaders.put(p.getPartitionIndex(), p.getLeaderNodeId()));
        return leaders;
    }

    /** PARTITION -> FROM-NODE, from the table `snapshot save` prints. */
    private static Map<Integer, Integer> sourceNodes(String saveOutput) {
        Map<Integer, Integer> sources = new TreeMap<>();
        boolean inTable = false;
        for (String line : saveOutput.lines().toList()) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length > 3 && cells[0].equals("PARTITION")) {
                assertThat(cells[3]).isEqualTo("FROM-NODE");
                inTable = true;
            } else if (inTable && cells.length > 3 && cells[0].matches("\\d+")) {
                sources.put(Integer.parseInt(cells[0]), Integer.parseInt(cells[3]));
            }
        }
        return sources;
    }

    /**
     * Not a check: the numbers for docs/OPERATIONS.md. Run with
     * {@code -Dcohort.snapshot.measure.groups=10000}: fills a 3-node, 1-partition cluster with that
     * many groups of 3 offsets, saves, restores every node, starts the restored cluster, and prints
     * the save time, the file size, each restore's time and the time to serve.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "cohort.snapshot.measure.groups",
            matches = "[0-9]+")
    void measureSaveAndRestore() throws Exception {
        int groups = Integer.getInteger("cohort.snapshot.measure.groups");
        ProcessCluster source = start(ProcessCluster.builder().nodes(NODES).partitions(1)
                .clusterId("cohort-measure").name("SnapshotRestoreIT-measure-source"));
        source.awaitStableLeaders(SETTLE);
        Path backup = source.runDir().resolve("backup.cohort");
        try (CohortClient client = client(source.bootstrap())) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(32);
            List<java.util.concurrent.Future<?>> commits = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                String group = "measure-group-" + g;
                commits.add(pool.submit(() -> {
                    Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
                    for (int p = 0; p < 3; p++) {
                        offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(1_000 + p, 5, "meta"));
                    }
                    client.commitOffsets(group, offsets);
                }));
            }
            for (java.util.concurrent.Future<?> commit : commits) {
                commit.get();
            }
            pool.shutdown();
        }
        long saveStart = System.nanoTime();
        String saved = cli(source.runDir(), "--bootstrap", source.bootstrap(), "snapshot", "save", backup.toString());
        long saveWallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - saveStart);
        source.close();
        ProcessCluster restored = ProcessCluster.builder().nodes(NODES).partitions(1)
                .clusterId("cohort-measure-restored").name("SnapshotRestoreIT-measure-restored").create();
        clusters.add(restored);
        List<String> restores = new ArrayList<>();
        long restoreStart = System.nanoTime();
        for (int node = 1; node <= NODES; node++) {
            restores.add(cli(restored.runDir(), "snapshot", "restore", backup.toString(), "--data-dir",
                    restored.dataDir(node).toString(), "--node-id", Integer.toString(node), "--peers",
                    restored.peersSpec(), "--cluster-id", "cohort-measure-restored").lines().findFirst().orElse(""));
        }
        long restoreWallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restoreStart);
        long startStart = System.nanoTime();
        restored.startAll();
        restored.awaitStableLeaders(SETTLE);
        long startMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startStart);
        try (CohortClient client = client(restored.bootstrap())) {
            assertThat(client.fetchOffsets("measure-group-" + (groups - 1))).hasSize(3);
        }
        System.out.println("[measure] groups=" + groups + " offsets=" + (3 * groups) + " file_bytes="
                + Files.size(backup) + " save_wall_ms(incl. CLI JVM start)=" + saveWallMs + "\n" + saved
                + "[measure] restore_wall_ms(3 CLI runs, sequential)=" + restoreWallMs + "\n"
                + String.join("\n", restores) + "\n[measure] restored cluster start to stable leaders ms=" + startMs);
        passed = true;
    }

    private ProcessCluster start(ProcessClusterBuilder builder) {
        ProcessCluster cluster = builder.start();
        clusters.add(cluster);
        return cluster;
    }

    private static CohortClient client(String bootstrap) {
        return CohortClient.builder().bootstrap(bootstrap.split(",")).clientId("snapshot-it")
                .requestTimeout(Duration.ofSeconds(5)).apiTimeout(Duration.ofSeconds(30)).build();
    }

    /** One committer per group: offsets 1, 2, 3, ... on two topic partitions, each commit awaited. */
    private List<Thread> startCommitters(CohortClient client, AtomicBoolean stop) {
        List<Thread> threads = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            String group = "backup-group-" + g;
            sent.put(group, new AtomicLong());
            Thread thread = new Thread(() -> {
                long offset = 0;
                while (!stop.get()) {
                    offset++;
                    sent.get(group).set(offset);
                    Map<TopicPartition, OffsetAndMetadata> commit = new TreeMap<>();
                    commit.put(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(offset, -1, ""));
                    commit.put(new TopicPartition(TOPIC, 1), new OffsetAndMetadata(offset, -1, ""));
                    try {
                        client.commitOffsets(group, commit);
                        acknowledged.computeIfAbsent(group, k -> new AtomicLong()).set(offset);
                    } catch (CohortException e) {
                        // Not acknowledged: the offset may or may not be committed; the next one supersedes it.
                    }
                }
            }, "committer-" + group);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        return threads;
    }

    private static Map<String, Long> snapshot(Map<String, AtomicLong> values) {
        Map<String, Long> copy = new TreeMap<>();
        values.forEach((key, value) -> copy.put(key, value.get()));
        return copy;
    }

    /** The snapshot, raft-meta.conf and cluster.properties files are byte-identical on every restored node (node.id aside). */
    private static void assertSameStateFiles(ProcessCluster cluster) throws IOException {
        Map<String, byte[]> first = stateFiles(cluster.dataDir(1));
        assertThat(first.keySet()).anyMatch(name -> name.contains("/sm/snapshot."));
        assertThat(first.keySet()).anyMatch(name -> name.endsWith("raft-meta.conf"));
        for (int node = 2; node <= NODES; node++) {
            Map<String, byte[]> other = stateFiles(cluster.dataDir(node));
            assertThat(other.keySet()).isEqualTo(first.keySet());
            for (String name : first.keySet()) {
                assertThat(other.get(name)).as("%s on node %d", name, node).isEqualTo(first.get(name));
            }
        }
    }

    private static Map<String, byte[]> stateFiles(Path dataDir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dataDir)) {
            for (Path path : walk.filter(Files::isRegularFile).toList()) {
                String name = dataDir.relativize(path).toString();
                if (name.contains("/sm/") || name.endsWith("raft-meta.conf")) {
                    files.put(name, Files.readAllBytes(path));
                }
            }
        }
        return files;
    }

    /** Runs the cohort CLI jar with {@code args}; returns its stdout, failing on a non-zero exit. */
    private static String cli(Path dir, String... args) throws InterruptedException {
        Path jar = Path.of(System.getProperty(CLI_JAR_PROPERTY,
                Path.of("..", "cohort-cli", "target", "cohort.jar").toString())).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(List.of(ProcessCluster.java(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString()));
        command.addAll(List.of(args));
        try {
            Files.createDirectories(dir);
            Path out = Files.createTempFile(dir, "cli-", ".out");
            Path err = Files.createTempFile(dir, "cli-", ".err");
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("cohort " + String.join(" ", args) + " did not finish within 120 s");
            }
            String stdout = Files.readString(out, StandardCharsets.UTF_8);
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            System.out.println("$ cohort " + String.join(" ", args) + "\n" + stdout + stderr);
            assertThat(process.exitValue()).as("exit code of cohort %s; stderr: %s", String.join(" ", args), stderr)
                    .isZero();
            return stdout;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
