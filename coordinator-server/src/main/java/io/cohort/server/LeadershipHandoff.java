package io.cohort.server;

import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.PartitionStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.RaftClientReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a node stops, hands each partition it leads to a caught-up peer, so its groups move in
 * one round trip instead of waiting out an election timeout. Best effort and bounded: a partition
 * that cannot be handed off (no caught-up peer, Ratis refuses, timeout) fails over by election once
 * the node stops, which loses nothing acknowledged.
 */
final class LeadershipHandoff {
    private static final Logger LOG = LoggerFactory.getLogger(LeadershipHandoff.class);

    /** What happened to one partition this node led. */
    record Outcome(int partition, int targetNodeId, boolean handedOff, String detail) {
    }

    private LeadershipHandoff() {
    }

    /**
     * The peer to hand {@code status}'s partition to: a follower with no lag that answered the leader
     * recently (a dead follower of an idle partition also shows lag 0), the partition's preferred
     * leader first, then the most recently heard from.
     */
    static Optional<Integer> chooseTarget(PartitionStatus status, int preferredLeader, long maxSilenceMs) {
        return status.replicas().stream()
                .filter(r -> r.lagEntries() == 0 && r.lastRpcElapsedMs() <= maxSilenceMs)
                .min(Comparator.<PartitionStatus.Replica>comparingInt(r -> r.nodeId() == preferredLeader ? 0 : 1)
                        .thenComparingLong(PartitionStatus.Replica::lastRpcElapsedMs))
                .map(PartitionStatus.Replica::nodeId);
    }

    /**
     * Starts a transfer for every partition this node leads, all at once, and waits for them at most
     * {@code totalTimeoutMs} in all.
     */
    static List<Outcome> run(CohortRaftNode node, long transferTimeoutMs, long totalTimeoutMs, long maxSilenceMs) {
        Map<Integer, Integer> targets = new LinkedHashMap<>();
        Map<Integer, CompletableFuture<RaftClientReply>> transfers = new LinkedHashMap<>();
        List<Outcome> outcomes = new ArrayList<>();
        for (int p = 0; p < node.partitions(); p++) {
            if (!node.isLeader(p)) {
                continue;
            }
            Optional<Integer> target = chooseTarget(node.status(p), node.spec().preferredLeader(p), maxSilenceMs);
            if (target.isEmpty()) {
                outcomes.add(new Outcome(p, -1, false, "no caught-up peer"));
                continue;
            }
            targets.put(p, target.get());
            transfers.put(p, node.transferLeadership(p, target.get(), transferTimeoutMs));
        }
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(totalTimeoutMs);
        for (Map.Entry<Integer, CompletableFuture<RaftClientReply>> transfer : transfers.entrySet()) {
            int partition = transfer.getKey();
            outcomes.add(await(partition, targets.get(partition), transfer.getValue(), deadlineNanos));
        }
        outcomes.sort(Comparator.comparingInt(Outcome::partition));
        for (Outcome outcome : outcomes) {
            if (outcome.handedOff()) {
                LOG.info("shutdown: partition {} handed to node {}", outcome.partition(), outcome.targetNodeId());
            } else {
                LOG.warn("shutdown: partition {} not handed off ({}); it fails over by election when this node stops",
                        outcome.partition(), outcome.detail());
            }
        }
        return outcomes;
    }

    private static Outcome await(int partition, int target, CompletableFuture<RaftClientReply> transfer,
                                 long deadlineNanos) {
        try {
            long waitNanos = Math.max(0, deadlineNanos - System.nanoTime());
            RaftClientReply reply = transfer.get(waitNanos, TimeUnit.NANOSECONDS);
            if (reply.isSuccess()) {
                return new Outcome(partition, target, true, "");
            }
            return new Outcome(partition, target, false, "Ratis refused: " + reply.getException());
        } catch (TimeoutException e) {
            return new Outcome(partition, target, false, "timed out");
        } catch (ExecutionException e) {
            return new Outcome(partition, target, false, "failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(partition, target, false, "interrupted");
        }
    }
}
