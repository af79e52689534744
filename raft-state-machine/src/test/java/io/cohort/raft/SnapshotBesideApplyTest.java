package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.core.GroupConfig;
import io.cohort.raft.log.SnapshotCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's own snapshots ({@code raft.snapshot.every.entries}) are written beside its apply
 * thread ({@link PartitionSnapshots}), in three real Ratis replicas with on-disk logs: with the
 * writer held, every commit is still applied and acknowledged, no snapshot appears and no log is
 * purged; once it runs, each replica's snapshot of its cut is on disk, Ratis purges the log up to
 * it, and a replica restarted from it ends equal to the others.
 */
class SnapshotBesideApplyTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults();
    private static final int EVERY = 20;
    // Segments smaller than one entry, each entry in its own: Ratis purges closed segments only, and
    // this way all of them up to the snapshot. The replay bound off: only the count decides.
    private static final RaftTuning TUNING = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(EVERY)
            .snapshotMinEntries(Long.MAX_VALUE).batching(1, 1).segmentSizeMaxBytes(16).build();

    @TempDir
    Path tmp;

    @Test
    void commitsGoOnWhileTheSnapshotIsWrittenAndTheLogIsPurgedOnceItIsOnDisk() throws Exception {
        CountDownLatch writerHeld = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        PartitionSnapshots.WRITER.execute(() -> {
            writerHeld.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // Released before the cluster closes (resources close in reverse), also when an assertion fails.
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, TUNING);
             AutoCloseable releaseAtEnd = release::countDown) {
            assertThat(writerHeld.await(20, TimeUnit.SECONDS)).isTrue();
            CohortRaftNode leader = cluster.leaderOf(0);
            // Three times the count, every commit acknowledged: each replica cut its state once and
            // waits for the writer, while its apply thread goes on.
            for (int i = 0; i < 3 * EVERY; i++) {
                assertThat(leader.submit(0, Commands.simpleCommit("g" + i % 5, "t", i % 3, i)).get(20, TimeUnit.SECONDS))
                        .isNotNull();
            }
            cluster.awaitReplicasConverged(0);
            for (CohortRaftNode node : cluster.runningNodes()) {
                // A new replica's log starts at 1, after the empty snapshot at 0 it is created with.
                assertThat(node.status(0).snapshotIndex()).as("node %d: no snapshot before the writer runs",
                        node.nodeId()).isLessThanOrEqualTo(0);
                assertThat(node.logStartIndex(0)).as("node %d: nothing purged", node.nodeId()).isLessThanOrEqualTo(1);
            }

            release.countDown();
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> node.status(0).snapshotIndex() >= EVERY - 1);
                // Then the log is purged up to it.
                long snapshotIndex = node.status(0).snapshotIndex();
                await().atMost(Duration.ofSeconds(20)).until(() -> node.logStartIndex(0) >= snapshotIndex);
            }

            // More snapshots, each written beside apply: the old files are deleted as Ratis's retention says.
            for (int i = 0; i < 3 * EVERY; i++) {
                assertThat(leader.submit(0, Commands.simpleCommit("more", "t", 0, i)).get(20, TimeUnit.SECONDS))
                        .isNotNull();
            }
            cluster.awaitReplicasConverged(0);
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> node.status(0).snapshotIndex() >= 4 * EVERY);
                await().atMost(Duration.ofSeconds(20)).until(() -> snapshotFiles(cluster.dataDir(node.nodeId()))
                        <= TUNING.snapshotRetentionFiles());
            }

            // The snapshot holds the state of its cut, not of the later entries applied while it was
            // written: a replica restarted from it applies those entries again and ends equal.
            int followerId = (leader.nodeId() + 1) % 3;
            CohortRaftNode follower = cluster.node(followerId);
            // Entries past the follower's latest snapshot (its last cut may be the last entry so far).
            for (int i = 0; follower.status(0).snapshotIndex() >= follower.stateMachine(0).lastAppliedIndex(); i++) {
                assertThat(i).as("entries committed past the snapshot").isLessThan(EVERY);
                assertThat(leader.submit(0, Commands.simpleCommit("past", "t", 0, i)).get(20, TimeUnit.SECONDS))
                        .isNotNull();
                cluster.awaitReplicasConverged(0);
            }
            long snapshotIndex = follower.status(0).snapshotIndex();
            cluster.stopNode(followerId);
            cluster.startNode(followerId);
            CohortRaftNode restarted = cluster.node(followerId);
            assertThat(restarted.stateMachine(0).getLatestSnapshot().getIndex()).isGreaterThanOrEqualTo(snapshotIndex);
            cluster.awaitReplicasConverged(0);
            assertThat(SnapshotCodec.digest(restarted.shard(0).snapshot()))
                    .isEqualTo(SnapshotCodec.digest(leader.shard(0).snapshot()));
        } finally {
            release.countDown(); // a start that failed
        }
    }

    /** Snapshot files (not their MD5 files) under a node's data directory. */
    private static long snapshotFiles(Path dataDir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(dataDir)) {
            return paths.filter(path -> path.getFileName().toString().matches("snapshot\\.\\d+_\\d+")).count();
        }
    }
}
