package io.cohort.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftClientReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Online membership change, one node per command, run on partition 0's leader (the node whose
 * Raft configuration is the membership, {@link Membership}).
 *
 * <p><b>Add</b>: for each partition the new node holds, it is added as a voter, which Ratis
 * stages first: the slow catch-up (snapshot install, then the log) runs without a vote and without
 * touching the quorum (the learner phase), and the joint-consensus step that makes it a voter
 * starts only once it is within {@code raft.server.staging.catchup.gap} entries. (Not a Ratis
 * listener promoted afterwards: see {@link #addToGroup}.) <b>Remove</b>: leadership is moved
 * off the node first, then it leaves each group. Both read the current configuration before each
 * step, so re-running a command interrupted halfway (a crash, a timeout) finishes it.
 *
 * <p><b>Replica moves</b>: with a replication factor below the node count, a partition's replicas
 * are where {@link ClusterSpec#replicas} places them over the members, so a change of the members
 * moves replicas between nodes, existing ones included. Each partition other than 0 is moved on
 * its own, in order: every node of its new placement first creates an empty replica
 * ({@link CohortRaftNode#hostReplica}, asked over {@link ReplicaPeers#hostReplica}), then one of its
 * voters (this node if it is one, else one asked over {@link ReplicaPeers#movePartition}) becomes its
 * leader and adds each new replica as above (staged until caught up), then removes each replica
 * the placement no longer names, moving leadership off it first. A node left out of a partition's
 * configuration releases its replica and deletes its data ({@link HostedReplicas}). The partition
 * never has fewer replicas than before during the move; an add moves partition 0 (the membership)
 * first, a remove last, so every node computes the placement of the new members while the other
 * partitions move.
 *
 * <p>Like etcd's strict reconfiguration check, a change is refused when the members that answer
 * could not form the new quorum, and one change runs at a time.
 */
public final class MembershipChanges {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipChanges.class);
    private static final long PROGRESS_EVERY_MS = 2_000;

    private final CohortRaftNode node;
    private final PartitionLeadership leadership;
    private final AtomicBoolean running = new AtomicBoolean();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cohort-membership");
        thread.setDaemon(true);
        return thread;
    });

    MembershipChanges(CohortRaftNode node) {
        this.node = node;
        this.leadership = new PartitionLeadership(node);
    }

    /** Whether a change runs on this node now (the leader balancer waits meanwhile). */
    public boolean inProgress() {
        return running.get();
    }

    /**
     * Adds {@code newNode} (started with the join option) to every partition its placement gives
     * it, as a listener, then as a voter once caught up. Completes with the steps taken; each step
     * also goes to {@code progress} as it happens.
     */
    public CompletableFuture<List<String>> addNode(NodeAddress newNode, Consumer<String> progress) {
        return addNode(newNode, progress, LeaderHandover.NONE);
    }

    /** As {@link #addNode(NodeAddress, Consumer)}; partitions led by other nodes are first handed here. */
    public CompletableFuture<List<String>> addNode(NodeAddress newNode, Consumer<String> progress,
                                                   LeaderHandover handover) {
        return addNode(newNode, progress, handover, ReplicaPeers.NONE);
    }

    /** As {@link #addNode(NodeAddress, Consumer, LeaderHandover)}; replicas moved with {@code peers}. */
    public CompletableFuture<List<String>> addNode(NodeAddress newNode, Consumer<String> progress,
                                                   LeaderHandover handover, ReplicaPeers peers) {
        return run(steps -> add(newNode, steps), progress, handover, peers);
    }

    /** Removes node {@code nodeId} from every group, moving leadership off it first. */
    public CompletableFuture<List<String>> removeNode(int nodeId, Consumer<String> progress) {
        return removeNode(nodeId, progress, LeaderHandover.NONE);
    }

    /** As {@link #removeNode(int, Consumer)}; partitions led by other nodes are first handed here. */
    public CompletableFuture<List<String>> removeNode(int nodeId, Consumer<String> progress, LeaderHandover handover) {
        return removeNode(nodeId, progress, handover, ReplicaPeers.NONE);
    }

    /** As {@link #removeNode(int, Consumer, LeaderHandover)}; replicas moved with {@code peers}. */
    public CompletableFuture<List<String>> removeNode(int nodeId, Consumer<String> progress, LeaderHandover handover,
                                                      ReplicaPeers peers) {
        return run(steps -> remove(nodeId, steps), progress, handover, peers);
    }

    /**
     * One partition's part of a replica move, asked by the node running an add or remove
     * ({@link ReplicaPeers#movePartition}): this node, a voter of {@code partition}, becomes its
     * leader, adds every node of {@code replicas} not in its group yet (each has created its empty
     * replica), then removes every other. Fails with NOT_LEADER if this node holds no voting
     * replica of it, and with LEADERSHIP_MOVED (naming the new leader) if this node itself leaves.
     */
    public CompletableFuture<List<String>> movePartitionHere(int partition, List<NodeAddress> replicas,
                                                             Consumer<String> progress, LeaderHandover handover) {
        return run(steps -> {
            if (!leadership.groupConf(partition).isVoter(node.nodeId())) {
                throw new MembershipException(MembershipException.Failure.NOT_LEADER, node.leaderOf(partition), "node " + node.nodeId()
                        + " holds no voting replica of partition " + partition);
            }
            changeGroup(partition, replicas, steps);
        }, progress, handover, ReplicaPeers.NONE, false);
    }

    private CompletableFuture<List<String>> run(Consumer<Steps> change, Consumer<String> progress,
                                                LeaderHandover handover, ReplicaPeers peers) {
        return run(change, progress, handover, peers, true);
    }

    private CompletableFuture<List<String>> run(Consumer<Steps> change, Consumer<String> progress,
                                                LeaderHandover handover, ReplicaPeers peers,
                                                boolean membershipChange) {
        if (!running.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new MembershipException(MembershipException.Failure.IN_PROGRESS, -1,
                    "another membership change is running on node " + node.nodeId() + "; one at a time"));
        }
        return CompletableFuture.supplyAsync(() -> {
            Steps steps = new Steps(progress, handover, peers);
            try {
                if (membershipChange) {
                    leadership.requireLeaderOf(0);
                }
                change.accept(steps);
                if (membershipChange) {
                    node.refreshMembership();
                    steps.say("membership now: " + node.membership().describe());
                }
                return steps.done;
            } finally {
                running.set(false);
            }
        }, worker);
    }

    private void add(NodeAddress newNode, Steps steps) {
        int id = newNode.nodeId();
        Membership members = leadership.groupConf(0);
        Optional<NodeAddress> same = members.member(id);
        if (same.isPresent() && !same.get().raftAddress().equals(newNode.raftAddress())) {
            throw new MembershipException(MembershipException.Failure.INVALID, -1, "node " + id + " is already a member with Raft address "
                    + same.get().raftAddress() + ", not " + newNode.raftAddress()
                    + "; remove it first to replace it at another address");
        }
        for (NodeAddress member : members.all()) {
            if (member.nodeId() != id && member.raftAddress().equals(newNode.raftAddress())) {
                throw new MembershipException(MembershipException.Failure.INVALID, -1, "Raft address " + newNode.raftAddress()
                        + " belongs to member " + member.nodeId());
            }
        }
        for (NodeAddress listener : members.listeners()) {
            if (listener.nodeId() != id) {
                throw new MembershipException(MembershipException.Failure.IN_PROGRESS, -1, "node " + listener.nodeId()
                        + " is still being added (a listener of partition 0): finish that with add-node --id "
                        + listener.nodeId() + ", or undo it with remove-node --id " + listener.nodeId());
            }
        }
        List<NodeAddress> newMembers = new ArrayList<>(members.voters());
        newMembers.removeIf(m -> m.nodeId() == id);
        newMembers.add(newNode);
        ClusterSpec target = node.specWithMembers(newMembers);
        steps.say("adding node " + newNode.toSpec() + "; it holds partitions " + target.partitionsOf(id));
        // Partition 0 first: its configuration is the membership, from which every node computes
        // the placement the other partitions move to.
        addToGroup(0, newNode, steps);
        // Read the membership now, not within the next 500 ms: the moves call the new node by the
        // address the members give it (found by the chaos run: "node 1 is not a peer").
        node.refreshMembership();
        moveReplicas(target, steps);
    }

    /** Moves every partition but 0 to where {@code target} places it (no-op for those already there). */
    private void moveReplicas(ClusterSpec target, Steps steps) {
        for (int p = 1; p < target.partitions(); p++) {
            List<NodeAddress> wanted = target.replicas(p).stream().map(target::peer).toList();
            if (node.hosts(p) && leadership.groupConf(p).voterIds().equals(target.replicas(p).stream().sorted().toList())
                    && leadership.groupConf(p).listeners().isEmpty()) {
                continue;
            }
            movePartition(p, wanted, steps);
        }
    }

    /**
     * Moves {@code partition} to {@code wanted}: each of those nodes creates its replica (empty,
     * if it has none), then a voter of the partition (this node if it is one) changes the group.
     */
    private void movePartition(int partition, List<NodeAddress> wanted, Steps steps) {
        for (NodeAddress replica : wanted) {
            if (replica.nodeId() == node.nodeId()) {
                try {
                    if (node.hostReplica(partition)) {
                        steps.say("partition " + partition + ": created an empty replica on node " + node.nodeId());
                    }
                } catch (java.io.IOException e) {
                    throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, "partition " + partition
                            + ": could not create a replica on node " + node.nodeId() + ": " + e.getMessage());
                }
            } else {
                MembershipWaits.await(steps.peers.hostReplica(replica.nodeId(), partition), "partition " + partition
                        + ": create a replica on node " + replica.nodeId());
            }
        }
        if (leadership.groupConf(partition).isVoter(node.nodeId())) {
            try {
                changeGroup(partition, wanted, steps);
                return;
            } catch (MembershipException e) {
                if (e.failure() != MembershipException.Failure.LEADERSHIP_MOVED) {
                    throw e;
                }
                // This node left the partition: the voter it handed leadership to finishes.
            }
        }
        moveOnAnotherNode(partition, wanted, steps);
    }

    /**
     * Asks a voter of {@code partition} on another node to change its group: its leader if known,
     * else each member in turn (one that holds no voting replica says so at once).
     */
    private void moveOnAnotherNode(int partition, List<NodeAddress> wanted, Steps steps) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MembershipWaits.HANDOVER_TIMEOUT_MS);
        String lastFailure = "no node answered";
        while (System.nanoTime() < deadline) {
            java.util.LinkedHashSet<Integer> candidates = new java.util.LinkedHashSet<>();
            int leader = node.leaderOf(partition);
            if (leader >= 0 && leader != node.nodeId()) {
                candidates.add(leader);
            }
            node.spec().peers().stream().map(NodeAddress::nodeId).filter(id -> id != node.nodeId())
                    .forEach(candidates::add);
            for (int candidate : candidates) {
                steps.say("partition " + partition + ": asking node " + candidate + " to move it to nodes "
                        + wanted.stream().map(NodeAddress::nodeId).toList());
                try {
                    List<String> done = steps.peers.movePartition(candidate, partition, wanted)
                            .get(MembershipWaits.CONF_CHANGE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    done.forEach(step -> steps.say("node " + candidate + ": " + step));
                    return;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof MembershipException m && m.failure() != MembershipException.Failure.NOT_LEADER
                            && m.failure() != MembershipException.Failure.LEADERSHIP_MOVED) {
                        throw m;
                    }
                    lastFailure = "node " + candidate + ": " + e.getCause().getMessage();
                } catch (TimeoutException e) {
                    throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, "partition " + partition + ": node "
                            + candidate + " did not finish moving it in " + MembershipWaits.CONF_CHANGE_TIMEOUT_MS
                            + " ms; re-run the command to resume");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, "interrupted");
                }
            }
            MembershipWaits.sleep(MembershipWaits.POLL_MS * 5);
        }
        throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, "partition " + partition + ": no voter of it took the "
                + "move (" + lastFailure + "); re-run the command");
    }

    /**
     * On a voter of {@code p}: leads it, adds every node of {@code wanted} not a voter yet, then
     * removes every other voter and listener. If this node itself must go, it hands leadership to
     * a remaining voter first and fails with LEADERSHIP_MOVED.
     */
    private void changeGroup(int p, List<NodeAddress> wanted, Steps steps) {
        leadership.leadHere(p, steps.handover, steps::say);
        java.util.Set<Integer> wantedIds = new java.util.TreeSet<>(wanted.stream().map(NodeAddress::nodeId).toList());
        for (NodeAddress replica : wanted) {
            if (!leadership.groupConf(p).isVoter(replica.nodeId())) {
                addToGroup(p, replica, steps);
            }
        }
        Membership group = leadership.groupConf(p);
        for (NodeAddress member : group.all()) {
            if (wantedIds.contains(member.nodeId())) {
                continue;
            }
            if (member.nodeId() == node.nodeId()) {
                int target = leadership.moveOff(p, node.nodeId(), wantedIds, steps::say);
                throw new MembershipException(MembershipException.Failure.LEADERSHIP_MOVED, target, "node " + node.nodeId()
                        + " leaves partition " + p + "; leadership moved to node " + target + ", which removes it");
            }
            removeFromGroup(p, member.nodeId(), steps);
        }
    }

    /** On {@code p}'s leader: takes node {@code id} out of its group, if the voters left keep a quorum. */
    private void removeFromGroup(int p, int id, Steps steps) {
        leadership.leadHere(p, steps.handover, steps::say);
        Membership group = leadership.groupConf(p);
        if (!group.contains(id)) {
            return;
        }
        if (group.isVoter(id)) {
            int others = group.voters().size() - 1;
            int live = leadership.liveVoters(p, id, others / 2 + 1);
            if (others == 0 || live < others / 2 + 1) {
                throw new MembershipException(MembershipException.Failure.QUORUM, -1, "partition " + p + ": removing node " + id
                        + " leaves " + others + " voters of which " + live + " answer, below the quorum of "
                        + (others / 2 + 1) + ": bring the stopped voters back first");
            }
        }
        List<NodeAddress> voters = group.voters().stream().filter(v -> v.nodeId() != id).toList();
        List<NodeAddress> listeners = group.listeners().stream().filter(v -> v.nodeId() != id).toList();
        steps.say("partition " + p + ": removing node " + id);
        MembershipWaits.await(node.setGroupConfiguration(p, voters, listeners), "partition " + p + ": remove node " + id);
        steps.say("partition " + p + ": node " + id + " removed");
    }

    private void addToGroup(int p, NodeAddress newNode, Steps steps) {
        int id = newNode.nodeId();
        if (!leadership.groupConf(p).isVoter(id)) {
            leadership.leadHere(p, steps.handover, steps::say); // only a partition's leader changes its configuration
        }
        Membership group = leadership.groupConf(p);
        if (group.isVoter(id)) {
            steps.say("partition " + p + ": node " + id + " is already a voter");
            return;
        }
        requireQuorumWith(p, group, id);
        List<NodeAddress> listeners = new ArrayList<>(group.listeners());
        listeners.removeIf(l -> l.nodeId() == id);
        List<NodeAddress> voters = new ArrayList<>(group.voters());
        voters.add(newNode);
        // Not listener-then-promote: in Ratis 3.3.0 a listener promoted by a configuration change
        // keeps being sent "initializing" appends (its leader-side follower record is never marked
        // caught up), so its replica stays STARTING: it can neither vote nor lead until a leader
        // change or its restart (seen in MembershipChangeIT: a transfer to it failed "n5 is not in
        // [RUNNING]: current state is STARTING"). Adding it as a voter makes Ratis stage it first,
        // which is the same learner phase: it gets the snapshot and the log without a vote and
        // without counting in any quorum, and joins the configuration (joint consensus) only once
        // caught up (raft.server.staging.catchup.gap).
        steps.say("partition " + p + ": adding node " + id + " (staged without a vote until caught up)");
        java.util.concurrent.CompletableFuture<org.apache.ratis.protocol.RaftClientReply> change =
                node.setGroupConfiguration(p, voters, listeners);
        reportCatchUpUntil(change, p, id, steps);
        MembershipWaits.await(change, "partition " + p + ": add node " + id
                + " (is it running with cluster.join, and its Raft port reachable?)");
        steps.say("partition " + p + ": node " + id + " caught up and promoted to voter");
    }

    private void requireQuorumWith(int p, Membership group, int id) {
        int newQuorum = (group.voters().size() + 1) / 2 + 1;
        int liveVoters = leadership.liveVoters(p, -1, newQuorum - 1);
        // The new voter joins only once caught up, so it counts: etcd's "started members >= new quorum".
        if (liveVoters + 1 < newQuorum) {
            throw new MembershipException(MembershipException.Failure.QUORUM, -1, "partition " + p + ": only " + liveVoters + " of "
                    + group.voters().size() + " voters answer; with node " + id + " the quorum would be " + newQuorum
                    + ": bring the stopped voters back (or remove dead ones) first");
        }
    }

    /** Reports the new replica's catch-up (as the leader sees its staging) until {@code change} completes. */
    private void reportCatchUpUntil(java.util.concurrent.CompletableFuture<?> change, int p, int id, Steps steps) {
        long lastSaid = System.currentTimeMillis();
        while (!change.isDone()) {
            MembershipWaits.sleep(MembershipWaits.POLL_MS);
            long now = System.currentTimeMillis();
            if (now - lastSaid >= PROGRESS_EVERY_MS) {
                lastSaid = now;
                PartitionStatus status = node.status(p);
                steps.say("partition " + p + ": node " + id + " catching up: " + status.replicas().stream()
                        .filter(r -> r.nodeId() == id).findFirst()
                        .map(r -> "match index " + r.matchIndex() + ", " + r.lagEntries() + " entries behind")
                        .orElse("staging (commit index " + status.commitIndex() + ")"));
            }
        }
    }

    private void remove(int id, Steps steps) {
        Membership members = leadership.groupConf(0);
        if (!members.contains(id)) {
            steps.say("node " + id + " is not a member (already removed)");
            return;
        }
        if (id == node.nodeId()) {
            // This node runs changes because it leads partition 0: the next leader removes it.
            int target = leadership.moveOff(0, id, steps::say);
            throw new MembershipException(MembershipException.Failure.LEADERSHIP_MOVED, target, "node " + id
                    + " led partition 0; leadership moved to node " + target + ", which removes it");
        }
        List<NodeAddress> remaining = members.all().stream().filter(v -> v.nodeId() != id).toList();
        if (members.isVoter(id) && members.voters().stream().noneMatch(v -> v.nodeId() != id)) {
            throw new MembershipException(MembershipException.Failure.QUORUM, -1, "node " + id + " is the last voter");
        }
        ClusterSpec target = node.specWithMembers(remaining);
        if (members.isVoter(id)) {
            // The strict check on partition 0 before anything changes; each other partition's
            // removal is checked again by its leader.
            int others = members.voters().size() - 1;
            int live = leadership.liveVoters(0, id, others / 2 + 1);
            if (live < others / 2 + 1) {
                throw new MembershipException(MembershipException.Failure.QUORUM, -1, "partition 0: removing node " + id + " leaves "
                        + others + " voters of which " + live + " answer, below the quorum of " + (others / 2 + 1)
                        + ": bring the stopped voters back first");
            }
        }
        // The other partitions first, to where the members without the node place them; partition
        // 0 (the membership) last, so every node keeps placing with the node until the moves are done.
        moveReplicas(target, steps);
        removeFromGroup(0, id, steps);
    }

    void close() {
        worker.shutdownNow();
    }

    /** The steps taken, also told to the caller's progress consumer as they happen. */
    private final class Steps {
        final List<String> done = new ArrayList<>();
        final Consumer<String> progress;
        final LeaderHandover handover;
        final ReplicaPeers peers;

        Steps(Consumer<String> progress, LeaderHandover handover, ReplicaPeers peers) {
            this.progress = progress;
            this.handover = handover;
            this.peers = peers;
        }

        void say(String step) {
            LOG.info("node {}: membership: {}", node.nodeId(), step);
            done.add(step);
            progress.accept(step);
        }
    }
}
