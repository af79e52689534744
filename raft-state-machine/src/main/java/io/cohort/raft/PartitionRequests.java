package io.cohort.raft;

import io.cohort.core.command.Command;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.ratis.protocol.Message;

/**
 * The front end's way into a partition's replica on this node: commands proposed through its
 * {@link Proposer}, reads of its shard (linearizable through Ratis's read index, or local), each
 * refused with a {@link ProposalException} naming the leader as known when this node cannot serve it.
 */
final class PartitionRequests {
    private final CohortRaftNode node;
    private final HostedReplicas replicas;
    private final PartitionLeaders leaders;
    private final LocalRaftCalls raftCalls;

    PartitionRequests(CohortRaftNode node, HostedReplicas replicas, PartitionLeaders leaders, LocalRaftCalls raftCalls) {
        this.node = node;
        this.replicas = replicas;
        this.leaders = leaders;
        this.raftCalls = raftCalls;
    }

    /** See {@link CohortRaftNode#submit}. */
    CompletableFuture<Result> submit(int partition, Command command) {
        ProposalException refusal = refuseUnlessLeaderReady(partition);
        if (refusal != null) {
            return CompletableFuture.failedFuture(refusal);
        }
        HostedReplicas.Replica replica = replicas.get(partition);
        if (replica == null) {
            return CompletableFuture.failedFuture(new ProposalException(ProposalException.Kind.NOT_LEADER, -1,
                    "node " + node.nodeId() + " holds no replica of partition " + partition, null));
        }
        return replica.proposer().submit(command);
    }

    /** See {@link CohortRaftNode#read}. */
    <T> CompletableFuture<T> read(int partition, boolean linearizable, Function<GroupCoordinatorShard, T> read) {
        if (!node.hosts(partition)) {
            return CompletableFuture.failedFuture(refuseUnlessLeaderReady(partition));
        }
        GroupCoordinatorShard shard = stateMachine(partition).shard();
        if (!linearizable) {
            return CompletableFuture.completedFuture(read.apply(shard));
        }
        ProposalException refusal = refuseUnlessLeaderReady(partition);
        if (refusal != null) {
            return CompletableFuture.failedFuture(refusal);
        }
        return readAnyReplica(partition, read);
    }

    /** See {@link CohortRaftNode#readAnyReplica}. */
    <T> CompletableFuture<T> readAnyReplica(int partition, Function<GroupCoordinatorShard, T> read) {
        if (!node.hosts(partition)) {
            return CompletableFuture.failedFuture(refuseUnlessLeaderReady(partition));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        PartitionStateMachine stateMachine = stateMachine(partition);
        Message message = stateMachine.registerRead(() -> {
            try {
                result.complete(read.apply(stateMachine.shard()));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        raftCalls.read(node.spec().raftGroupId(partition), message, node.tuning().readTimeoutMs())
                .whenComplete((r, error) -> {
                    if (result.isDone()) {
                        return;
                    }
                    stateMachine.abandonRead(message);
                    Throwable cause = error != null ? error : r.getException();
                    ProposalException.Kind kind = r != null && r.getNotLeaderException() != null
                            ? ProposalException.Kind.NOT_LEADER : ProposalException.Kind.INDETERMINATE;
                    result.completeExceptionally(new ProposalException(kind, leaders.recorded(partition),
                            "partition " + partition + ": linearizable read failed: " + cause, cause));
                });
        return result;
    }

    /**
     * This node's state machine of {@code partition}.
     *
     * @throws ProposalException (NOT_LEADER, with the leader as known) if this node holds no replica of it
     */
    PartitionStateMachine stateMachine(int partition) {
        HostedReplicas.Replica replica = replicas.get(partition);
        PartitionStateMachine stateMachine = replica == null ? null : replica.stateMachine();
        if (stateMachine == null) {
            throw new ProposalException(ProposalException.Kind.NOT_LEADER, leaders.recorded(partition),
                    "node " + node.nodeId() + " holds no replica of partition " + partition, null);
        }
        return stateMachine;
    }

    private ProposalException refuseUnlessLeaderReady(int partition) {
        int nodeId = node.nodeId();
        if (node.removedFromCluster()) {
            return new ProposalException(ProposalException.Kind.NOT_LEADER, -1, "node " + nodeId
                    + " was removed from cluster " + node.spec().clusterId()
                    + " and serves nothing; its data can be deleted", null);
        }
        if (!node.isLeader(partition)) {
            return new ProposalException(ProposalException.Kind.NOT_LEADER, leaders.recorded(partition),
                    "node " + nodeId + " does not lead partition " + partition, null);
        }
        if (!node.isLeaderReady(partition)) {
            return new ProposalException(ProposalException.Kind.NOT_READY, nodeId,
                    "node " + nodeId + " leads partition " + partition + " but is not ready yet", null);
        }
        return null;
    }
}
