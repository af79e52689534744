package io.cohort.raft;

import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node does about its own replicas' stalled applies ({@link StalledApplyWatch} decides which
 * are stalled): logs each stall once with a thread dump, and hands a partition it leads while
 * stalled to its most caught-up live voter. Runs on the node's timer thread.
 */
final class StalledApplies {
    private static final Logger LOG = LoggerFactory.getLogger(StalledApplies.class);

    private final CohortRaftNode node;
    private final StalledApplyWatch watch;

    StalledApplies(CohortRaftNode node, StalledApplyWatch watch) {
        this.node = node;
        this.watch = watch;
    }

    /** One look at every hosted replica. */
    void check() {
        long nowMs = System.currentTimeMillis();
        for (int p : node.hostedPartitions()) {
            long committed = node.committedIndex(p);
            long applied = node.appliedIndex(p);
            boolean leads = node.isLeader(p);
            if (watch.observe(p, committed, applied, nowMs)) {
                LOG.error("node {}: partition {} has applied nothing for {} ms: applied index {}, committed {}; its"
                        + " apply thread looks stuck{}. Restarting the node recovers the replica. Thread dump of node"
                        + " {}:\n{}", node.nodeId(), p, nowMs - watch.stillSinceMs(p), applied, committed,
                        leads ? " (it leads the partition, which then answers nothing: handing it to"
                                + " another replica)" : "", node.nodeId(), StalledApplyWatch.threadDump());
            }
            if (leads && watch.handOnDue(p, nowMs)) {
                handOn(p);
            }
        }
    }

    /** How many stalls were reported since the node started. */
    long reported() {
        return watch.stallsReported();
    }

    /** Hands {@code partition}, whose apply here is stalled, to its most caught-up live voter. */
    private void handOn(int partition) {
        List<Integer> voters = node.groupVoters(partition);
        long liveWithinMs = node.tuning().electionTimeoutMinMs();
        int target = node.status(partition).replicas().stream()
                .filter(r -> voters.contains(r.nodeId()) && r.lastRpcElapsedMs() < liveWithinMs)
                .max(Comparator.comparingLong(PartitionStatus.Replica::matchIndex))
                .map(PartitionStatus.Replica::nodeId).orElse(-1);
        LOG.warn("node {}: handing partition {} to node {} for its stalled apply here", node.nodeId(), partition,
                target);
        node.leaderBalancer().transfer(partition, target, LeaderBalancer.TRANSFER_TIMEOUT_MS)
                .whenComplete((reply, error) -> {
                    if (error != null || !reply.isSuccess()) {
                        LOG.warn("node {}: handing partition {} to node {} failed: {}", node.nodeId(), partition,
                                target, error != null ? error.toString() : String.valueOf(reply.getException()));
                    }
                });
    }
}
