package io.cohort.raft;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftClientReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who leads a partition during a membership change ({@link MembershipChanges}), as this node sees
 * it: moving leadership off a node before it leaves a group, taking a partition over before
 * changing its configuration (only a leader changes it), and counting the voters that answer for
 * the strict quorum check.
 */
final class PartitionLeadership {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLeadership.class);
    private static final long TRANSFER_RETRY_PAUSE_MS = 1_000;

    private final CohortRaftNode node;

    PartitionLeadership(CohortRaftNode node) {
        this.node = node;
    }

    /** Partition {@code p}'s configuration as this node's replica sees it; empty where it has no replica. */
    Membership groupConf(int p) {
        return node.hosts(p) ? node.groupMembership(p).orElse(new Membership(List.of(), List.of(), -1))
                : new Membership(List.of(), List.of(), -1);
    }

    /** Hands {@code p}'s leadership from {@code id} (this node) to the most caught-up other voter. */
    int moveOff(int p, int id, Consumer<String> say) {
        return moveOff(p, id, null, say);
    }

    /** Hands {@code p}'s leadership from {@code id} (this node) to the most caught-up voter of {@code to} (null: any). */
    int moveOff(int p, int id, Set<Integer> to, Consumer<String> say) {
        PartitionStatus status = node.status(p);
        Membership group = groupConf(p);
        PartitionStatus.Replica best = status.replicas().stream()
                .filter(r -> r.nodeId() != id && group.isVoter(r.nodeId()))
                .filter(r -> to == null || to.contains(r.nodeId()))
                .filter(r -> r.lastRpcElapsedMs() < node.tuning().electionTimeoutMaxMs())
                .min(Comparator.comparingLong(PartitionStatus.Replica::lagEntries))
                .orElseThrow(() -> new MembershipException(MembershipException.Failure.QUORUM, -1, "partition " + p
                        + ": no other voter answers to take leadership from node " + id));
        say.accept("partition " + p + ": moving leadership from node " + id + " to node " + best.nodeId());
        for (int attempt = 1; ; attempt++) {
            try {
                RaftClientReply reply = MembershipWaits.await(node.transferLeadership(p, best.nodeId(), 10_000),
                        "partition " + p + ": transfer leadership to node " + best.nodeId());
                LOG.info("node {}: partition {} handed to node {} before removing node {}: {}", node.nodeId(), p,
                        best.nodeId(), id, reply.isSuccess());
                return best.nodeId();
            } catch (MembershipException e) {
                // A transfer that failed may still have moved the leadership off this node, to
                // another voter than the one asked (seen in ReplicaMoveIT: an election during the
                // transfer; the retry then failed NotLeaderException): that is what was wanted.
                int movedTo = leaderElsewhere(p, id);
                if (movedTo >= 0) {
                    say.accept("partition " + p + ": " + e.getMessage() + "; the leadership moved to node " + movedTo
                            + " meanwhile");
                    return movedTo;
                }
                if (attempt == 2) {
                    throw e;
                }
                // Ratis refuses a transfer now and then (DIFFERENT_LEADER: the target was not elected in
                // time, e.g. just promoted on a busy machine): once more before the change gives up.
                say.accept("partition " + p + ": " + e.getMessage() + "; trying once more");
                MembershipWaits.sleep(TRANSFER_RETRY_PAUSE_MS);
            }
        }
    }

    /**
     * The node that leads {@code p} now if this node ({@code id}) no longer does: waits up to two
     * election timeouts for it to be known. -1 while this node still leads, or none is known.
     */
    int leaderElsewhere(int p, int id) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2L * node.tuning().electionTimeoutMaxMs());
        while (!node.isLeader(p)) {
            int leader = node.leaderOf(p);
            if (leader >= 0 && leader != id) {
                return leader;
            }
            if (System.nanoTime() > deadline) {
                return -1;
            }
            MembershipWaits.sleep(MembershipWaits.POLL_MS);
        }
        return -1;
    }

    /**
     * The leader plus the voters (other than {@code excluded}) it heard from within the minimum
     * election timeout (a live follower answers a heartbeat every half of it), waiting up to two
     * maximum election timeouts for {@code wanted} of them: a leader elected an instant ago (a
     * partition handed over for the change) has not heard from its followers yet, nor has any
     * leader from a voter restarted an instant ago (a re-run after a crash), and refusing either
     * for a quorum it has was seen in ReplicaMoveIT. A voter killed an instant ago still counts:
     * as for etcd, the check is as fresh as the leader's view.
     */
    int liveVoters(int p, int excluded, int wanted) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2L * node.tuning().electionTimeoutMaxMs());
        int live = liveVotersNow(p, excluded);
        while (live < wanted && System.nanoTime() < deadline) {
            MembershipWaits.sleep(MembershipWaits.POLL_MS);
            live = liveVotersNow(p, excluded);
        }
        return live;
    }

    private int liveVotersNow(int p, int excluded) {
        Membership group = groupConf(p);
        long limitMs = node.tuning().electionTimeoutMinMs();
        int live = node.nodeId() == excluded ? 0 : 1;
        for (PartitionStatus.Replica r : node.status(p).replicas()) {
            if (r.nodeId() != excluded && group.isVoter(r.nodeId()) && r.lastRpcElapsedMs() < limitMs) {
                live++;
            }
        }
        return live;
    }

    /**
     * Makes this node the leader of {@code p} if another node leads it: that node is asked to hand
     * it over (the leader balancer of this node waits while a change runs, so it stays here until
     * the change is done; then the balancer gives it back to its preferred leader).
     */
    void leadHere(int p, LeaderHandover handover, Consumer<String> say) {
        if (node.isLeaderReady(p)) {
            return;
        }
        say.accept("partition " + p + ": asking node " + node.leaderOf(p) + ", its leader, to hand it to node "
                + node.nodeId());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MembershipWaits.HANDOVER_TIMEOUT_MS);
        CompletableFuture<?> asked = null;
        String lastFailure = "";
        while (!node.isLeaderReady(p) && System.nanoTime() < deadline) {
            if (asked == null || asked.isDone()) {
                if (asked != null) {
                    // Answered, and this node is still not the leader: the leader was dead, changed
                    // meanwhile (an election), or the transfer failed. Ask whoever leads now.
                    if (asked.isCompletedExceptionally()) {
                        lastFailure = ": " + asked.handle((r, e) -> String.valueOf(e)).join();
                    }
                    MembershipWaits.sleep(MembershipWaits.POLL_MS);
                }
                asked = handover.request(p, node.nodeId());
            }
            MembershipWaits.sleep(MembershipWaits.POLL_MS);
        }
        if (!node.isLeaderReady(p)) {
            throw new MembershipException(MembershipException.Failure.NOT_LEADER, node.leaderOf(p), "node " + node.nodeId()
                    + " does not lead partition " + p + " (leader: " + node.leaderOf(p) + ") and it was not handed "
                    + "over within " + MembershipWaits.HANDOVER_TIMEOUT_MS + " ms" + lastFailure + "; re-run the command");
        }
    }

    /** Throws NOT_LEADER (naming the leader) unless this node leads {@code p} and has applied an entry of its term. */
    void requireLeaderOf(int p) {
        if (!node.isLeaderReady(p)) {
            throw new MembershipException(MembershipException.Failure.NOT_LEADER, node.leaderOf(p), "node " + node.nodeId()
                    + " does not lead partition " + p + " (leader: " + node.leaderOf(p) + ")");
        }
    }
}
