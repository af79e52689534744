package io.cohort.raft;

import java.util.List;

/**
 * One node's view of one partition.
 *
 * @param leaderNodeId the leader as this node knows it, or -1
 * @param replicas     on the leader only: each follower's progress
 */
public record PartitionStatus(int partition, String raftGroupId, int leaderNodeId, long term, boolean isLeader,
                              boolean leaderReady, long commitIndex, long appliedIndex, long snapshotIndex,
                              List<Replica> replicas) {
    public PartitionStatus {
        replicas = List.copyOf(replicas);
    }

    /** A follower's progress as the leader sees it. */
    public record Replica(int nodeId, long matchIndex, long nextIndex, long lagEntries, long lastRpcElapsedMs) {
    }
}
