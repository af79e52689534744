package io.cohort.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * The replicas this node holds, by partition, with what it runs for each: the state machine Ratis
 * applies to, the proposer and the leader timers. Fixed at start until a replica move
 * (add-node or remove-node with a replication factor below the node count) hosts a partition here
 * at runtime or releases one the cluster moved to other nodes: entries are set and cleared under
 * the node's lock and read without it (atomic array).
 *
 * <p>It also keeps, per partition, the newest configuration index seen listing this node. As for
 * partition 0's membership ({@link MembershipView}), only a configuration newer than that one
 * which leaves this node out is a decision of the cluster to move the replica away; an older one
 * is this replica's log going back, and a replica that never saw itself listed is still being
 * added (caught up from a snapshot whose configuration predates it). After a restart, "seen" also
 * covers the configuration entries in the replica's own Raft log ({@link ReplicaLifecycle}).
 */
final class HostedReplicas {
    /** What the node runs for one partition it holds a replica of. */
    record Replica(PartitionStateMachine stateMachine, Proposer proposer, LeaderTimers timers) {
    }

    private final AtomicReferenceArray<Replica> byPartition;
    /** Ratis's state machine registry reads this (a replica is registered before its group starts). */
    private final Map<RaftGroupId, PartitionStateMachine> stateMachineByGroup = new ConcurrentHashMap<>();
    private final long[] lastMemberConfIndex;
    /** Since when (ms) a partition's configuration has left this node out, after listing it; -1 if not. */
    private final long[] leftOutSinceMs;
    /** When (ms) a partition's replica was last opened again after Ratis closed it; -1 if never. */
    private final long[] reopenedAtMs;
    /** Whether the replica's Raft log was read for configurations listing this node ({@link #noteLogRead}). */
    private final boolean[] logRead;

    HostedReplicas(int partitions) {
        this.byPartition = new AtomicReferenceArray<>(partitions);
        this.lastMemberConfIndex = new long[partitions];
        this.leftOutSinceMs = new long[partitions];
        this.logRead = new boolean[partitions];
        this.reopenedAtMs = new long[partitions];
        java.util.Arrays.fill(reopenedAtMs, -1);
        java.util.Arrays.fill(lastMemberConfIndex, -1);
        java.util.Arrays.fill(leftOutSinceMs, -1);
    }

    int partitions() {
        return byPartition.length();
    }

    /** The replica of {@code partition}, or null where this node holds none. */
    Replica get(int partition) {
        return byPartition.get(partition);
    }

    /** Runs {@code action} on each replica held now, in partition order. */
    void forEach(Consumer<Replica> action) {
        for (int p = 0; p < byPartition.length(); p++) {
            Replica replica = byPartition.get(p);
            if (replica != null) {
                action.accept(replica);
            }
        }
    }

    boolean hosts(int partition) {
        return byPartition.get(partition) != null;
    }

    List<Integer> hosted() {
        List<Integer> hosted = new ArrayList<>();
        for (int p = 0; p < byPartition.length(); p++) {
            if (hosts(p)) {
                hosted.add(p);
            }
        }
        return hosted;
    }

    /** Every replica's state machine and proposer exist before Ratis starts the group. */
    void registerStateMachine(RaftGroupId groupId, PartitionStateMachine stateMachine) {
        stateMachineByGroup.put(groupId, stateMachine);
    }

    PartitionStateMachine stateMachineOf(RaftGroupId groupId) {
        return stateMachineByGroup.get(groupId);
    }

    void set(int partition, Replica replica) {
        synchronized (this) {
            lastMemberConfIndex[partition] = -1;
            leftOutSinceMs[partition] = -1;
            logRead[partition] = false;
            reopenedAtMs[partition] = -1;
        }
        byPartition.set(partition, replica);
    }

