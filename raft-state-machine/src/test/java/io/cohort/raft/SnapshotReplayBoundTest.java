package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.shard.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay bound ({@code raft.snapshot.min.entries}, {@link LogReplayBound}) in three real Ratis
 * replicas with on-disk logs: Ratis's own entry count is set out of reach, so every snapshot here is
 * one the bound asked for.
 */
class SnapshotReplayBoundTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults();
    private static final int MIN_ENTRIES = 20;
    private static final RaftTuning TUNING = RaftTestCluster.TEST_TUNING.toBuilder()
            .snapshotEveryEntries(1_000_000).snapshotMinEntries(MIN_ENTRIES).batching(1, 1).build();

    @TempDir
    Path tmp;

    @Test
    void aSmallStateIsSnapshottedEveryMinimumCountOfEntries() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, TUNING)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            for (int i = 0; i < 5 * MIN_ENTRIES; i++) {
                commit(leader, Commands.simpleCommit("small", "t", i % 3, i));
            }
            cluster.awaitReplicasConverged(0);
            // Each replica asks on its own, from the entries it applied: all three snapshot.
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> node.status(0).snapshotIndex() >= 3 * MIN_ENTRIES);
            }
        }
    }

    @Test
    void aStateLargerThanItsLogIsNotSnapshottedUntilTheLogOutweighsIt() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, TUNING)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            // One entry of ~240 KB of state (60 offsets with 4,000 bytes of metadata each), then small
            // entries up to the minimum count: the bound asks once, for a snapshot of that state.
            commit(leader, bigCommit("large", 0, 60));
            for (int i = 1; i < MIN_ENTRIES + 2; i++) {
                commit(leader, Commands.simpleCommit("small", "t", 0, i));
            }
            cluster.awaitReplicasConverged(0);
            Map<Integer, Long> firstSnapshot = new HashMap<>();
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> node.status(0).snapshotIndex() >= MIN_ENTRIES);
                firstSnapshot.put(node.nodeId(), node.status(0).snapshotIndex());
            }

            // Five times the minimum count of small entries hold far fewer bytes than the snapshot: none.
            for (int i = 0; i < 5 * MIN_ENTRIES; i++) {
                commit(leader, Commands.simpleCommit("small", "t", 0, 100 + i));
            }
            cluster.awaitReplicasConverged(0);
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.status(0).snapshotIndex()).as("node %d", node.nodeId())
                        .isEqualTo(firstSnapshot.get(node.nodeId()));
            }

            // As many bytes as the state again: the next snapshot comes.
            for (int i = 0; i < MIN_ENTRIES; i++) {
                commit(leader, bigCommit("large", 100 + 4 * i, 4));
            }
            cluster.awaitReplicasConverged(0);
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> node.status(0).snapshotIndex() > firstSnapshot.get(node.nodeId()));
            }
        }
    }

    @Test
    void aStateOfManyRecordsIsLeftToRatissEntryCount() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, TUNING)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            // More groups and offsets than the bound asks snapshots of, in three entries.
            long records = LogReplayBound.SMALL_STATE_MAX_RECORDS + 1;
            for (int group = 0; group < 3; group++) {
                commit(leader, manyOffsets("many-" + group, (int) (records / 3 + 1)));
            }
            for (int i = 0; i < 3 * MIN_ENTRIES; i++) {
                commit(leader, Commands.simpleCommit("small", "t", 0, i));
            }
            cluster.awaitReplicasConverged(0);
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.shard(0).stateRecords()).isGreaterThan(LogReplayBound.SMALL_STATE_MAX_RECORDS);
                // Entries and bytes enough for the bound (the last snapshot is the empty one at 0): none.
                assertThat(node.status(0).snapshotIndex()).as("node %d", node.nodeId()).isZero();
            }
        }
    }

    /** One OffsetCommit of {@code partitions} partitions without metadata. */
    private static Command.OffsetCommit manyOffsets(String groupId, int partitions) {
        List<Command.PartitionCommit> commits = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            commits.add(new Command.PartitionCommit(p, 1, -1, null));
        }
        return new Command.OffsetCommit(groupId, -1, "", null, -1L, List.of(new Command.TopicCommit("many", commits)),
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }

    /** One OffsetCommit of {@code partitions} partitions from {@code first}, each with 4,000 bytes of metadata. */
    private static Command.OffsetCommit bigCommit(String groupId, int first, int partitions) {
        List<Command.PartitionCommit> commits = new ArrayList<>();
        for (int p = first; p < first + partitions; p++) {
            commits.add(new Command.PartitionCommit(p, p, -1, "m".repeat(4_000)));
        }
        return new Command.OffsetCommit(groupId, -1, "", null, -1L, List.of(new Command.TopicCommit("big", commits)),
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }

    private static void commit(CohortRaftNode leader, Command command) throws Exception {
        Result result = leader.submit(0, command).get(20, TimeUnit.SECONDS);
        assertThat(result).isNotNull();
    }
}
