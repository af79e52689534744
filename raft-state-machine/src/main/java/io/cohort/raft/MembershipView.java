package io.cohort.raft;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.ratis.server.RaftConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's view of the cluster's members, which partition 0's Raft configuration lists
 * ({@link Membership}): the spec the node routes with (placement over the current members), the
 * cache of it in the data dir ({@link MembershipCache}), and whether the cluster removed this node.
 * Read again from partition 0's configuration by {@link #refresh}; until then, the cached list of an
 * earlier run (members added since the cluster was created) or the initial peers.
 */
final class MembershipView {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipView.class);

    private final int nodeId;
    /** The spec this node started with: its members are the initial ones, or the last cached. */
    private final ClusterSpec initialSpec;
    private final Path dataDir;
    private final long electionTimeoutMaxMs;
    /** The spec over the current members: follows partition 0's configuration. */
    private volatile ClusterSpec spec;
    private volatile Membership membership;
    /** Whether this node was seen in the membership: only a former member can be removed. */
    private volatile boolean wasMember;
    /** Set once partition 0's configuration no longer lists this node: it serves nothing since. */
    private volatile boolean removed;
    /** Since when (ms) partition 0's configuration has not listed this former member, or -1. */
    private long notMemberSinceMs = -1;
    /**
     * The log index of the newest configuration of partition 0 seen listing this node (-1: the
     * initial one). Only a newer configuration without it is a removal: one at or below this index
     * is this replica's configuration going back (a truncated log), not a decision of the cluster.
     */
    private volatile long lastMemberConfIndex = -1;
    /** When (ms) this node last opened its replica of partition 0 again after Ratis closed it, or -1. */
    private long reopenedAtMs = -1;

    /**
     * The view at start: the members cached in {@code dataDir} by an earlier run, else the peers of
     * {@code spec}; {@code joining}, a node being added, is no member yet.
     */
    MembershipView(int nodeId, ClusterSpec spec, Path dataDir, RaftTuning tuning, boolean joining) {
        this.nodeId = nodeId;
        this.initialSpec = spec;
        this.dataDir = dataDir;
        this.electionTimeoutMaxMs = tuning.electionTimeoutMaxMs();
        MembershipCache.Cached cached = MembershipCache.read(dataDir).orElse(null);
        if (cached != null && !cached.membership().voters().isEmpty()) {
            // Members added since the cluster was created: known before partition 0's configuration loads.
            List<NodeAddress> members = new ArrayList<>(cached.membership().all());
            if (members.stream().noneMatch(m -> m.nodeId() == nodeId)) {
                members.add(spec.peer(nodeId));
            }
            this.membership = cached.membership();
            this.removed = cached.removed();
            this.wasMember = cached.membership().contains(nodeId);
            this.lastMemberConfIndex = wasMember ? cached.membership().confIndex() : -1;
            this.spec = spec.withMembers(members);
        } else {
            this.membership = Membership.initial(spec.peers());
            this.wasMember = !joining;
            this.spec = spec;
        }
    }

    ClusterSpec spec() {
        return spec;
    }

    ClusterSpec initialSpec() {
        return initialSpec;
    }

    Membership membership() {
        return membership;
    }

    boolean removed() {
        return removed;
    }

    /** {@code conf} as members, with the addresses this view knows for peers it names. */
    Membership membershipOf(RaftConfiguration conf) {
        Membership current = membership;
        return Membership.of(conf, id -> current.member(id)
                .or(() -> initialSpec.hasPeer(id) ? Optional.of(initialSpec.peer(id)) : Optional.empty()));
    }

    /**
     * Takes partition 0's configuration {@code conf} as read from this node's replica (alive or
     * not): if it changed, updates the spec, tells {@code membersChanged} (the Raft port guard) and
     * writes the cache; and marks the node removed when the cluster left it out. An empty
     * configuration (a joining node not added yet) changes nothing.
     */
    synchronized void refresh(RaftConfiguration conf, boolean replicaAlive, Consumer<List<NodeAddress>> membersChanged) {
        Membership read = membershipOf(conf);
        if (read.voters().isEmpty()) {
            return;
        }
        boolean member = read.contains(nodeId);
        if (member) {
            wasMember = true;
            lastMemberConfIndex = Math.max(lastMemberConfIndex, read.confIndex());
        }
        if (!read.equals(membership)) {
            membership = read;
            List<NodeAddress> members = new ArrayList<>(read.all());
            if (!member) {
                members.add(initialSpec.peer(nodeId));
            }
            spec = initialSpec.withMembers(members);
            membersChanged.accept(members);
            MembershipCache.write(dataDir, read, removed);
            LOG.info("node {}: membership of cluster {} at configuration index {}: {}", nodeId,
                    spec.clusterId(), read.confIndex(), read.describe());
        }
        // A configuration without this node (after it was a member) means removed once it has
        // stayed so for two election timeouts: Ratis does not always close a removed replica (one
        // that saw the joint configuration waits as a follower), and a replica being caught up
        // may replay an older configuration without itself only briefly, before its own.
        long nowMs = System.currentTimeMillis();
        if (member || !wasMember) {
            notMemberSinceMs = -1;
        } else if (notMemberSinceMs < 0) {
            notMemberSinceMs = nowMs;
        }
        if (wasMember && newerConfigurationLeavesOut(nodeId, lastMemberConfIndex, read)
                && (!replicaAlive || nowMs - notMemberSinceMs > 2L * electionTimeoutMaxMs)) {
            markRemoved("partition 0's configuration (index " + read.confIndex() + ") no longer lists it");
        }
    }

    /** What a node does when Ratis closed its replica of partition 0 alone ({@link #closedReplicaDecision}). */
    enum ClosedReplica {
        /** The cluster removed this node: it serves nothing any more. */
        REMOVED,
        /** Not a removal: open the replica again from its storage. */
        REOPEN,
        /** Closed again right after it was opened again, not as a removal: the node stops. */
        FAILED
    }

    /**
     * Ratis closed this node's replica of partition 0 (alone, not the whole server), whose
     * configuration is now {@code replicaConf} (null if unreadable), at {@code nowMs}: marks the
     * node removed if that is what it means, and says what to do ({@link #closedReplicaDecision}).
     */
    synchronized ClosedReplica onReplicaOfPartitionZeroClosed(Membership replicaConf, long nowMs) {
        boolean closedSoonAfterReopen = reopenedAtMs >= 0 && nowMs - reopenedAtMs < reopenWindowMs();
        ClosedReplica decision = closedReplicaDecision(nodeId, wasMember, lastMemberConfIndex, replicaConf,
                closedSoonAfterReopen);
        String conf = replicaConf == null ? "unreadable"
                : "index " + replicaConf.confIndex() + ", " + replicaConf.describe();
        switch (decision) {
            case REMOVED -> markRemoved("Ratis closed its replica of partition 0: not in the configuration"
                    + (closedSoonAfterReopen ? " (closed again right after it was opened again)" : ""));
            case REOPEN -> LOG.warn("node {}: Ratis closed its replica of partition 0 although the cluster did not "
                    + "remove this node (the newest configuration listing it is at index {}; the replica's own is "
                    + "now {}); opening it again", nodeId, lastMemberConfIndex, conf);
            case FAILED -> LOG.error("node {}: Ratis closed its replica of partition 0 again within {} ms of opening "
                    + "it again, although the cluster never removed this node (the replica's configuration is now "
                    + "{}): the replica failed; the node stops and must be restarted", nodeId, reopenWindowMs(), conf);
        }
        return decision;
    }

    /** This node opened its replica of partition 0 again at {@code nowMs} after Ratis had closed it. */
    synchronized void onReplicaOfPartitionZeroReopened(long nowMs) {
        reopenedAtMs = nowMs;
    }

    /**
     * How soon after a reopen a second close is not taken for another transient one: ten election
     * timeouts. A removed replica closes again within about one (its first election is answered
     * "you were removed"); a member's replica, caught up by its leader, does not close at all.
     */
    private long reopenWindowMs() {
        return reopenWindowMs(electionTimeoutMaxMs);
    }

    static long reopenWindowMs(long electionTimeoutMaxMs) {
        return 10L * electionTimeoutMaxMs;
    }

    /**
     * What Ratis closing this node's replica of partition 0 (alone, not the whole server) means.
     * Removed: for a node never seen as a member (a joining node whose add was undone); and when a
     * configuration newer than the last one listing the node leaves it out. Not a removal, so the
     * replica is opened again from its storage: when the configuration that leaves the node out is
     * at or below that index, or empty (the replica's log went back: seen once in RollingRestartIT,
     * where a leader's log appender failed an internal assertion and restarted from an old index,
     * and Ratis shut the replica down for not finding itself in what remained); and when the
     * replica's configuration still lists the node. That last one is ambiguous: a node removed
     * while it was down hears "you were removed" from the leader in answer to its vote request,
     * from a configuration it never received, but a member's replica was also seen closed with a
     * configuration listing it (RollingRestartIT again, after the same appender failure; taking it
     * for a removal left a voter that served nothing). Opened again, a removed replica is closed
     * again within an election timeout and {@code closedSoonAfterReopen} makes that a removal,
     * while a member's is caught up by its leader. A replica that does not list the node and is
     * closed again soon after a reopen failed: the node stops.
     */
    static ClosedReplica closedReplicaDecision(int nodeId, boolean wasMember, long lastMemberConfIndex,
                                               Membership replicaConf, boolean closedSoonAfterReopen) {
        if (!wasMember) {
            return ClosedReplica.REMOVED;
        }
        boolean known = replicaConf != null && !replicaConf.voters().isEmpty();
        if (known && newerConfigurationLeavesOut(nodeId, lastMemberConfIndex, replicaConf)) {
            return ClosedReplica.REMOVED;
        }
        if (known && replicaConf.contains(nodeId)) {
            return closedSoonAfterReopen ? ClosedReplica.REMOVED : ClosedReplica.REOPEN;
        }
        return closedSoonAfterReopen ? ClosedReplica.FAILED : ClosedReplica.REOPEN;
    }

    /**
     * Whether {@code conf} is a decision of the cluster to remove this node: it does not list the
     * node and is newer than {@code lastMemberConfIndex}, the newest configuration seen listing it.
     * One at or below that index without the node is this replica's log going back, not a removal.
     */
    static boolean newerConfigurationLeavesOut(int nodeId, long lastMemberConfIndex, Membership conf) {
        return !conf.contains(nodeId) && conf.confIndex() > lastMemberConfIndex;
    }

    private void markRemoved(String why) {
        if (removed) {
            return;
        }
        removed = true;
        MembershipCache.write(dataDir, membership, true);
        LOG.warn("node {} was removed from cluster {} ({}): it serves no client call any more; stop it and "
                + "delete its data dir {}", nodeId, spec.clusterId(), why, dataDir);
    }
}
