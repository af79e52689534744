package io.cohort.raft;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves each partition a node leads, but should not, to its preferred node (the first of its
 * replicas, {@link ClusterSpec#preferredLeader}), so leadership is spread and returns after a
 * restart; and steps down for real a leader Ratis left stepping down ({@link StuckStepDownWatch}).
 * Runs every {@value #INTERVAL_MS} ms on the node's timer thread. Also counts the leadership
 * transfers of every caller whose Ratis reply has not come yet, which the step-down watch must
 * not take for a stuck step-down.
 *
 * <p>A partition is handed over once this node has held it {@code leaderBalanceHoldMs} since its
 * election and the preferred node has been caught up (at most {@value #MAX_LAG_ENTRIES} entries
 * behind, heard from within an election timeout) at every check for {@code leaderBalanceHoldMs}:
 * a node back from a restart first replays and applies its log as a follower. Handed over sooner,
 * it held writes up while it caught up and then applied its backlog before it could serve
 * (1.0-2.9 s without commits at every restart, failover benchmark). With
 * {@link RaftTuning#leaderRebalanceEnabled} off, or with one partition (nothing to spread:
 * {@link CohortRaftNode#leaderRebalanceEnabled}), nothing is handed over (a Ratis leader stuck
 * stepping down is still cleared).
 */
final class LeaderBalancer {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderBalancer.class);
    /** How often a leader checks whether a partition's preferred node should lead it again. */
    static final long INTERVAL_MS = 2_000;
    /**
     * The preferred node must be within this many entries of the leader's log to be handed
     * leadership. Ratis refuses every write from the start of a transfer until the transferee is
     * elected, and the transferee is elected only once it holds the whole log: every entry it lacks
     * is paid for by the clients. A follower keeping up under load is 0-2 entries behind.
     */
    private static final long MAX_LAG_ENTRIES = 16;
    static final long TRANSFER_TIMEOUT_MS = 3_000;
    /**
     * A leader refusing writes as "stepping down" this long while no transfer it was asked for
     * awaits its reply was left so by Ratis ({@link StuckStepDownWatch}).
     */
    private static final long STUCK_STEP_DOWN_MS = 3_000;

    private final CohortRaftNode node;
    private final RaftTuning tuning;
    /** Per partition: when (ms) this node last became its leader-ready leader. */
    private final AtomicLongArray leaderReadySinceMs;
    /** Per partition: 1 while a hand-over of ours runs. */
    private final AtomicIntegerArray handOversInFlight;
    /** Per partition: transfers (any caller's) whose Ratis reply has not come yet. */
    private final AtomicIntegerArray transfersAwaitingReply;
    /** Per partition: since when (ms) the preferred node has been seen caught up, or -1. */
    private final AtomicLongArray preferredCaughtUpSinceMs;
    private final StuckStepDownWatch stuckStepDowns;

    LeaderBalancer(CohortRaftNode node, RaftTuning tuning, int partitions) {
        this.node = node;
        this.tuning = tuning;
        this.leaderReadySinceMs = new AtomicLongArray(partitions);
        this.handOversInFlight = new AtomicIntegerArray(partitions);
        this.transfersAwaitingReply = new AtomicIntegerArray(partitions);
        this.preferredCaughtUpSinceMs = new AtomicLongArray(partitions);
        for (int p = 0; p < partitions; p++) {
            preferredCaughtUpSinceMs.set(p, -1);
        }
        this.stuckStepDowns = new StuckStepDownWatch(node.nodeId(), partitions, STUCK_STEP_DOWN_MS);
    }

    /** This node became the leader-ready leader of {@code partition} at {@code nowMs}. */
    void onLeaderReady(int partition, long nowMs) {
        leaderReadySinceMs.set(partition, nowMs);
    }

    /** One round over every hosted partition; never throws. */
    void run() {
        try {
            long nowMs = System.currentTimeMillis();
            ClusterSpec spec = node.spec();
            for (int p = 0; p < spec.partitions(); p++) {
                if (!node.hosts(p)) {
                    continue;
                }
                clearStuckStepDown(p, nowMs);
                int preferred = spec.preferredLeader(p);
                if (!node.leaderRebalanceEnabled() || preferred == node.nodeId() || !node.isLeaderReady(p)
                        || !node.membership().isVoter(preferred) || node.membershipChanges().inProgress()) {
                    preferredCaughtUpSinceMs.set(p, -1);
                    continue;
                }
                if (handOversInFlight.get(p) != 0) {
                    continue;
                }
                boolean caughtUp = node.status(p).replicas().stream().anyMatch(replica -> replica.nodeId() == preferred
                        && replica.lagEntries() <= MAX_LAG_ENTRIES
                        && replica.lastRpcElapsedMs() < tuning.electionTimeoutMinMs());
                if (!caughtUp) {
                    preferredCaughtUpSinceMs.set(p, -1);
                    continue;
                }
                preferredCaughtUpSinceMs.compareAndSet(p, -1, nowMs);
                if (nowMs - leaderReadySinceMs.get(p) >= tuning.leaderBalanceHoldMs()
                        && nowMs - preferredCaughtUpSinceMs.get(p) >= tuning.leaderBalanceHoldMs()) {
                    handOver(p, preferred);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("node {}: leader balancing failed", node.nodeId(), e);
        }
    }

    /**
     * Asks Ratis to move {@code partition}'s leadership to {@code targetNodeId} (-1: to any other
     * replica), counting the transfer until its reply comes.
     */
    CompletableFuture<RaftClientReply> transfer(int partition, int targetNodeId, long timeoutMs) {
        transfersAwaitingReply.incrementAndGet(partition);
        try {
            return requestTransfer(partition, targetNodeId, timeoutMs)
                    .whenComplete((reply, error) -> transfersAwaitingReply.decrementAndGet(partition));
        } catch (IOException e) {
            transfersAwaitingReply.decrementAndGet(partition);
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Ratis's transfer of {@code partition} to {@code targetNodeId}, or to any other replica with -1. */
    private CompletableFuture<RaftClientReply> requestTransfer(int partition, int targetNodeId, long timeoutMs)
            throws IOException {
        RaftPeerId target = targetNodeId < 0 ? null : RaftPeerId.valueOf(node.spec().peer(targetNodeId).peerId());
        return node.raftCalls().transferLeadership(node.spec().raftGroupId(partition), target, timeoutMs);
    }

    /** See {@link StuckStepDownWatch}: a leader Ratis left stepping down is stepped down for real. */
    private void clearStuckStepDown(int partition, long nowMs) {
        try {
            RaftServer.Division division = node.division(partition);
            if (!division.getInfo().isLeader() || transfersAwaitingReply.get(partition) != 0) {
                stuckStepDowns.reset(partition);
                return;
            }
            if (stuckStepDowns.isStuck(partition, division, nowMs)) {
                requestTransfer(partition, -1, TRANSFER_TIMEOUT_MS);
            }
        } catch (IOException e) {
            LOG.debug("node {}: partition {}: {}", node.nodeId(), partition, e.toString());
        }
    }

    private void handOver(int partition, int target) {
        handOversInFlight.set(partition, 1);
        LOG.info("node {}: handing partition {} to its preferred leader {}", node.nodeId(), partition, target);
        transfer(partition, target, TRANSFER_TIMEOUT_MS).whenComplete((reply, error) -> {
            handOversInFlight.set(partition, 0);
            if (error != null || (reply != null && !reply.isSuccess())) {
                LOG.info("node {}: partition {} stays here for now: {}", node.nodeId(), partition,
                        error != null ? error.toString() : reply.getException());
            }
        });
    }
}
