package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.core.GroupConfig;
import io.cohort.core.GroupSettings;
import io.cohort.core.command.Command;
import io.cohort.core.response.GroupConfigResponse;
import io.cohort.core.shard.Result;
import io.cohort.raft.log.SnapshotCodec;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SetGroupConfig through real Ratis servers: every replica applies it at the same log position, the
 * settings are carried in snapshots (format 3 on disk), a follower behind the purged log gets them
 * by snapshot install, and a restart of every node keeps them while cluster.properties keeps the
 * initial values.
 */
class GroupConfigReplicationTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults().withInitialRebalanceDelayMs(100);
    private static final GroupSettings CHANGED = new GroupSettings(1, 7_000, 120_000, 500, 5, 3_600_000L);

    @TempDir
    Path tmp;

    @Test
    void settingsReachAFollowerBySnapshotInstallAndSurviveARestartOfEveryNode() throws Exception {
        RaftTuning snapshotOften = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(20).batching(1, 1)
                .segmentSizeMaxBytes(4 << 10).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, snapshotOften)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            int followerId = (leader.nodeId() + 1) % 3;
            cluster.stopNode(followerId);

            Result applied = leader.submit(0, new Command.SetGroupConfig(CHANGED)).get(20, TimeUnit.SECONDS);
            assertThat(((GroupConfigResponse) applied.immediateResponse()).changed()).isTrue();
            for (int i = 0; i < 200; i++) {
                leader.submit(0, Commands.simpleCommit("settings", "t" + (i % 7), i % 3, i)).get(20, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.logStartIndex(0) > 100);
            SingleFileSnapshotInfo snapshot = (SingleFileSnapshotInfo) leader.stateMachine(0).getLatestSnapshot();
            try (InputStream in = Files.newInputStream(snapshot.getFile().getPath())) {
                assertThat(in.readNBytes(3)).as("header frame: length, tag, format_version")
                        .containsExactly(7, 0x08, SnapshotCodec.FORMAT_VERSION_GROUP_SETTINGS);
            }

            cluster.startNode(followerId);
            cluster.awaitReplicasConverged(0);
            CohortRaftNode follower = cluster.node(followerId);
            assertThat(follower.stateMachine(0).getLatestSnapshot()).isNotNull();
            assertThat(follower.shard(0).settings()).isEqualTo(CHANGED);
            assertThat(follower.shard(0).config().maxGroupSize()).isEqualTo(5);
            assertThat(SnapshotCodec.digest(follower.shard(0).snapshot()))
                    .isEqualTo(SnapshotCodec.digest(leader.shard(0).snapshot()));

            for (int i = 0; i < 3; i++) {
                cluster.stopNode(i);
            }
            for (int i = 0; i < 3; i++) {
                cluster.startNode(i);
            }
            cluster.awaitAllLeadersReady();
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.shard(0).settings()).as("node %d", node.nodeId()).isEqualTo(CHANGED);
                assertThat(node.spec().groupConfig()).as("cluster.properties keeps the initial values")
                        .isEqualTo(GROUPS);
            }
        }
    }
}
