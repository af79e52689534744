package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.GroupConfig;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower restarted with a log of its own reports its start-up replay done (the log line
 * operators read, "applied the log it held at start") only once it applied that log. Real Ratis
 * servers with on-disk logs, in-process.
 */
class StartupReplayRestartTest {
    private static final int GROUPS = 200;

    @TempDir
    Path tmp;

    @Test
    void aRestartedFollowerIsReplayedOnceItAppliedEveryEntryItsLogHeld() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GroupConfig.defaults())) {
            cluster.awaitAllLeadersReady();
            for (int g = 0; g < GROUPS; g++) {
                cluster.submitToLeader(0, Commands.simpleCommit("g" + g, "t", 0, 100 + g));
            }
            int follower = cluster.node(0).isLeader(0) ? 1 : 0;
            cluster.awaitReplicasConverged(0);
            // The disk as a SIGKILL leaves it: a stop takes a snapshot (Ratis's trigger-when-stop),
            // which would leave nothing to replay, so restart from a copy taken while the node runs.
            Path crashed = tmp.resolve("crashed");
            LargeEntryRestartTest.copyTree(cluster.dataDir(follower), crashed);
            cluster.stopNode(follower);
            LargeEntryRestartTest.deleteTree(cluster.dataDir(follower));
            LargeEntryRestartTest.copyTree(crashed, cluster.dataDir(follower));

            cluster.startNode(follower);
            CohortRaftNode restarted = cluster.node(follower);
            StartupReplay.Span span = restarted.startupReplay().spans().get(0);
            // Below the snapshot interval: the whole log is replayed from the initial snapshot.
            assertThat(span.lastIndex() - span.appliedIndex()).isGreaterThanOrEqualTo(GROUPS);

            restarted.startupReplay().applied().get(60, TimeUnit.SECONDS);
            assertThat(restarted.status(0).appliedIndex()).isGreaterThanOrEqualTo(span.lastIndex());
            // Read from the replica's own state, without a read barrier: it is there when the future completes.
            assertThat(restarted.shard(0).groupCount()).isEqualTo(GROUPS);
            assertThat(restarted.shard(0).offsetCount()).isEqualTo(GROUPS);
        }
    }
}
