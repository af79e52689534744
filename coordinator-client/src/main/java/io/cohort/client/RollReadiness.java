package io.cohort.client;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.PartitionStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a cluster is ready for the next node of a rolling restart: every node answers, every
 * replica has applied everything its partition's leader had committed, and (unless not asked for)
 * every partition is led by its preferred leader, the first of its replicas, where Cohort's leader
 * balancer puts it once the nodes are caught up.
 *
 * <p>Pure: the caller asks every node ClusterStatus twice, all of the {@code earlier} answers
 * before any of the {@code later} ones. A leader's commit index is taken from the earlier round and
 * compared with the applied indexes of the later round, so under a steady commit load a follower
 * is never held to a commit index it could not have seen yet. Shared by {@code cohort cluster
 * wait-ready} (which {@code scripts/cluster.sh roll} runs after each node) and the cluster tests'
 * rolling restart, so both wait for the same thing.
 */
public final class RollReadiness {
    private RollReadiness() {
    }

    /**
     * What the cluster is still waiting for, one readable line each; empty when it is ready.
     *
     * @param nodeIds every node of the cluster
     * @param earlier ClusterStatus of the nodes that answered the first round, by node id
     * @param later ClusterStatus of the nodes that answered the second round, by node id
     * @param requireBalance also wait until every partition is led by its preferred leader (except a
     *                       partition whose leader runs with auto.leader.rebalance.enable=false)
     */
    public static List<String> waitingFor(Collection<Integer> nodeIds, Map<Integer, ClusterStatusResponse> earlier,
            Map<Integer, ClusterStatusResponse> later, boolean requireBalance) {
        List<String> waiting = new ArrayList<>();
        int partitionCount = 0;
        for (int id : nodeIds) {
            ClusterStatusResponse answer = later.get(id);
            if (answer == null || !earlier.containsKey(id)) {
                waiting.add("node " + id + " does not answer ClusterStatus");
                continue;
            }
            if (answer.getErrorCode() != ErrorCode.NONE || earlier.get(id).getErrorCode() != ErrorCode.NONE) {
                waiting.add("node " + id + " refuses ClusterStatus: " + answer.getErrorCode() + " "
                        + answer.getErrorMessage());
                continue;
            }
            partitionCount = Math.max(partitionCount, answer.getPartitionCount());
        }
        if (!waiting.isEmpty()) {
            return waiting;
        }
        for (int id : nodeIds) {
            int listed = later.get(id).getPartitionsCount();
            if (listed < partitionCount || earlier.get(id).getPartitionsCount() < partitionCount) {
                waiting.add("node " + id + " lists " + listed + " of " + partitionCount + " partitions");
            }
        }
        if (partitionCount == 0) {
            waiting.add("no node reports a partition");
        }
        if (!waiting.isEmpty()) {
            return waiting;
        }
        for (int p = 0; p < partitionCount; p++) {
            checkPartition(p, nodeIds, earlier, later, requireBalance, waiting);
        }
        return waiting;
    }

    private static void checkPartition(int p, Collection<Integer> nodeIds, Map<Integer, ClusterStatusResponse> earlier,
            Map<Integer, ClusterStatusResponse> later, boolean requireBalance, List<String> waiting) {
        // The leader: a node that reports itself leader and ready; the highest term if two do (an election).
        int leader = -1;
        PartitionStatus leaderStatus = null;
        for (int id : nodeIds) {
            Optional<PartitionStatus> s = partition(earlier.get(id), p);
            if (s.isPresent() && hosted(s.get()) && s.get().getLeaderReady() && s.get().getLeaderNodeId() == id
                    && (leaderStatus == null || s.get().getTerm() > leaderStatus.getTerm())) {
                leader = id;
                leaderStatus = s.get();
            }
        }
        if (leaderStatus == null) {
            waiting.add("partition " + p + " has no ready leader");
            return;
        }
        for (int id : nodeIds) {
            Optional<PartitionStatus> s = partition(later.get(id), p);
            if (s.isEmpty()) {
                waiting.add("partition " + p + ": node " + id + " does not list it");
            } else if (hosted(s.get())) {
                if (s.get().getLeaderNodeId() != leader) {
                    waiting.add("partition " + p + ": node " + id + " sees leader " + s.get().getLeaderNodeId()
                            + ", not node " + leader);
                } else if (s.get().getAppliedIndex() < leaderStatus.getCommitIndex()) {
                    waiting.add("partition " + p + ": node " + id + " applied index " + s.get().getAppliedIndex()
                            + " < commit index " + leaderStatus.getCommitIndex() + " of leader node " + leader);
                }
            }
        }
        // A leader running with auto.leader.rebalance.enable=false keeps the partition: it is where it stays.
        if (requireBalance && leaderStatus.getReplicaNodeIdsCount() > 0
                && !earlier.get(leader).getLeaderRebalanceDisabled()) {
            int preferred = leaderStatus.getReplicaNodeIds(0);
            if (preferred != leader) {
                waiting.add("partition " + p + " is led by node " + leader + ", not by its preferred leader node "
                        + preferred);
            }
        }
    }

    /**
     * Whether the answering node holds a replica. A node of a release before replica placement names
     * no replicas and leaves {@code hosted} unset: it held every partition.
     */
    private static boolean hosted(PartitionStatus s) {
        return s.getHosted() || s.getReplicaNodeIdsCount() == 0;
    }

    private static Optional<PartitionStatus> partition(ClusterStatusResponse answer, int p) {
        if (answer == null) {
            return Optional.empty();
        }
        return answer.getPartitionsList().stream().filter(s -> s.getPartitionIndex() == p).findFirst();
    }
}
