package io.cohort.raft;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.LogEntryHeader;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas a node creates and releases while it runs, for replica moves (add-node and
 * remove-node with a replication factor below the node count; docs/ARCHITECTURE.md, "Replica
 * moves"): an empty replica created to be added to its group, and the release (stop serving,
 * delete the data) of one the cluster moved away, decided from the replica's own configuration or,
 * for one removed while its node was down, from its leader's report. Also, at start, the deletion
 * of replicas that never received anything.
 */
final class ReplicaLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaLifecycle.class);

    private final CohortRaftNode node;
    private final int nodeId;
    private final HostedReplicas replicas;
    /** Partitions whose replica Ratis shut down alone (not in the configuration any more). */
    private final Set<Integer> shutDownByRatis = ConcurrentHashMap.newKeySet();

    ReplicaLifecycle(CohortRaftNode node, HostedReplicas replicas) {
        this.node = node;
        this.nodeId = node.nodeId();
        this.replicas = replicas;
    }

    /**
     * At start, after the Raft server started: creates the replicas the placement gives this node
     * that Ratis does not hold yet. {@code joining}: the node is being added to a running cluster.
     */
    void createMissing(boolean joining) throws IOException {
        ClusterSpec spec = node.spec();
        Set<RaftGroupId> existing = new HashSet<>();
        node.raftServer().getGroupIds().forEach(existing::add);
        boolean ranBefore = existing.contains(spec.raftGroupId(0));
        for (int p = 0; p < spec.partitions(); p++) {
            if (!node.hosts(p) || existing.contains(spec.raftGroupId(p))) {
                continue;
            }
            // A replica missing at a start of a node that ran before (its replica of partition 0,
            // the membership, is on disk) knows no configuration: a move to this node was creating
            // it (deleted at start if it never received anything), and its group's leader adds it
            // when the move runs again; so does a joining node's. Until this change it was created
            // with the placement's peers whenever the peers at start equalled the cached members:
            // it started as a follower of a group that did not list it, called an election as soon
            // as its leader installed a snapshot, was told it is not in the configuration and shut
            // (seen in ReplicaMoveIT: a move resumed after a SIGKILL never finished). Only the first
            // start of a node whose replicas were not written before Ratis ran (the layout before
            // NewReplicas) creates them with the placement's peers.
            boolean waitToBeAdded = joining || ranBefore;
            RaftGroup group = waitToBeAdded ? RaftGroup.valueOf(spec.raftGroupId(p), List.of()) : node.raftGroup(p);
            if (waitToBeAdded) {
                LOG.info("node {}: replica of partition {} created empty, waiting to be added", nodeId, p);
                replicas.noteLogRead(p, -1); // no history of its own: only what its leader sends
            }
            RaftClientReply reply = node.raftCalls().addGroup(group, true);
            if (!reply.isSuccess()) {
                throw new IOException("could not create the replica of partition " + p + ": " + reply.getException());
            }
        }
    }

    /** Ratis shut {@code partition}'s replica down alone: a removal if its configuration says so. */
    void onShutDownByRatis(int partition) {
        shutDownByRatis.add(partition);
    }

    /**
     * Opens {@code partition}'s replica again from its own storage (snapshot, then log, as at a
     * start) after Ratis closed it alone although the cluster did not remove it: Ratis closes a
     * replica whose election found it outside its own configuration, which a replica whose log
     * went back can see for a moment (docs/OPERATIONS.md, "A replica closed by Ratis"). A new
     * state machine and proposer take the old ones' place; commands queued on the old proposer fail
     * NOT_LEADER (a closed replica leads nothing). Runs on the node's timer thread, which also runs
     * the storage watch: the watch never sees the replica closed in the middle of it. Returns whether
     * the replica runs again; if not, it stays closed and the storage watch stops the node.
     */
    synchronized boolean reopen(int partition) {
        RaftGroupId groupId = node.spec().raftGroupId(partition);
        if (!node.hosts(partition) || node.isReplicaOpen(partition)) {
            return node.hosts(partition);
        }
        try {
            RaftClientReply removed = node.raftCalls().removeGroup(groupId, false);
            if (!removed.isSuccess()) {
                LOG.warn("node {}: could not take the closed replica of partition {} out of Ratis to open it again: {}",
                        nodeId, partition, String.valueOf(removed.getException()));
                return false;
            }
            PartitionStateMachine stateMachine = node.newStateMachine(partition);
            HostedReplicas.Replica old = replicas.replace(partition, groupId, node.newReplica(partition, stateMachine));
            node.leaders().forget(partition);
            if (old != null) {
                retire(old, "node " + nodeId + "'s replica of partition " + partition
                        + " was closed and is opening again");
            }
            RaftClientReply added = node.raftCalls().addGroup(RaftGroup.valueOf(groupId, List.of()), false);
            if (!added.isSuccess()) {
                LOG.error("node {}: could not open its replica of partition {} again: {}", nodeId, partition,
                        String.valueOf(added.getException()));
                return false;
            }
            shutDownByRatis.remove(partition);
            node.onReplicaReopened(partition);
            LOG.warn("node {}: opened its replica of partition {} again from its storage after Ratis closed it; it "
                    + "catches up from its leader", nodeId, partition);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.error("node {}: could not open its replica of partition {} again", nodeId, partition, e);
            return false;
        }
    }

    /**
     * Creates an empty replica of {@code partition} here, to be added to its group by the group's
     * leader (a replica move): like a joining node's, it has no configuration and waits; Ratis
     * stages it (snapshot, then the log) until it is caught up. Returns false if this node already
     * holds one that runs.
     */
    synchronized boolean host(int partition) throws IOException {
        if (partition < 0 || partition >= node.spec().partitions()) {
            throw new IllegalArgumentException("partition " + partition + " does not exist");
        }
        if (node.hosts(partition)) {
            if (node.isReplicaOpen(partition) || !shutDownByRatis.contains(partition)) {
                return false;
            }
            // Asked for a replica again (a move re-run) while the one here was shut down by Ratis:
            // its group's leader answered its vote request that it is not in the configuration (a
            // replica whose add did not finish, its node killed meanwhile), so it would refuse
            // everything. Its data belongs to no configuration listing it: created again, empty.
            LOG.info("node {}: its replica of partition {} was shut down by Ratis (not in its group's configuration);"
                    + " creating it again, empty, to be added", nodeId, partition);
            release(partition, List.of());
        }
        shutDownByRatis.remove(partition);
        if (node.removedFromCluster()) {
            throw new IOException("node " + nodeId + " was removed from the cluster");
        }
        RaftGroupId groupId = node.spec().raftGroupId(partition);
        PartitionStateMachine stateMachine = node.newStateMachine(partition);
        replicas.registerStateMachine(groupId, stateMachine);
        HostedReplicas.Replica replica = node.newReplica(partition, stateMachine);
        node.leaders().forget(partition);
        replicas.set(partition, replica);
        // No history of its own to read after a restart (newestConfListingThisNode): what its log
        // will hold is its leader's, whose old configurations may list this node from an earlier stay.
        replicas.noteLogRead(partition, -1);
        RaftClientReply reply = node.raftCalls().addGroup(RaftGroup.valueOf(groupId, List.of()), true);
        if (!reply.isSuccess()) {
            replicas.clear(partition, groupId);
            replica.proposer().close();
            throw new IOException("could not create the replica of partition " + partition + ": "
                    + reply.getException());
        }
        DataDirPermissions.makePrivate(node.dataDir());
        LOG.info("node {}: replica of partition {} created empty for a replica move, waiting to be added", nodeId,
                partition);
        return true;
    }

    /**
     * Releases the replicas of partitions the cluster moved to other nodes (their group's
     * configuration, newer than the last listing this node, leaves it out; see {@link HostedReplicas}):
     * stops serving them and deletes their data. Never partition 0 (the membership: leaving it is
     * leaving the cluster).
     */
    void releaseMoved() {
        if (node.storageFailure().isPresent()) {
            return; // a failed node keeps its data for the operator
        }
        long nowMs = System.currentTimeMillis();
        for (int p = 1; p < replicas.partitions(); p++) {
            if (!node.hosts(p)) {
                continue;
            }
            if (!node.isReplicaOpen(p) && holdsNothing(p)) {
                createAgain(p);
                continue;
            }
            try {
                RaftServer.Division division = node.division(p);
                if (!node.spec().hosts(nodeId, p) && replicas.logUnread(p)) {
                    replicas.noteLogRead(p, newestConfListingThisNode(p, division.getRaftLog()));
                }
                boolean alive = division.getInfo().isAlive();
                if (!alive && !shutDownByRatis.contains(p)) {
                    continue; // closed for another reason (a failed log): the storage watch's case
                }
                Membership conf = node.membershipOf(division.getRaftConf());
                if (alive) {
                    if (replicas.movedAway(p, nodeId, conf, nowMs, 2L * node.tuning().electionTimeoutMaxMs())) {
                        release(p, conf.voterIds());
                    }
                    continue;
                }
                MembershipView.ClosedReplica closed = replicas.closedByRatis(p, nodeId, conf, nowMs,
                        node.reopenWindowMs()).orElse(null);
                if (closed == MembershipView.ClosedReplica.REMOVED) {
                    release(p, conf.voterIds());
                } else if (closed == MembershipView.ClosedReplica.REOPEN && reopen(p)) {
                    replicas.noteReopened(p, System.currentTimeMillis());
                }
                // FAILED: left closed; the storage watch stops the node.
            } catch (IOException | RuntimeException e) {
                LOG.debug("node {}: partition {}: replica not checked for a move: {}", nodeId, p, e.toString());
            }
        }
    }

    /**
     * The index of the newest configuration entry in {@code log} that lists this node (a voter or
     * listener, of the new or the old configuration), or -1. Read once for a replica this node
     * holds but the placement does not give it, when this run has not seen it listed: after a
     * restart, a replica whose removal this node received, or had not finished releasing, before a
     * crash (a SIGKILL between the two, seen in ReplicaMoveIT) starts with a configuration without
     * the node and would otherwise be taken for one being added and kept for good. A
     * configuration newer than the entry found that leaves the node out is then a removal, as at
     * runtime. Only replicas found on disk at a start are read (one created empty since holds only
     * what its leader sent, maybe configurations from this node's earlier stay in the group).
     * Entries already folded into a snapshot are not read (none found: kept, as before).
     */
    private long newestConfListingThisNode(int partition, RaftLog log) {
        ByteString self = node.selfId().toByteString();
        long found = -1;
        // The headers (in memory) say which entries are configurations; only those are read.
        for (LogEntryHeader header : log.getEntries(Math.max(0, log.getStartIndex()), log.getNextIndex())) {
            if (header.getLogEntryBodyCase() != LogEntryProto.LogEntryBodyCase.CONFIGURATIONENTRY) {
                continue;
            }
            try {
                LogEntryProto entry = log.get(header.getIndex());
                if (entry != null && lists(entry.getConfigurationEntry(), self)) {
                    found = Math.max(found, header.getIndex());
                }
            } catch (RaftLogIOException e) {
                LOG.debug("node {}: partition {}: log entry {} not read: {}", nodeId, partition, header.getIndex(),
                        e.toString());
            }
        }
        LOG.info("node {}: partition {}: its replica, not placed here, was last listed in its group at log index {}",
                nodeId, partition, found);
        return found;
    }

    private static boolean lists(RaftConfigurationProto conf, ByteString peerId) {
        return Stream.of(conf.getPeersList(), conf.getOldPeersList(), conf.getListenersList(),
                        conf.getOldListenersList())
                .flatMap(List::stream).anyMatch(peer -> peer.getId().equals(peerId));
    }

    /**
     * Whether this node's replica of {@code partition} (not 0) holds nothing on disk: created empty
     * to be added and never sent anything ({@link ReplicaStorage#holdsNoData}). Closed,
     * such a replica is no failed disk: nothing is lost, and {@link #releaseMoved} creates it again.
     */
    boolean holdsNothing(int partition) {
        try {
            return partition != 0 && node.hosts(partition) && ReplicaStorage.holdsNoData(
                    ReplicaStorage.groupDir(node.dataDir(), node.spec(), partition), nodeId);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A replica waiting to be added that Ratis closed (or never opened: seen after a SIGKILL, when
     * a node created it again at start while a leader was still staging its previous incarnation)
     * is created again, empty, so the group's leader can add it.
     */
    private synchronized void createAgain(int partition) {
        if (!node.hosts(partition) || node.isReplicaOpen(partition) || !holdsNothing(partition)) {
            return;
        }
        LOG.warn("node {}: its replica of partition {}, created empty to be added, is closed; creating it again",
                nodeId, partition);
        release(partition, List.of());
        try {
            host(partition);
        } catch (IOException | RuntimeException e) {
            LOG.warn("node {}: could not create its replica of partition {} again: {}", nodeId, partition,
                    e.toString());
        }
    }

    /**
     * The voters of {@code partition}'s committed, stable configuration if this node leads it, else
     * empty: what other nodes learn their removal from ({@link #releaseIfRemoved}).
     */
    List<Integer> committedVotersIfLeader(int partition) {
        try {
            RaftServer.Division division = node.division(partition);
            org.apache.ratis.server.RaftConfiguration conf = division.getRaftConf();
            if (!division.getInfo().isLeader() || !conf.getPreviousPeers().isEmpty()
                    || conf.getLogEntryIndex() > division.getRaftLog().getLastCommittedIndex()) {
                return List.of();
            }
            return node.membershipOf(conf).voterIds();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * Releases this node's replica of {@code partition} if its leader {@code leaderNodeId}, at term
     * {@code leaderTerm}, reports a committed configuration ({@code committedVoters}) without this
     * node: the cluster removed the replica while this node was down or cut off, so the replica
     * never received that configuration and waits as a follower for good. Only a replica that was
     * a member (one being added is not in the configuration yet), not led here, not at a later
     * term, and not placed on this node by the current members. Returns whether it was released.
     */
    boolean releaseIfRemoved(int partition, int leaderNodeId, long leaderTerm, List<Integer> committedVoters) {
        if (partition == 0 || !node.hosts(partition) || leaderNodeId == nodeId || committedVoters.isEmpty()
                || committedVoters.contains(nodeId) || node.spec().hosts(nodeId, partition)
                || !replicas.wasMember(partition)) {
            return false;
        }
        try {
            RaftServer.Division division = node.division(partition);
            if (division.getInfo().isLeader() || division.getInfo().getCurrentTerm() > leaderTerm) {
                return false;
            }
            Membership conf = node.membershipOf(division.getRaftConf());
            LOG.info("node {}: partition {}'s leader, node {} at term {}, has committed the group {} without this "
                    + "node; this replica (still at configuration index {}, {}) missed its removal", nodeId, partition,
                    leaderNodeId, leaderTerm, committedVoters, conf.confIndex(), conf.voterIds());
            release(partition, committedVoters);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Stops serving {@code partition} here and deletes its data; {@code groupNow}: its voters, for the log. */
    private synchronized void release(int partition, List<Integer> groupNow) {
        RaftGroupId groupId = node.spec().raftGroupId(partition);
        HostedReplicas.Replica replica = replicas.clear(partition, groupId);
        if (replica == null) {
            return;
        }
        shutDownByRatis.remove(partition);
        node.leaders().forget(partition);
        retire(replica, "partition " + partition + " moved to nodes " + groupNow + "; node " + nodeId
                + " holds no replica of it any more");
        try {
            RaftClientReply reply = node.raftCalls().removeGroup(groupId, true);
            if (!reply.isSuccess()) {
                LOG.info("node {}: Ratis did not remove partition {}'s group ({}); deleting its directory", nodeId,
                        partition, String.valueOf(reply.getException()));
                Directories.deleteRecursively(ReplicaStorage.groupDir(node.dataDir(), node.spec(), partition));
            }
        } catch (IOException e) {
            LOG.warn("node {}: could not delete the released replica of partition {}: {}", nodeId, partition,
                    e.toString());
        }
        LOG.info("node {}: released its replica of partition {}: the partition's group is now {}; its data is "
                + "deleted", nodeId, partition, groupNow);
        node.listener().onStepDown(partition);
    }

    /** Stops {@code replica}'s timers and fails its queued commands NOT_LEADER ({@code why}): it serves no more. */
    private static void retire(HostedReplicas.Replica replica, String why) {
        replica.timers().deactivate();
        replica.proposer().failAll(new ProposalException(ProposalException.Kind.NOT_LEADER, -1, why, null));
        replica.proposer().close();
    }

    /**
     * Deletes the replicas that never received anything ({@link ReplicaStorage#holdsNoData}):
     * created empty to wait for their leader, for a join or a replica move that stopped before
     * adding them (Ratis does not open one that was half-written when its node was killed). Where
     * the placement puts a replica it is created again, empty; a move run again creates the others.
     */
    static void deleteNeverAdded(Path dataDir, ClusterSpec spec, int nodeId)
            throws IOException {
        for (int p = 0; p < spec.partitions(); p++) {
            Path groupDir = ReplicaStorage.groupDir(dataDir, spec, p);
            if (Files.isDirectory(groupDir) && ReplicaStorage.holdsNoData(groupDir, nodeId)) {
                Directories.deleteRecursively(groupDir);
                LOG.info("node {}: deleted its replica of partition {}, which was created empty and never received "
                        + "anything (a join or a replica move stopped before adding it)", nodeId, p);
            }
        }
    }
}
