package io.cohort.cluster;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.PartitionStatus;
import io.grpc.StatusRuntimeException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a {@link ProcessCluster}'s running nodes report in ClusterStatus, read for the cluster's
 * waits: whether they agree on every partition's leader, each partition's preferred leader, whether
 * a node has caught up, and a description of them all for failure messages. Every answer is a fresh
 * round of calls; a node that does not answer makes the answer "not yet" (null or false).
 */
final class ClusterStatuses {
    private final ProcessCluster cluster;

    ClusterStatuses(ProcessCluster cluster) {
        this.cluster = cluster;
    }

    /** Whether node {@code nodeId} runs with auto.leader.rebalance.enable=false (false if it does not answer). */
    boolean keepsLeadership(int nodeId) {
        try {
            return cluster.status(nodeId).getLeaderRebalanceDisabled();
        } catch (StatusRuntimeException e) {
            return false;
        }
    }

    /**
     * The preferred leader of every partition (the first of its replicas, from a running node's
     * ClusterStatus), or null if no running node answers.
     */
    Map<Integer, Integer> preferredLeaders() {
        List<Integer> ids = List.copyOf(cluster.nodeIds());
        for (int id : cluster.runningNodeIds()) {
            try {
                Map<Integer, Integer> preferred = new TreeMap<>();
                for (PartitionStatus p : cluster.status(id).getPartitionsList()) {
                    preferred.put(p.getPartitionIndex(), p.getReplicaNodeIdsCount() > 0 ? p.getReplicaNodeIds(0)
                            : ids.get(p.getPartitionIndex() % ids.size()));
                }
                if (preferred.size() == cluster.partitions()) {
                    return preferred;
                }
            } catch (StatusRuntimeException e) {
                // ask the next node
            }
        }
        return null;
    }

    /**
     * Whether node {@code nodeId}'s replica of every partition it hosts knows a running leader and
     * has applied what that leader had committed. Each leader's commit index is read before the
     * node's applied index, so a commit index the node could not have seen yet never counts against it.
     */
    boolean isCaughtUp(int nodeId) {
        try {
            ClusterStatusResponse before = cluster.status(nodeId);
            Map<Integer, Long> leaderCommits = new TreeMap<>();
            int hosted = 0;
            for (PartitionStatus p : before.getPartitionsList()) {
                if (!p.getHosted()) {
                    continue; // the node holds no replica of it (replication factor below N)
                }
                hosted++;
                int leader = p.getLeaderNodeId();
                if (leader < 0 || !cluster.isRunning(leader)) {
                    return false;
                }
                leaderCommits.put(p.getPartitionIndex(),
                        partitionStatus(cluster.status(leader), p.getPartitionIndex()).getCommitIndex());
            }
            ClusterStatusResponse after = cluster.status(nodeId);
            return before.getPartitionsCount() == cluster.partitions() && leaderCommits.size() == hosted
                    && leaderCommits.entrySet().stream()
                    .allMatch(e -> partitionStatus(after, e.getKey()).getAppliedIndex() >= e.getValue());
        } catch (StatusRuntimeException | IllegalStateException e) {
            return false;
        }
    }

    /** The ClusterStatus of each of {@code nodeIds} that answers, by node id; the others are left out. */
    static Map<Integer, ClusterStatusResponse> answers(ProcessCluster cluster, List<Integer> nodeIds) {
        Map<Integer, ClusterStatusResponse> answers = new TreeMap<>();
        for (int id : nodeIds) {
            try {
                answers.put(id, cluster.status(id));
            } catch (StatusRuntimeException e) {
                // not answering (yet)
            }
        }
        return answers;
    }

    /** The leader of every partition if all running nodes agree and each leader is ready; else null. */
    Map<Integer, Integer> agreedLeaders() {
        List<Integer> running = cluster.runningNodeIds();
        Map<Integer, ClusterStatusResponse> statuses = answers(cluster, running);
        if (statuses.size() < running.size()) {
            return null;
        }
        // A node that lists fewer partitions does not know them yet, or (authorizer on) has not yet
        // applied the ACL that lets this caller describe the cluster: not settled, ask again.
        if (statuses.isEmpty() || statuses.values().stream().anyMatch(s -> s.getPartitionsCount() < cluster.partitions())) {
            return null;
        }
        Map<Integer, Integer> leaders = new TreeMap<>();
        for (int p = 0; p < cluster.partitions(); p++) {
            Set<Integer> seen = new HashSet<>();
            for (ClusterStatusResponse status : statuses.values()) {
                seen.add(partitionStatus(status, p).getLeaderNodeId());
            }
            int leader = seen.iterator().next();
            if (seen.size() != 1 || !statuses.containsKey(leader)
                    || !partitionStatus(statuses.get(leader), p).getLeaderReady()) {
                return null;
            }
            leaders.put(p, leader);
        }
        return leaders;
    }

    private PartitionStatus partitionStatus(ClusterStatusResponse status, int partition) {
        return status.getPartitionsList().stream()
                .filter(s -> s.getPartitionIndex() == partition)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("node " + status.getNodeId() + " reports no partition "
                        + partition + " (partition_count " + status.getPartitionCount() + ")"));
    }

    /** One line per running node and partition: leader, term, commit/applied index. For failure messages. */
    String describe() {
        StringBuilder text = new StringBuilder();
        for (int id : cluster.nodeIds()) {
            if (!cluster.isRunning(id)) {
                text.append("\n  node ").append(id).append(": not running").append(cluster.exitDescription(id));
                continue;
            }
            try {
                for (PartitionStatus p : cluster.status(id).getPartitionsList()) {
                    text.append(String.format("%n  node %d p%d: leader=%d term=%d ready=%s commit=%d applied=%d%s",
                            id, p.getPartitionIndex(), p.getLeaderNodeId(), p.getTerm(), p.getLeaderReady(),
                            p.getCommitIndex(), p.getAppliedIndex(), p.getHosted() ? "" : " (not hosted)"));
                }
            } catch (StatusRuntimeException e) {
                text.append("\n  node ").append(id).append(": ClusterStatus failed: ").append(e.getStatus());
            }
        }
        return text.toString();
    }
}
