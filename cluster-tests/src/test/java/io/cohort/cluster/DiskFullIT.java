package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.core.PartitionFunction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, "disk full on a single node": node 1's data dir is a 48 MiB tmpfs (needs root, as in
 * CI). While a client commits to every partition, the test fills that tmpfs. Node 1 must notice the
 * failed write, stop in order and exit with code 74 (storage failed) instead of limping on with a
 * dead log; the client's commits must keep succeeding through nodes 2 and 3; once the test frees
 * the space and, acting as the supervisor, starts node 1 again, it catches up, and every
 * acknowledged offset is read back.
 *
 * <p>Before the fix node 1 stayed up with its log worker dead, so the wait for its exit failed.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DiskFullIT {
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final int FULL_NODE = 1;
    private static final long DISK_BYTES = 48L << 20;
    /** Big commits fill Ratis's preallocated log space (1 MiB per segment chunk) in a few hundred entries. */
    private static final String METADATA = "m".repeat(2_000);
    private static final int EXIT_STORAGE_FAILED = 74;
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final int TOPIC_PARTITIONS = 4;

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    private final AtomicBoolean stopCommitting = new AtomicBoolean();
    private final AtomicLong acknowledgedCommits = new AtomicLong();
    /** The last acknowledged offset per group and topic partition (one committer per group: in order). */
    private final Map<String, Map<TopicPartition, Long>> acknowledged = new ConcurrentHashMap<>();
    private final List<Thread> committers = new ArrayList<>();
    private final List<Throwable> committerErrors = new ArrayList<>();

    @AfterEach
    void stopCommitters() throws InterruptedException {
        stopAndJoinCommitters();
    }

    private void stopAndJoinCommitters() throws InterruptedException {
        stopCommitting.set(true);
        for (Thread committer : committers) {
            committer.join(TimeUnit.SECONDS.toMillis(60));
        }
    }

    @Test
    void aNodeOutOfDiskExitsWithItsCodeAndCatchesUpOnceSpaceIsBack() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder()
                .nodes(NODES)
                .partitions(PARTITIONS)
                .smallDisk(FULL_NODE, DISK_BYTES)
                // Snapshots often, so a snapshot write meets the full disk too, not only the log.
                .set("raft.snapshot.every.entries", 100));
        Map<Integer, Integer> leaders = cluster.awaitPreferredLeaders(SETTLE);
        assertThat(leaders).containsValue(FULL_NODE);

        try (CohortClient client = CohortClient.builder().bootstrap(cluster.bootstrap()).clientId("disk-full-it")
                .apiTimeout(Duration.ofSeconds(30)).build()) {
            try {
                fillRestartAndVerify(cluster, client);
            } finally {
                stopAndJoinCommitters(); // before the client closes under them
            }
        }
    }

    private void fillRestartAndVerify(ProcessCluster cluster, CohortClient client) throws Exception {
        for (int p = 0; p < PARTITIONS; p++) {
            startCommitter(client, groupIn(p));
        }
        await().atMost(SETTLE).until(() -> acknowledgedCommits.get() >= 60);

        long fillNanos = System.nanoTime();
        long filled = cluster.smallDisk(FULL_NODE).fill();
        System.out.println("[disk-full-it] filler took " + filled + " bytes of node " + FULL_NODE + "'s tmpfs");
        int exit = cluster.awaitExit(FULL_NODE, Duration.ofSeconds(90));
        System.out.println("[disk-full-it] node " + FULL_NODE + " exited with " + exit + " " + msSince(fillNanos)
                + " ms after the fill began, " + acknowledgedCommits.get() + " commits acknowledged so far");
        assertThat(exit).as("exit code of node %d after its disk filled", FULL_NODE).isEqualTo(EXIT_STORAGE_FAILED);
        assertThat(nodeLog(cluster)).contains("STORAGE FAILED");

        // The other two nodes take over node 1's partitions; commits keep being acknowledged.
        long atExit = acknowledgedCommits.get();
        await().atMost(SETTLE).until(() -> acknowledgedCommits.get() >= atExit + 60);

        // The supervisor's part: space back, node started again; it catches up from the leaders.
        cluster.smallDisk(FULL_NODE).free();
        long startNanos = System.nanoTime();
        cluster.start(FULL_NODE);
        System.out.println("[disk-full-it] node " + FULL_NODE + " serving again " + msSince(startNanos)
                + " ms after its start; " + acknowledgedCommits.get() + " commits acknowledged so far");
        long atRestart = acknowledgedCommits.get();
        await().atMost(SETTLE).until(() -> acknowledgedCommits.get() >= atRestart + 60);
        stopAndJoinCommitters();
        assertThat(committerErrors).as("committer errors").isEmpty();
        cluster.awaitCaughtUp(FULL_NODE, SETTLE);
        System.out.println("[disk-full-it] node " + FULL_NODE + " caught up " + msSince(startNanos)
                + " ms after its start; " + acknowledgedCommits.get() + " commits acknowledged in all");

        for (Map.Entry<String, Map<TopicPartition, Long>> group : acknowledged.entrySet()) {
            Map<TopicPartition, OffsetAndMetadata> fetched = client.fetchOffsets(group.getKey());
            group.getValue().forEach((tp, offset) -> assertThat(fetched.get(tp))
                    .as("offset of %s %s", group.getKey(), tp).isNotNull()
                    .extracting(OffsetAndMetadata::offset).isEqualTo(offset));
        }
    }

    private static long msSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private static String groupIn(int partition) {
        for (int i = 0; ; i++) {
            String group = "disk-full-" + i;
            if (PartitionFunction.partitionFor(group, PARTITIONS) == partition) {
                return group;
            }
        }
    }

    /**
     * Commits offset n to topic partition n mod 4 of {@code group}, n = 1, 2, ..., one call at a time,
     * and records what was acknowledged. A call that fails (the client gave up within its 30 s API
     * timeout) is an error of the test: the cluster must keep taking commits through the fault.
     */
    private void startCommitter(CohortClient client, String group) {
        Thread thread = new Thread(() -> {
            Map<TopicPartition, Long> mine = acknowledged.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
            for (long n = 1; !stopCommitting.get(); n++) {
                TopicPartition tp = new TopicPartition("events", (int) (n % TOPIC_PARTITIONS));
                try {
                    client.commitOffsets(group, Map.of(tp, new OffsetAndMetadata(n, METADATA)));
                    mine.put(tp, n);
                    acknowledgedCommits.incrementAndGet();
                } catch (RuntimeException e) {
                    synchronized (committerErrors) {
                        committerErrors.add(e);
                    }
                    System.err.println("[disk-full-it] commit " + n + " of " + group + " failed: " + e);
                }
            }
        }, "committer-" + group);
        thread.setDaemon(true);
        committers.add(thread);
        thread.start();
    }

    private static String nodeLog(ProcessCluster cluster) throws IOException {
        Path log = cluster.logFile(FULL_NODE);
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