    /**
     * Puts {@code replica} in place of {@code partition}'s (a replica opened again from its own
     * storage), keeping what was learnt about its membership; returns the one it replaces.
     */
    Replica replace(int partition, RaftGroupId groupId, Replica replica) {
        stateMachineByGroup.put(groupId, replica.stateMachine());
        return byPartition.getAndSet(partition, replica);
    }

    /** Clears {@code partition}'s entry; returns what it held (null if nothing). */
    Replica clear(int partition, RaftGroupId groupId) {
        Replica replica = byPartition.getAndSet(partition, null);
        stateMachineByGroup.remove(groupId);
        return replica;
    }

    /**
     * Whether {@code partition}'s replica still has to be read for configurations listing this node:
     * once per replica, and only while none has been seen listing it (a node restarted since).
     */
    synchronized boolean logUnread(int partition) {
        return !logRead[partition] && lastMemberConfIndex[partition] < 0;
    }

    /**
     * Records that {@code partition}'s replica's Raft log was read: {@code memberConfIndex}, the
     * newest configuration entry in it listing this node (-1 if none), counts as seen.
     */
    synchronized void noteLogRead(int partition, long memberConfIndex) {
        logRead[partition] = true;
        lastMemberConfIndex[partition] = Math.max(lastMemberConfIndex[partition], memberConfIndex);
    }

    /** Whether this node's replica of {@code partition} was seen listed in its group's configuration. */
    synchronized boolean wasMember(int partition) {
        return lastMemberConfIndex[partition] >= 0;
    }

    /**
     * Whether the cluster moved {@code partition}'s running replica away from {@code nodeId}, judged
     * from the replica's configuration {@code conf} (null if unreadable) as read now: a newer
     * configuration than the last listing the node leaves it out and has for {@code holdMs} (two
     * election timeouts: Ratis does not always close a removed replica).
     */
    synchronized boolean movedAway(int partition, int nodeId, Membership conf, long nowMs, long holdMs) {
        if (conf == null || conf.voters().isEmpty()) {
            return false;
        }
        if (conf.contains(nodeId)) {
            noteListed(partition, conf);
            return false;
        }
        long lastMember = lastMemberConfIndex[partition];
        if (lastMember < 0 || !MembershipView.newerConfigurationLeavesOut(nodeId, lastMember, conf)) {
            leftOutSinceMs[partition] = -1;
            return false;
        }
        if (leftOutSinceMs[partition] < 0) {
            leftOutSinceMs[partition] = nowMs;
        }
        return nowMs - leftOutSinceMs[partition] > holdMs;
    }

    /**
     * What to do with {@code partition}'s replica, which Ratis closed alone, judged from its
     * configuration {@code conf} (null if unreadable) as {@link MembershipView#closedReplicaDecision}
     * judges partition 0's; empty for a replica never listed (one being added), which is not
     * released: the move that adds it runs again or is undone by the operator.
     */
    synchronized Optional<MembershipView.ClosedReplica> closedByRatis(int partition, int nodeId, Membership conf,
                                                                     long nowMs, long reopenWindowMs) {
        if (conf != null && conf.contains(nodeId)) {
            noteListed(partition, conf);
        }
        long lastMember = lastMemberConfIndex[partition];
        if (lastMember < 0) {
            return Optional.empty();
        }
        boolean closedSoonAfterReopen = reopenedAtMs[partition] >= 0 && nowMs - reopenedAtMs[partition] < reopenWindowMs;
        return Optional.of(MembershipView.closedReplicaDecision(nodeId, true, lastMember, conf, closedSoonAfterReopen));
    }

    /** {@code partition}'s replica was opened again at {@code nowMs} after Ratis closed it. */
    synchronized void noteReopened(int partition, long nowMs) {
        reopenedAtMs[partition] = nowMs;
    }

    private void noteListed(int partition, Membership conf) {
        lastMemberConfIndex[partition] = Math.max(lastMemberConfIndex[partition], conf.confIndex());
        leftOutSinceMs[partition] = -1;
    }
}
