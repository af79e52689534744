package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.shard.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When a partition leader's process exits, its successor (for partition 0, the next voter by node id) stands for
 * election at once through Ratis's StartLeaderElection, and no other survivor does, so the vote is
 * not split. Real Ratis servers in one JVM, with election timeouts long enough (4-8 s) that no
 * survivor's timer stands before the test has looked: what the test sees is the fast path's doing.
 */
class LeaderExitElectionTest {
    private static final RaftTuning SLOW_TIMERS = RaftTestCluster.TEST_TUNING.toBuilder()
            .electionTimeouts(4_000, 8_000).build();

    @TempDir
    Path root;
    private RaftTestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest(name = "voters {0}, leader {1} of partition {2} exits: {3} stands")
    @CsvSource({
            "'1,2,3', 2, 0, 3",
            "'1,2,3', 3, 0, 1",   // wraps around
            "'1,2,3', 1, 0, 2",
            "'3,1,2', 1, 0, 2",   // the order of the configuration does not matter
            "'1,3,5', 3, 0, 5",
            "'1,3,5', 5, 0, 1",
            "'0,1,2,3,4', 4, 0, 0",
            "'1,2,3,4,5', 2, 0, 3",
            "'1,2', 1, 0, 2",
            "'2', 2, 0, -1",      // the only voter: nobody to stand
            "'1,2,3', 7, 0, 1",   // not a voter (a removed node): survivors from the lowest
            // A dead node's partitions spread over the survivors, in turn from the one after it:
            "'1,2,3', 2, 1, 1",
            "'1,2,3', 2, 2, 3",
            "'1,2,3,4,5', 2, 1, 4",
            "'1,2,3,4,5', 2, 3, 1",
            "'1,2,3,4,5', 2, 6, 5",
    })
    void theSuccessorIsTheNextSurvivorByNodeIdInTurnByPartition(String voters, int exited, int partition,
                                                               int successor) {
        List<Integer> ids = java.util.Arrays.stream(voters.split(",")).map(String::trim).map(Integer::parseInt).toList();
        assertThat(LeaderExitElection.successor(ids, exited, partition)).isEqualTo(successor);
    }

    @Test
    void theSuccessorStandsAtOnceWhenTheLeadersProcessExits() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 1, GroupConfig.defaults(), SLOW_TIMERS);
        commit(0);
        CohortRaftNode leader = cluster.leaderOf(0);
        int exited = leader.nodeId();
        int successorId = LeaderExitElection.successor(cluster.node(0).groupVoters(0), exited, 0);
        CohortRaftNode successor = cluster.node(successorId);
        CohortRaftNode other = cluster.runningNodes().stream()
                .filter(n -> n.nodeId() != exited && n.nodeId() != successorId).findFirst().orElseThrow();
        // A node that is alive and leads nothing: nothing to do.
        assertThat(successor.peerProcessExited(other.nodeId())).isEmpty();

        cluster.stopNode(exited);

        // The survivor that does not succeed it waits for its timer, and no longer names the dead node;
        // the successor stands now.
        assertThat(other.leaderOf(0)).isEqualTo(exited);
        assertThat(other.peerProcessExited(exited)).isEmpty();
        assertThat(other.leaderExitElections()).isZero();
        assertThat(other.leaderOf(0)).isIn(-1, successorId);
        assertThat(successor.peerProcessExited(exited)).containsExactly(0);
        assertThat(successor.leaderExitElections()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> successor.isLeaderReady(0));
        assertThat(other.leaderOf(0)).isIn(successorId, -1);
        // Told again (a second watch line, a late report): it leads now, so nothing happens.
        assertThat(successor.peerProcessExited(exited)).isEmpty();
        assertThat(successor.leaderExitElections()).isEqualTo(1);
        commit(1);
    }

    @Test
    void offByConfigurationNothingStands() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 1, GroupConfig.defaults(),
                SLOW_TIMERS.toBuilder().electionOnLeaderExit(false).build());
        CohortRaftNode leader = cluster.leaderOf(0);
        int exited = leader.nodeId();
        CohortRaftNode successor = cluster.node(LeaderExitElection.successor(cluster.node(0).groupVoters(0), exited, 0));
        cluster.stopNode(exited);

        assertThat(successor.peerProcessExited(exited)).isEmpty();
        assertThat(successor.leaderExitElections()).isZero();
    }

    private void commit(long offset) throws Exception {
        Result result = cluster.leaderOf(0).submit(0, Commands.simpleCommit("g", "t", 0, offset)).get(20, TimeUnit.SECONDS);
        assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0).error())
                .isEqualTo(ErrorCode.NONE);
    }
}
