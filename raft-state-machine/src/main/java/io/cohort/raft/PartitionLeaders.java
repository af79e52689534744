package io.cohort.raft;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;

/**
 * Who this node believes leads each partition, for routing: the leader Ratis named for a partition
 * it holds a replica of ({@link RaftEventRouter}), or the one the replicas of a partition it does
 * not hold last named ({@link CohortRaftNode#learnRemoteLeader}). -1 is "none known". Written by
 * Ratis's event threads and the front end, read by every request thread: an atomic array, no lock.
 */
final class PartitionLeaders {
    private final CohortRaftNode node;
    private final AtomicIntegerArray leaders;

    PartitionLeaders(CohortRaftNode node, int partitions) {
        this.node = node;
        this.leaders = new AtomicIntegerArray(partitions);
        for (int p = 0; p < partitions; p++) {
            leaders.set(p, -1);
        }
    }

    /** The leader as last recorded, without the staleness check of {@link #leaderOf} (error messages, status). */
    int recorded(int partition) {
        return leaders.get(partition);
    }

    /** Records the leader Ratis named for {@code partition} (-1: none). */
    void note(int partition, int leader) {
        leaders.set(partition, leader);
    }

    /** Stops naming this node the leader of {@code partition} (it stepped down; the next is not known yet). */
    void forgetSelf(int partition) {
        leaders.compareAndSet(partition, node.nodeId(), -1);
    }

    /** Forgets {@code partition}'s leader (a replica created or released here). */
    void forget(int partition) {
        leaders.set(partition, -1);
    }

    /** Stops naming {@code nodeId} the leader of any partition (its process exited). */
    void forgetNode(int nodeId) {
        for (int p = 0; p < leaders.length(); p++) {
            leaders.compareAndSet(p, nodeId, -1);
        }
    }

    /** See {@link CohortRaftNode#learnRemoteLeader}: ignored for a hosted partition. */
    void learnRemote(int partition, int leader) {
        if (!node.hosts(partition)) {
            leaders.set(partition, leader);
        }
    }

    /** See {@link CohortRaftNode#leaderOf}. */
    int leaderOf(int partition) {
        if (node.removedFromCluster()) {
            return -1;
        }
        int leader = leaders.get(partition);
        if (leader == -1 || leader == node.nodeId() || !node.hosts(partition)) {
            return leader;
        }
        try {
            RoleInfoProto role = node.division(partition).getInfo().getRoleInfoProto();
            if (role.hasFollowerInfo() && role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs()
                    > node.tuning().electionTimeoutMaxMs()) {
                return -1;
            }
        } catch (IOException e) {
            return -1;
        }
        return leader;
    }
}
