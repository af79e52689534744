package io.cohort.raft;

import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.SnapshotInfo;

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

    /**
     * The status of a replica as its Ratis division reports it; on the leader with each follower's
     * progress. {@code latestSnapshot} is the state machine's (null: none).
     */
    static PartitionStatus read(int partition, String raftGroupId, int leaderNodeId, RaftServer.Division division,
                                SnapshotInfo latestSnapshot) {
        DivisionInfo info = division.getInfo();
        long commitIndex = division.getRaftLog().getLastCommittedIndex();
        List<Replica> followers = new ArrayList<>();
        if (info.isLeader()) {
            List<ServerRpcProto> rpcs = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
            // Null when this division stopped leading since isLeader() above (a step-down race).
            long[] matchIndices = info.getFollowerMatchIndices();
            long[] nextIndices = info.getFollowerNextIndices();
            int known = matchIndices == null || nextIndices == null ? 0 : Math.min(matchIndices.length, nextIndices.length);
            for (int i = 0; i < rpcs.size() && i < known; i++) {
                String peer = rpcs.get(i).getId().getId().toStringUtf8();
                followers.add(new Replica(Integer.parseInt(peer.substring(1)), matchIndices[i], nextIndices[i],
                        Math.max(0, commitIndex - matchIndices[i]), rpcs.get(i).getLastRpcElapsedTimeMs()));
            }
        }
        long snapshotIndex = latestSnapshot == null ? -1 : latestSnapshot.getIndex();
        return new PartitionStatus(partition, raftGroupId, leaderNodeId, info.getCurrentTerm(), info.isLeader(),
                info.isLeaderReady(), commitIndex, info.getLastAppliedIndex(), snapshotIndex,
                info.getCurrentRole() == RaftPeerRole.LEADER ? followers : List.of());
    }

    /** The status of a replica that cannot report one (not held here, or still initializing). */
    static PartitionStatus unknown(int partition, String raftGroupId, int leaderNodeId) {
        return new PartitionStatus(partition, raftGroupId, leaderNodeId, -1, false, false, -1, -1, -1, List.of());
    }
}
