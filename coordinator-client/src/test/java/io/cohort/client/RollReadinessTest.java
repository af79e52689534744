package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.PartitionStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a rolling restart may go on to the next node. */
class RollReadinessTest {
    private static final List<Integer> NODES = List.of(1, 2, 3);

    /** Node {@code self}'s view of one partition held by nodes 1..3 (preferred leader first). */
    private static PartitionStatus partition(int self, int leader, long commit, long applied, int... replicas) {
        PartitionStatus.Builder p = PartitionStatus.newBuilder().setPartitionIndex(0).setHosted(true)
                .setLeaderNodeId(leader).setTerm(3).setLeaderReady(leader == self).setCommitIndex(commit)
                .setAppliedIndex(applied);
        for (int r : replicas.length == 0 ? new int[] {1, 2, 3} : replicas) {
            p.addReplicaNodeIds(r);
        }
        return p.build();
    }

    private static ClusterStatusResponse status(int self, PartitionStatus... partitions) {
        return ClusterStatusResponse.newBuilder().setNodeId(self).setPartitionCount(partitions.length)
                .addAllPartitions(List.of(partitions)).build();
    }

    private static Map<Integer, ClusterStatusResponse> all(int leader, long commit, long applied) {
        return Map.of(1, status(1, partition(1, leader, commit, leader == 1 ? commit : applied)),
                2, status(2, partition(2, leader, commit, leader == 2 ? commit : applied)),
                3, status(3, partition(3, leader, commit, leader == 3 ? commit : applied)));
    }

    @Test
    void testReadyWhenEveryReplicaAppliedTheLeadersEarlierCommitAndThePreferredLeaderLeads() {
        // Commit moved on to 120 between the rounds: the followers are held to the earlier 100 only.
        Map<Integer, ClusterStatusResponse> earlier = all(1, 100, 90);
        Map<Integer, ClusterStatusResponse> later = all(1, 120, 100);

        assertThat(RollReadiness.waitingFor(NODES, earlier, later, true)).isEmpty();
    }

    @Test
    void testWaitsForAFollowerBehindTheLeadersCommit() {
        Map<Integer, ClusterStatusResponse> earlier = all(1, 100, 100);
        Map<Integer, ClusterStatusResponse> later = Map.of(1, earlier.get(1), 2, earlier.get(2),
                3, status(3, partition(3, 1, 99, 99)));

        assertThat(RollReadiness.waitingFor(NODES, earlier, later, true))
                .containsExactly("partition 0: node 3 applied index 99 < commit index 100 of leader node 1");
    }

    @Test
    void testWaitsForThePreferredLeaderUnlessBalanceIsNotAskedFor() {
        Map<Integer, ClusterStatusResponse> ledByTwo = all(2, 100, 100);

        assertThat(RollReadiness.waitingFor(NODES, ledByTwo, ledByTwo, true))
                .containsExactly("partition 0 is led by node 2, not by its preferred leader node 1");
        assertThat(RollReadiness.waitingFor(NODES, ledByTwo, ledByTwo, false)).isEmpty();
    }

    @Test
    void testALeaderThatKeepsItsPartitionsIsBalancedWhereItIs() {
        Map<Integer, ClusterStatusResponse> ledByTwo = new java.util.HashMap<>(all(2, 100, 100));
        // Node 2 runs with auto.leader.rebalance.enable=false: it will not hand partition 0 to node 1.
        ledByTwo.put(2, ledByTwo.get(2).toBuilder().setLeaderRebalanceDisabled(true).build());
        assertThat(RollReadiness.waitingFor(NODES, ledByTwo, ledByTwo, true)).isEmpty();
        // What the other nodes run does not matter: the leader is the one that would hand it over.
        Map<Integer, ClusterStatusResponse> othersKeep = new java.util.HashMap<>(all(2, 100, 100));
        othersKeep.put(1, othersKeep.get(1).toBuilder().setLeaderRebalanceDisabled(true).build());
        assertThat(RollReadiness.waitingFor(NODES, othersKeep, othersKeep, true))
                .containsExactly("partition 0 is led by node 2, not by its preferred leader node 1");
    }

    @Test
    void testWaitsForANodeThatDoesNotAnswerOrRefuses() {
        Map<Integer, ClusterStatusResponse> up = all(1, 100, 100);
        Map<Integer, ClusterStatusResponse> twoDown = Map.of(1, up.get(1), 3, up.get(3));
        ClusterStatusResponse refused = ClusterStatusResponse.newBuilder().setNodeId(3)
                .setErrorCode(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).setErrorMessage("no DESCRIBE").build();

        assertThat(RollReadiness.waitingFor(NODES, up, twoDown, true))
                .containsExactly("node 2 does not answer ClusterStatus");
        assertThat(RollReadiness.waitingFor(NODES, up, Map.of(1, up.get(1), 2, up.get(2), 3, refused), true))
                .containsExactly("node 3 refuses ClusterStatus: CLUSTER_AUTHORIZATION_FAILED no DESCRIBE");
    }

    @Test
    void testWaitsWhileNoNodeIsAReadyLeaderOrANodeSeesAnotherLeader() {
        Map<Integer, ClusterStatusResponse> election = Map.of(1, status(1, partition(1, -1, 100, 100)),
                2, status(2, partition(2, -1, 100, 100)), 3, status(3, partition(3, -1, 100, 100)));
        Map<Integer, ClusterStatusResponse> up = all(1, 100, 100);
        Map<Integer, ClusterStatusResponse> threeLost = Map.of(1, up.get(1), 2, up.get(2),
                3, status(3, partition(3, -1, 100, 100)));

        assertThat(RollReadiness.waitingFor(NODES, election, election, true))
                .containsExactly("partition 0 has no ready leader");
        assertThat(RollReadiness.waitingFor(NODES, up, threeLost, true))
                .containsExactly("partition 0: node 3 sees leader -1, not node 1");
    }

    @Test
    void testANodeNotHoldingAPartitionIsNotWaitedFor() {
        // Replication factor 2: node 3 holds no replica; its view of the partition is not hosted and stale.
        PartitionStatus notHosted = PartitionStatus.newBuilder().setPartitionIndex(0).setHosted(false)
                .setLeaderNodeId(-1).setTerm(-1).setCommitIndex(-1).setAppliedIndex(-1).addReplicaNodeIds(1)
                .addReplicaNodeIds(2).build();
        Map<Integer, ClusterStatusResponse> answers = Map.of(1, status(1, partition(1, 1, 50, 50, 1, 2)),
                2, status(2, partition(2, 1, 50, 50, 1, 2)), 3, status(3, notHosted));

        assertThat(RollReadiness.waitingFor(NODES, answers, answers, true)).isEmpty();
    }

    @Test
    void testANodeOfAReleaseBeforeReplicaPlacementHoldsEveryPartition() {
        // Such a node names no replicas and leaves hosted unset; the preferred leader is then unknown.
        PartitionStatus old = PartitionStatus.newBuilder().setPartitionIndex(0).setLeaderNodeId(2).setTerm(3)
                .setCommitIndex(100).setAppliedIndex(90).build();
        Map<Integer, ClusterStatusResponse> answers = Map.of(1, status(1, partition(1, 2, 100, 100)),
                2, status(2, partition(2, 2, 100, 100)), 3, status(3, old));

        assertThat(RollReadiness.waitingFor(NODES, answers, answers, true)).containsExactly(
                "partition 0: node 3 applied index 90 < commit index 100 of leader node 2",
                "partition 0 is led by node 2, not by its preferred leader node 1");
    }
}
