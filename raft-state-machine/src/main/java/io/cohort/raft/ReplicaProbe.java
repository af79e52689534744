package io.cohort.raft;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * What Ratis reports of this node's replica of a partition (its division): role, applied index, log
 * bounds, whether it is open. Each answer is read at the moment of the call; a replica this node does
 * not hold, or one Ratis is still initializing or has closed, answers false or -1 instead of throwing.
 */
final class ReplicaProbe {
    private final RaftServer server;
    /** The current spec: the Raft group id of each partition. */
    private final Supplier<ClusterSpec> spec;

    ReplicaProbe(RaftServer server, Supplier<ClusterSpec> spec) {
        this.server = server;
        this.spec = spec;
    }

    /** This node's Ratis division of {@code partition}; IOException if it holds none. */
    RaftServer.Division division(int partition) throws IOException {
        return server.getDivision(spec.get().raftGroupId(partition));
    }

    /** Whether this node leads {@code partition} and has applied its term's first entry. */
    boolean isLeaderReady(int partition) {
        try {
            DivisionInfo info = division(partition).getInfo();
            return info.isLeader() && info.isLeaderReady();
        } catch (IOException e) {
            return false;
        }
    }

    boolean isLeader(int partition) {
        try {
            return division(partition).getInfo().isLeader();
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the replica runs (Ratis closes one whose storage failed, or that left its group). */
    boolean isOpen(int partition) {
        try {
            return division(partition).getInfo().isAlive();
        } catch (IOException e) {
            return false;
        }
    }

    /** The last index the replica applied, or -1 if it cannot tell. */
    long appliedIndex(int partition) {
        try {
            return division(partition).getInfo().getLastAppliedIndex();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The replica's commit index (what it knows committed), or -1 if it cannot tell. */
    long committedIndex(int partition) {
        try {
            return division(partition).getRaftLog().getLastCommittedIndex();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The index of the last entry in the replica's log, or -1 if it cannot tell. */
    long lastLogIndex(int partition) {
        try {
            return division(partition).getRaftLog().getNextIndex() - 1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The first index still in the replica's log (entries before it were purged), or -1. */
    long logStartIndex(int partition) {
        try {
            return division(partition).getRaftLog().getStartIndex();
        } catch (IOException e) {
            return -1;
        }
    }
}
