package io.cohort.raft;

import io.cohort.core.shard.Result;
import java.util.List;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis events of every partition a node hosts, routed to what runs beside Ratis: an applied
 * entry to its proposer (which answers the callers) and to the leader's timers, leadership changes
 * to the routing view, the timers and the balancer, and all of them to the node's
 * {@link PartitionListener}. Called on Ratis's threads (the apply thread, the election thread).
 */
final class RaftEventRouter implements PartitionStateMachine.Hooks {
    private static final Logger LOG = LoggerFactory.getLogger(RaftEventRouter.class);

    private final CohortRaftNode node;

    RaftEventRouter(CohortRaftNode node) {
        this.node = node;
    }

    @Override
    public void onApplied(int partition, long index, ClientId entryClientId, long entryCallId, List<Result> results) {
        HostedReplicas.Replica replica = node.replica(partition);
        if (replica == null) {
            // Released meanwhile (moved to other nodes): nothing here waits for it.
            return;
        }
        if (node.proposerClientId().equals(entryClientId)) {
            replica.proposer().onApplied(entryCallId, results);
        }
        LeaderTimers partitionTimers = replica.timers();
        if (partitionTimers.isActive()) {
            for (Result result : results) {
                partitionTimers.apply(result.timers());
            }
        }
        node.listener().onApplied(partition, results);
    }

    @Override
    public void onLeaderChanged(int partition, RaftPeerId leaderId) {
        int leader = leaderId == null ? -1 : Membership.nodeIdOf(leaderId.toString());
        node.leaders().note(partition, leader);
        HostedReplicas.Replica replica = node.replica(partition);
        if (leader != node.nodeId() && replica != null) {
            replica.timers().deactivate();
        }
        node.listener().onLeaderChanged(partition, leader);
    }

    @Override
    public void onLeaderReady(int partition) {
        node.leaderBalancer().onLeaderReady(partition, System.currentTimeMillis());
        // Arm every timer the replicated state implies; members get a fresh session to find us.
        HostedReplicas.Replica replica = node.replica(partition);
        if (replica == null) {
            return;
        }
        replica.timers().activate(replica.stateMachine().shard().onLeaderReady(System.currentTimeMillis()));
        LOG.info("node {}: leader-ready for partition {}", node.nodeId(), partition);
        node.listener().onLeaderReady(partition);
    }

    @Override
    public void onNotLeader(int partition) {
        HostedReplicas.Replica replica = node.replica(partition);
        if (replica != null) {
            replica.timers().deactivate();
        }
        // Until Ratis names the next leader, this node must not route clients to itself.
        node.leaders().forgetSelf(partition);
        LOG.info("node {}: stepped down from partition {}", node.nodeId(), partition);
        node.listener().onStepDown(partition);
    }

    @Override
    public void onRemovedFromGroup(int partition) {
        if (partition != 0) {
            // A move took it away (released), or a member's replica closed for a moment (opened
            // again): decided off Ratis's thread (ReplicaLifecycle.releaseMoved), before the
            // storage watch takes the closed replica for a failed disk.
            node.lifecycle().onShutDownByRatis(partition);
            node.runOnTimerThread(node::releaseMovedReplicas);
            return;
        }
        Membership now;
        try {
            now = node.groupMembership(0).orElse(null);
        } catch (RuntimeException e) {
            now = null;
        }
        MembershipView view = node.membershipView();
        if (view.onReplicaOfPartitionZeroClosed(now, System.currentTimeMillis()) == MembershipView.ClosedReplica.REOPEN) {
            // Off Ratis's election thread, which is still finishing the close.
            node.runOnTimerThread(() -> {
                if (node.lifecycle().reopen(0)) {
                    view.onReplicaOfPartitionZeroReopened(System.currentTimeMillis());
                }
            });
        }
    }

    @Override
    public void onStorageFailed(int partition, String what, Throwable cause) {
        node.storageWatch().report("the " + what + " of partition " + partition + " could not be written", cause);
    }
}
