package io.cohort.raft;

import io.cohort.core.PartitionFunction;
import io.cohort.core.command.Command;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import io.cohort.core.shard.TimerOp;
import io.cohort.core.topic.TopicRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Cohort node's Raft side: a single RaftServer on one port hosting a replica of each offsets
 * partition the placement gives this node ({@link ClusterSpec#replicas}; every partition when the
 * replication factor is the node count), one Raft group and one {@link PartitionStateMachine} each,
 * plus what the leader of a
 * partition runs beside Ratis: the in-process {@link Proposer} with group commit, the
 * {@link LeaderTimers}, and the routing view of who leads each partition.
 *
 * <p>Leader election, log replication, durability and failover are Ratis's; this class only wires
 * them to the core shards.
 */
public final class CohortRaftNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CohortRaftNode.class);
    /** How often overdue proposals are answered: the proposal timeout holds to within this. */
    private static final long PROPOSAL_EXPIRY_INTERVAL_MS = 100;
    /** How often partition 0's configuration is read for membership changes (the view, guard, cache). */
    private static final long MEMBERSHIP_REFRESH_INTERVAL_MS = 500;
    /** How often a node being added looks at partition 0's configuration ({@link ClusterStateLoaded}). */
    private static final long CLUSTER_STATE_CHECK_INTERVAL_MS = 50;
    /** How often every replica is checked to be still open (see {@link StorageWatch}). */
    private static final long REPLICA_CHECK_INTERVAL_MS = 1_000;
    /** How often every replica's apply progress is checked ({@link StalledApplyWatch}). */
    private static final long APPLY_CHECK_INTERVAL_MS = 1_000;

    private final int nodeId;
    /** Started with the join option: its replicas start with an empty configuration and wait. */
    private final boolean joining;
    private final Path dataDir;
    private final RaftTuning tuning;
    private final PartitionListener listener;
    private final RaftPeerId selfId;
    private final ClientId clientId = ClientId.randomId();
    private final HostedReplicas replicas;
    /** Replicas created and released at runtime (replica moves). */
    private final ReplicaLifecycle lifecycle;
    /** Ratis events of every partition, routed to the proposer, the timers and the listener. */
    private final PartitionStateMachine.Hooks hooks = new RaftEventRouter(this);
    private final PartitionLeaders leaders;
    private final PartitionRequests requests;
    private final ScheduledExecutorService timerScheduler;
    /** Wakes proposers whose linger ran out; its own thread, so group timers never delay a commit. */
    private final ScheduledExecutorService lingerTimer;
    private final RaftPort raftPort;
    private final RaftServer server;
    private final LocalRaftCalls raftCalls;
    private final ReplicaProbe probe;
    private final StorageWatch storageWatch;
    private final StalledApplies stalledApplies;
    private final LeaderBalancer leaderBalancer;
    private final MembershipChanges changes;
    private final MembershipView view;
    /** Null with raft.election.on.leader.exit=false. */
    private final LeaderExitElection leaderExitElection;
    /** Set once the Raft server started: what each replica had to apply from its own log. */
    private volatile StartupReplay startupReplay;
    private final ClusterStateLoaded clusterStateLoaded;

    private CohortRaftNode(int nodeId, ClusterSpec spec, Path dataDir, RaftTuning tuning, RaftPortOptions raftPortOptions,
                           PartitionListener listener, boolean joining) throws IOException {
        this.nodeId = nodeId;
        this.joining = joining;
        this.dataDir = dataDir;
        this.view = new MembershipView(nodeId, spec, dataDir, tuning, joining);
        this.clusterStateLoaded = new ClusterStateLoaded(joining, () -> replayedAtStart(0),
                () -> groupMembership(0).filter(m -> m.contains(nodeId)).map(Membership::confIndex).orElse(-1L),
                () -> appliedIndex(0));
        spec = view.spec();
        this.tuning = tuning;
        this.listener = listener;
        this.selfId = RaftPeerId.valueOf(spec.peer(nodeId).peerId());
        int partitions = spec.partitions();
        this.replicas = new HostedReplicas(partitions);
        this.lifecycle = new ReplicaLifecycle(this, replicas);
        this.leaders = new PartitionLeaders(this, partitions);
        this.timerScheduler = DaemonScheduler.create("cohort-timers-n" + nodeId);
        this.lingerTimer = DaemonScheduler.create("cohort-batch-linger-n" + nodeId);
        this.storageWatch = new StorageWatch(nodeId, this::onStorageFailure);
        this.stalledApplies = new StalledApplies(this, new StalledApplyWatch(partitions, tuning.applyStallMs(),
                APPLY_CHECK_INTERVAL_MS));
        PartitionStateMachine[] stateMachines = new PartitionStateMachine[partitions];
        for (int p = 0; p < partitions; p++) {
            // Where the placement puts a replica, and every replica on disk: one a move brought here
            // (the placement follows it once the change is done) or one a move is taking away.
            if (!spec.hosts(nodeId, p) && !Files.isDirectory(ReplicaStorage.groupDir(dataDir, spec, p))) {
                continue;
            }
            stateMachines[p] = newStateMachine(p);
            replicas.registerStateMachine(spec.raftGroupId(p), stateMachines[p]);
        }
        this.changes = new MembershipChanges(this);
        this.leaderBalancer = new LeaderBalancer(this, tuning, partitions);
        RaftProperties properties = RaftServerProperties.of(dataDir, spec.peer(nodeId), tuning);
        Parameters parameters = new Parameters();
        this.raftPort = RaftPort.install(raftPortOptions, spec.peers(), properties, parameters);
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setProperties(properties)
                .setParameters(parameters)
                .setStateMachineRegistry(groupId -> {
                    PartitionStateMachine stateMachine = replicas.stateMachineOf(groupId);
                    if (stateMachine == null) {
                        throw new IllegalStateException("Raft group " + groupId + " is not a partition of cluster "
                                + view.initialSpec().clusterId() + " held by node " + nodeId);
                    }
                    return stateMachine;
                })
                .build();
        this.raftCalls = new LocalRaftCalls(server, clientId, selfId);
        this.probe = new ReplicaProbe(server, view::spec);
        this.requests = new PartitionRequests(this, replicas, leaders, raftCalls);
        this.leaderExitElection = tuning.electionOnLeaderExit() ? new LeaderExitElection(this) : null;
        for (int p = 0; p < partitions; p++) {
            if (stateMachines[p] != null) {
                replicas.set(p, newReplica(p, stateMachines[p]));
            }
        }
    }

    HostedReplicas.Replica newReplica(int partition, PartitionStateMachine stateMachine) {
        Proposer proposer = new Proposer(partition, server, spec().raftGroupId(partition), selfId, clientId, tuning,
                lingerTimer, () -> leaderOf(partition));
        return new HostedReplicas.Replica(stateMachine, proposer,
                new LeaderTimers(partition, timerScheduler, proposer::submit));
    }

    /**
     * Starts the node: makes {@code dataDir} private to this user ({@link DataDirPermissions}),
     * checks (or writes) the cluster metadata in it, starts the Raft
     * server, and creates the replicas of partitions this node does not host yet. Existing replicas
     * come back from their storage: latest snapshot, then the log suffix.
     *
     * @throws ClusterMetadata.MismatchException if {@code dataDir} belongs to a cluster with other settings
     */
    public static CohortRaftNode start(int nodeId, ClusterSpec spec, Path dataDir, RaftTuning tuning,
                                       PartitionListener listener) throws IOException {
        return start(nodeId, spec, dataDir, tuning, RaftPortOptions.UNBOUNDED_PLAINTEXT, listener);
    }

    /**
     * {@link #start(int, ClusterSpec, Path, RaftTuning, PartitionListener)} with the Raft port's
     * connection bounds and TLS ({@link RaftPortOptions}); {@link RaftPortOptions#UNBOUNDED_PLAINTEXT}
     * leaves the port as Ratis builds it (the in-JVM Raft tests).
     */
    public static CohortRaftNode start(int nodeId, ClusterSpec spec, Path dataDir, RaftTuning tuning,
                                       RaftPortOptions raftPort, PartitionListener listener) throws IOException {
        return start(nodeId, spec, dataDir, tuning, raftPort, listener, false);
    }

    /**
     * Starts the node; with {@code joining}, a node being added to a running cluster
     * ({@code cluster.join}): the replicas it creates start with an EMPTY Raft configuration and wait
     * for the leader to add them (add-node), as Ratis's membership-change procedure requires (a new
     * peer started with the whole group could call an election before the others know it).
     * {@code spec} then lists the current members and this node.
     */
    public static CohortRaftNode start(int nodeId, ClusterSpec spec, Path dataDir, RaftTuning tuning,
                                       RaftPortOptions raftPort, PartitionListener listener, boolean joining)
            throws IOException {
        long startNanos = System.nanoTime();
        DataDirPermissions.makePrivate(dataDir);
        if (!joining && !ClusterMetadata.isWritten(dataDir)) {
            // A new cluster: its replicas start from one identical snapshot (NewReplicas), written
            // before cluster.properties marks the data dir as started.
            NewReplicas.create(dataDir, nodeId, spec);
        }
        ClusterMetadata.writeOrVerify(dataDir, nodeId, spec);
        ReplicaLifecycle.deleteNeverAdded(dataDir, spec, nodeId);
        PartitionSnapshotExport.deleteLeftImages(dataDir);
        RaftMetaCheck.throwIfAnyEmpty(dataDir);
        if (CommonPoolParallelism.threadPerTask()) {
            LOG.warn("the common ForkJoinPool has parallelism {}: Ratis will start a thread per append; set -D{}={}",
                    java.util.concurrent.ForkJoinPool.getCommonPoolParallelism(), CommonPoolParallelism.PROPERTY,
                    CommonPoolParallelism.MIN);
        }
        CohortRaftNode node = new CohortRaftNode(nodeId, spec, dataDir, tuning, raftPort, listener, joining);
        node.server.start();
        node.lifecycle.createMissing(joining);
        node.startupReplay = StartupReplay.watch(nodeId, node.hostedPartitions(), node.probe::appliedIndex,
                node.probe::lastLogIndex, startNanos, node.timerScheduler);
        node.refreshMembership();
        if (joining) {
            node.clusterStateLoaded.observeUntilLoaded(node.timerScheduler, CLUSTER_STATE_CHECK_INTERVAL_MS);
        }
        node.timerScheduler.scheduleWithFixedDelay(node::refreshMembership, MEMBERSHIP_REFRESH_INTERVAL_MS,
                MEMBERSHIP_REFRESH_INTERVAL_MS, TimeUnit.MILLISECONDS);
        node.timerScheduler.scheduleWithFixedDelay(node::releaseMovedReplicas, MEMBERSHIP_REFRESH_INTERVAL_MS,
                MEMBERSHIP_REFRESH_INTERVAL_MS, TimeUnit.MILLISECONDS);
        // What the start created under a permissive umask (cluster.properties, new replicas' dirs).
        DataDirPermissions.makePrivate(dataDir);
        node.timerScheduler.scheduleWithFixedDelay(node.leaderBalancer::run, LeaderBalancer.INTERVAL_MS,
                LeaderBalancer.INTERVAL_MS, TimeUnit.MILLISECONDS);
        node.timerScheduler.scheduleWithFixedDelay(node::expireOverdueProposals, PROPOSAL_EXPIRY_INTERVAL_MS,
                PROPOSAL_EXPIRY_INTERVAL_MS, TimeUnit.MILLISECONDS);
        node.timerScheduler.scheduleWithFixedDelay(
                () -> node.storageWatch.checkReplicasOpen(spec.partitions(),
                        p -> !node.hosts(p) || node.isReplicaOpen(p) || node.removedFromCluster()
                                || node.lifecycle.holdsNothing(p)),
                REPLICA_CHECK_INTERVAL_MS, REPLICA_CHECK_INTERVAL_MS, TimeUnit.MILLISECONDS);
        node.timerScheduler.scheduleWithFixedDelay(node.stalledApplies::check, APPLY_CHECK_INTERVAL_MS,
                APPLY_CHECK_INTERVAL_MS, TimeUnit.MILLISECONDS);
        LOG.info("node {} started: {} of {} partitions (replication factor {}) on Raft port {} ({})", nodeId,
                node.hostedPartitions().size(), spec.partitions(), spec.replicationFactor(),
                spec.peer(nodeId).raftPort(), raftPort.tls().enabled() ? "mutual TLS" : "plaintext");
        return node;
    }

    /**
     * Completes once every replica this node hosted at start has applied the log it held then (its
     * snapshot to the last entry; {@link StartupReplay}); exceptionally if the node stops first.
     */
    public CompletableFuture<Void> startupReplayApplied() {
        return startupReplay.applied();
    }

    /**
     * Whether {@code partition}'s replica has applied the log it held when this node started (its
     * snapshot to its last entry then; {@link StartupReplay}); true for one not hosted at start.
     */
    boolean replayedAtStart(int partition) {
        StartupReplay replay = startupReplay;
        return replay != null && replay.replayed(partition);
    }

    /**
     * Whether this node's replica of partition 0 holds the cluster-wide state (ACLs, topics, group
     * settings) as of the node's start, or, on a node started to be added, as of the configuration
     * that added it ({@link ClusterStateLoaded}); stays true once true.
     */
    public boolean clusterStateLoaded() {
        return clusterStateLoaded.loaded();
    }

    /** How many log entries the replicas had to apply at start, over all of them (0 when their snapshots covered their logs). */
    public long startupReplayEntries() {
        return startupReplay.entries();
    }

    StartupReplay startupReplay() {
        return startupReplay;
    }

    /**
     * The Raft group of {@code partition}. Every peer has the same priority: with Ratis priorities a
     * higher-priority peer vetoes other candidates' pre-votes, and we saw a partition stay leaderless
     * for minutes while the preferred peer could not reach the others; and Ratis refuses to transfer
     * leadership to a peer that is not of the highest priority, which would block the SIGTERM
     * hand-off. Leaders are spread by {@link LeaderBalancer} with transferLeadership instead.
     */
    RaftGroup raftGroup(int partition) {
        return RaftGroup.valueOf(spec().raftGroupId(partition), spec().raftPeers(partition));
    }

    public int nodeId() {
        return nodeId;
    }

    /** The current members as partition 0's configuration lists them (refreshed every 500 ms). */
    public Membership membership() {
        return view.membership();
    }

    /**
     * The members as this replica of partition 0 knows them at this moment: the view is read again
     * first. For answers an operator reads right after a change (DescribeMembership, ClusterStatus),
     * which the 500 ms refresh could leave showing the previous list; a Raft configuration takes
     * effect on a replica when appended, so a member that acknowledged the change already shows it.
     */
    public Membership membershipNow() {
        refreshMembership();
        return view.membership();
    }

    /** Add-node and remove-node, run on partition 0's leader. */
    public MembershipChanges membershipChanges() {
        return changes;
    }

    /** Whether this node was removed from the cluster (it serves nothing; its data can be deleted). */
    public boolean removedFromCluster() {
        return view.removed();
    }

    /**
     * Reads partition 0's configuration (the membership) into the {@link MembershipView}: the spec
     * the node routes with, the Raft port guard and the cache follow a change.
     */
    void refreshMembership() {
        try {
            if (!hosts(0)) {
                return;
            }
            RaftServer.Division division;
            try {
                division = division(0);
            } catch (IOException e) {
                return;
            }
            view.refresh(division.getRaftConf(), division.getInfo().isAlive(), raftPort::updatePeers);
        } catch (RuntimeException e) {
            LOG.warn("node {}: reading the membership failed", nodeId, e);
        }
    }

    /**
     * The voters of {@code partition}'s group as this node's replica knows them: during a replica
     * move they differ from the placement ({@link ClusterSpec#replicas}). Empty if it holds none.
     */
    public List<Integer> groupVoters(int partition) {
        return groupMembership(partition).map(Membership::voterIds).orElse(List.of());
    }

    /** The configuration of {@code partition}'s group as this replica knows it (empty if it holds none). */
    Optional<Membership> groupMembership(int partition) {
        try {
            return Optional.of(view.membershipOf(division(partition).getRaftConf()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Sets {@code partition}'s configuration (this node must lead it): the voters and listeners
     * given. Peers already in the configuration keep their Raft peer as it is; new ones carry their
     * client endpoint. Ratis stages new peers until caught up, then commits with joint consensus.
     */
    CompletableFuture<RaftClientReply> setGroupConfiguration(int partition, List<NodeAddress> voters,
                                                             List<NodeAddress> listeners) {
        try {
            RaftServer.Division division = division(partition);
            org.apache.ratis.server.RaftConfiguration conf = division.getRaftConf();
            Function<NodeAddress, RaftPeer> peerOf = address -> {
                RaftPeer existing = conf.getPeer(RaftPeerId.valueOf(address.peerId()), RaftPeerRole.FOLLOWER,
                        RaftPeerRole.LISTENER);
                return existing != null && existing.getClientAddress() != null
                        && !existing.getClientAddress().isBlank() ? existing : Membership.raftPeer(address);
            };
            return raftCalls.setConfiguration(spec().raftGroupId(partition), voters.stream().map(peerOf).toList(),
                    listeners.stream().map(peerOf).toList());
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    RaftTuning tuning() {
        return tuning;
    }

    /**
     * Whether this node, as a leader, hands partitions to their preferred nodes
     * ({@link RaftTuning#leaderRebalanceEnabled}, auto.leader.rebalance.enable): never with one
     * partition, where leadership has no spread to restore and a hand-back would only pause every
     * group once more after a node's return (docs/OPERATIONS.md, "Stopping, and what a crash costs").
     */
    public boolean leaderRebalanceEnabled() {
        return tuning.leaderRebalanceEnabled() && spec().partitions() > 1;
    }

    public ClusterSpec spec() {
        return view.spec();
    }

    /**
     * The spec of this cluster with {@code members}: the placement derived again with the replication
     * factor as created (capped at the member count), not the current spec's, which a shrink capped.
     */
    ClusterSpec specWithMembers(List<NodeAddress> members) {
        return view.initialSpec().withMembers(members);
    }

    /** {@code offsets.replication.factor} as the cluster was created (the current spec's is capped at the members). */
    public int createdReplicationFactor() {
        return view.initialSpec().replicationFactor();
    }

    public int partitions() {
        return spec().partitions();
    }

    public int partitionFor(String groupId) {
        return PartitionFunction.partitionFor(groupId, spec().partitions());
    }

    /** Whether this node holds a replica of {@code partition}. */
    public boolean hosts(int partition) {
        return replicas.hosts(partition);
    }

    /** Whether this node holds a replica the placement over the current members does not give it. */
    public boolean holdsUnplacedReplica() {
        for (int p : hostedPartitions()) {
            if (!spec().hosts(nodeId, p)) {
                return true;
            }
        }
        return false;
    }

    /** The partitions this node holds a replica of, ascending. */
    public List<Integer> hostedPartitions() {
        return replicas.hosted();
    }

    /**
     * Creates an empty replica of {@code partition} here, to be added to its group by the group's
     * leader (a replica move; see {@link ReplicaLifecycle#host}). Returns false if this node already
     * holds one.
     */
    public boolean hostReplica(int partition) throws IOException {
        return lifecycle.host(partition);
    }

    /** Releases the replicas of partitions the cluster moved to other nodes ({@link ReplicaLifecycle#releaseMoved}). */
    void releaseMovedReplicas() {
        lifecycle.releaseMoved();
    }

    /** The voters of {@code partition}'s committed, stable configuration if this node leads it, else empty. */
    public List<Integer> committedVotersIfLeader(int partition) {
        return lifecycle.committedVotersIfLeader(partition);
    }

    /**
     * Releases this node's replica of {@code partition} if its leader reports a committed
     * configuration without this node ({@link ReplicaLifecycle#releaseIfRemoved}); whether it did.
     */
    public boolean releaseIfRemoved(int partition, int leaderNodeId, long leaderTerm, List<Integer> committedVoters) {
        return lifecycle.releaseIfRemoved(partition, leaderNodeId, leaderTerm, committedVoters);
    }

    // ---- for ReplicaLifecycle ----

    RaftPeerId selfId() {
        return selfId;
    }

    LocalRaftCalls raftCalls() {
        return raftCalls;
    }

    // ---- for RaftEventRouter ----

    /** This node's replica of {@code partition}, or null. */
    HostedReplicas.Replica replica(int partition) {
        return replicas.get(partition);
    }

    /** Who this node believes leads each partition. */
    PartitionLeaders leaders() {
        return leaders;
    }

    LeaderBalancer leaderBalancer() {
        return leaderBalancer;
    }

    ReplicaLifecycle lifecycle() {
        return lifecycle;
    }

    MembershipView membershipView() {
        return view;
    }

    StorageWatch storageWatch() {
        return storageWatch;
    }

    /**
     * Runs {@code task} on the node's timer thread (off a Ratis thread that must not block); once the
     * node is closing, drops it ({@link DaemonScheduler}).
     */
    void runOnTimerThread(Runnable task) {
        timerScheduler.execute(task);
    }

    Path dataDir() {
        return dataDir;
    }

    PartitionListener listener() {
        return listener;
    }

    /** How soon after a replica was opened again another close by Ratis is not taken for a transient one. */
    long reopenWindowMs() {
        return MembershipView.reopenWindowMs(tuning.electionTimeoutMaxMs());
    }

    /** {@code partition}'s replica runs again after Ratis closed it (on the timer thread). */
    void onReplicaReopened(int partition) {
        storageWatch.replicaReopened(partition);
    }

    Membership membershipOf(org.apache.ratis.server.RaftConfiguration conf) {
        return view.membershipOf(conf);
    }

    PartitionStateMachine newStateMachine(int partition) {
        return new PartitionStateMachine(partition, new GroupCoordinatorShard(spec().groupConfig()), hooks, clientId,
                tuning.snapshotEveryEntries(), tuning.snapshotMinEntries());
    }

    /**
     * Records what the replicas of a partition this node does not hold say its leader is (-1: none
     * known), so this node can route clients to it ({@code PartitionLeaderDirectory} in the server
     * learns it). Ignored for a hosted partition, whose leader Ratis reports here.
     */
    public void learnRemoteLeader(int partition, int leader) {
        leaders.learnRemote(partition, leader);
    }

    /**
     * The leader of {@code partition} as this node knows it, or -1. A follower that has not heard
     * from its leader for longer than the election timeout answers -1: with pre-vote Ratis reports no
     * "no leader" event, and clients must not be sent to a dead node. For a partition this node does
     * not hold: the leader its replicas last named ({@link #learnRemoteLeader}).
     */
    public int leaderOf(int partition) {
        return leaders.leaderOf(partition);
    }

    /**
     * Node {@code nodeId}'s process has exited (the front end saw its connection close and a new one
     * refused): where that node led a partition this node follows and this node is its successor,
     * stands for election at once ({@link LeaderExitElection}); every partition it led is routed to no
     * leader until the next is elected. Returns the partitions this node stood in; none with
     * raft.election.on.leader.exit=false or for a node that is not a member.
     */
    public List<Integer> peerProcessExited(int nodeId) {
        if (leaderExitElection == null || nodeId == this.nodeId || spec().peers().stream()
                .noneMatch(peer -> peer.nodeId() == nodeId)) {
            return List.of();
        }
        // Stop naming it at once: a follower that does not stand would otherwise send clients to the
        // dead node until the election's vote request reaches it. The new leader is named when elected.
        leaders.forgetNode(nodeId);
        return leaderExitElection.leaderExited(nodeId);
    }

    /** How many elections this node started at once because a leader's process exited. */
    public long leaderExitElections() {
        return leaderExitElection == null ? 0 : leaderExitElection.started();
    }

    /** The commit and applied index of this node's replica of {@code partition} (-1 if unknown). */
    long committedIndex(int partition) {
        return probe.committedIndex(partition);
    }

    long appliedIndex(int partition) {
        return probe.appliedIndex(partition);
    }

    RaftServer.Division division(int partition) throws IOException {
        return probe.division(partition);
    }

    /** Whether this node leads {@code partition} and has applied its term's first entry. */
    public boolean isLeaderReady(int partition) {
        return probe.isLeaderReady(partition);
    }

    public boolean isLeader(int partition) {
        return probe.isLeader(partition);
    }

    /**
     * The shard of {@code partition}: its read methods are safe to call beside apply.
     *
     * @throws ProposalException (NOT_LEADER, with the leader as known) if this node holds no replica of it
     */
    public GroupCoordinatorShard shard(int partition) {
        return requests.stateMachine(partition).shard();
    }

    /**
     * The cluster's topic registry as this node's replica of partition 0 has applied it (every node
     * holds a voting replica of partition 0): an immutable value, safe to read on any thread, behind
     * partition 0's leader at most by this replica's apply lag. The consumer-group front end copies
     * subscribed topics from it into the heartbeat commands it proposes.
     */
    public TopicRegistry topicRegistry() {
        return shard(0).topics();
    }

    /** @throws ProposalException (NOT_LEADER, with the leader as known) if this node holds no replica of it */
    public PartitionStateMachine stateMachine(int partition) {
        return requests.stateMachine(partition);
    }

    /**
     * Proposes {@code command} to {@code partition}; completes with its result once committed and
     * applied here. Fails with {@link ProposalException} if this node is not the leader-ready leader.
     */
    public CompletableFuture<Result> submit(int partition, Command command) {
        return requests.submit(partition, command);
    }

    /**
     * Reads {@code partition}'s shard. Linearizable (the default for OffsetFetch and DescribeGroups):
     * only on the leader, after Ratis confirms through the leader lease or a read index that
     * everything committed before the read is applied here, so a fetch after an acknowledged commit
     * sees it, also across failover. Local: this replica's applied state at once, possibly stale.
     */
    public <T> CompletableFuture<T> read(int partition, boolean linearizable, Function<GroupCoordinatorShard, T> read) {
        return requests.read(partition, linearizable, read);
    }

    /**
     * A linearizable read of {@code partition} on this replica, leader or follower: a follower asks
     * the leader for its commit index (Ratis's read index) and answers once it has applied that far.
     * For reads that may be served by any node (ListGroups), so a group committed on the leader is
     * never missing from the answer of a lagging follower.
     */
    public <T> CompletableFuture<T> readAnyReplica(int partition, Function<GroupCoordinatorShard, T> read) {
        return requests.readAnyReplica(partition, read);
    }

    /** The Raft port's guard, bounds and TLS, and what they refused since start. */
    public RaftPort raftPort() {
        return raftPort;
    }

    /** The client id this node's proposals carry: the only writer its partitions accept. */
    ClientId proposerClientId() {
        return clientId;
    }

    /** The Raft server: the groups it holds ({@link ReplicaLifecycle#createMissing}); tests write raw entries through it. */
    RaftServer raftServer() {
        return server;
    }

    /** Applies timer operations a heartbeat produced (leader only; ignored elsewhere). */
    public void applyTimerOps(int partition, List<TimerOp> ops) {
        HostedReplicas.Replica replica = replicas.get(partition);
        if (replica != null) {
            replica.timers().apply(ops);
        }
    }

    /**
     * Completes once every peer of {@code partition}'s Raft group has committed the log up to
     * {@code index} (Ratis watch, ALL_COMMITTED), or fails after {@code timeoutMs} (a peer down or
     * cut off). Leader only. Used to acknowledge ACL changes only once every node knows them committed.
     */
    public CompletableFuture<RaftClientReply> watchAllCommitted(int partition, long index, long timeoutMs) {
        return raftCalls.watchAllCommitted(spec().raftGroupId(partition), index, timeoutMs);
    }

    /** Asks the leader of {@code partition} (this node) to hand leadership to {@code targetNodeId}. */
    public CompletableFuture<RaftClientReply> transferLeadership(int partition, int targetNodeId, long timeoutMs) {
        return leaderBalancer.transfer(partition, targetNodeId, timeoutMs);
    }

    /** This node's view of one partition (for ClusterStatus and tests). */
    public PartitionStatus status(int partition) {
        String groupUuid = spec().raftGroupId(partition).getUuid().toString();
        try {
            RaftServer.Division division = division(partition);
            return PartitionStatus.read(partition, groupUuid, leaders.recorded(partition), division,
                    requests.stateMachine(partition).getLatestSnapshot());
        } catch (IOException | RuntimeException e) {
            // Also a replica Ratis is still initializing (created for a move: "log is uninitialized").
            return PartitionStatus.unknown(partition, groupUuid, hosts(partition) ? -1 : leaders.recorded(partition));
        }
    }

    /** The first index still in this node's log of {@code partition} (entries before it were purged). */
    public long logStartIndex(int partition) {
        return probe.logStartIndex(partition);
    }

    /**
     * Group-commit efficiency of this node's proposals for one partition, counted since the node started.
     *
     * @param entries log entries proposed
     * @param commands commands proposed in those entries
     * @param lingerExpiries entries sent because the batch linger ran out before the batch filled
     */
    public record ProposalCounts(long entries, long commands, long lingerExpiries) {
    }

    /** Group-commit efficiency of this node's proposals for {@code partition}. */
    public ProposalCounts proposalCounts(int partition) {
        HostedReplicas.Replica replica = replicas.get(partition);
        if (replica == null) {
            return new ProposalCounts(0, 0, 0);
        }
        Proposer proposer = replica.proposer();
        return new ProposalCounts(proposer.entriesProposed(), proposer.commandsProposed(), proposer.lingerExpiries());
    }

    private void expireOverdueProposals() {
        long nowNanos = System.nanoTime();
        replicas.forEach(replica -> replica.proposer().expireOverdue(nowNanos));
    }

    /** How many stalled replicas this node has reported since it started ({@link StalledApplyWatch}). */
    public long stalledAppliesReported() {
        return stalledApplies.reported();
    }

    boolean isReplicaOpen(int partition) {
        return probe.isOpen(partition);
    }

    /**
     * This node's storage failed: answer every queued and in-flight command at once (their entries
     * may still commit through the other replicas: outcome unknown), refuse new ones, stop the
     * timers, and tell the front end, which steps down and stops the node.
     */
    private void onStorageFailure(StorageWatch.StorageFailure failure) {
        ProposalException refusal = new ProposalException(ProposalException.Kind.INDETERMINATE, -1,
                "node " + nodeId + " cannot write its storage (" + failure.description() + "); outcome unknown",
                failure.cause());
        replicas.forEach(replica -> {
            replica.proposer().failAll(refusal);
            replica.timers().deactivate();
        });
        listener.onStorageFailed(failure.description(), failure.cause());
    }

    /** The storage failure that stopped this node's writes, if any (see {@link StorageWatch}). */
    public Optional<String> storageFailure() {
        return storageWatch.failure().map(f -> f.description() + (f.cause() == null ? "" : ": " + f.cause()));
    }

    @Override
    public void close() throws IOException {
        StartupReplay replay = startupReplay;
        if (replay != null) {
            replay.cancel();
        }
        storageWatch.close();
        changes.close();
        replicas.forEach(replica -> {
            replica.proposer().close();
            replica.timers().deactivate();
        });
        timerScheduler.shutdownNow();
        lingerTimer.shutdownNow();
        try {
            server.close();
        } finally {
            raftPort.close();
        }
    }

}
