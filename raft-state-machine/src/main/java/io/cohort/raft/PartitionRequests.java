package io.cohort.raft;

import io.cohort.core.command.Command;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.ratis.protocol.Message;

/**
 * The front end's way into a partition's replica on this node: commands proposed through its
 * {@link Proposer}, reads of its shard (linearizable through Ratis's read index, or local), each
 * refused with a {@link ProposalException} naming the leader as known when this node cannot serve it.
 */
final class PartitionRequests {
    /** The name of every {@link #READ_COMPLETIONS} thread starts with this. */
    static final String READ_COMPLETION_THREAD_PREFIX = "cohort-read-completion-";
    /**
     * Where linearizable reads complete (see {@link #readAnyReplica}); shared by the nodes of a JVM.
     * Continuations should still be short: a few threads serve every partition's reads.
     */
    private static final Executor READ_COMPLETIONS = Executors.newFixedThreadPool(
            Math.max(2, Runtime.getRuntime().availableProcessors()), new ThreadFactory() {
                private final AtomicInteger threads = new AtomicInteger();

                @Override
                public Thread newThread(Runnable r) {
                    Thread thread = new Thread(r, READ_COMPLETION_THREAD_PREFIX + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }
            });

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

    /**
     * See {@link CohortRaftNode#readAnyReplica}. The read itself runs on the Ratis thread that
     * learns the read index is applied (it must: that is the linearizable point), but the returned
     * future completes on {@link #READ_COMPLETIONS}, never on that thread. Ratis completes read
     * indexes while holding its own locks (a leader's {@code ReadIndexHeartbeats} listeners' monitor
     * on a heartbeat reply; the division's lock when a step-down fails them), so a caller's
     * continuation that waited for anything Ratis locks could deadlock the replica: a backup's
     * snapshot request made that way once did (waiting for the division's lock, which a step-down
     * held while waiting for the listeners' monitor; reproduced by
     * {@code ReadCompletionDeadlockTest}). Completing elsewhere rules that out for every caller, at
     * one thread hand-off per linearizable read that Ratis completes later. A read Ratis answers
     * inside the submit, on the calling thread (a leader with a valid lease that has applied the
     * read index), is returned already complete: its continuations then run on the caller's thread,
     * outside Ratis, and the hand-off would only cost a wake-up.
     */
    <T> CompletableFuture<T> readAnyReplica(int partition, Function<GroupCoordinatorShard, T> read) {
        if (!node.hosts(partition)) {
            return CompletableFuture.failedFuture(refuseUnlessLeaderReady(partition));
        }
        CompletableFuture<T> onRatisThread = new CompletableFuture<>();
        PartitionStateMachine stateMachine = stateMachine(partition);
        Message message = stateMachine.registerRead(() -> {
            try {
                onRatisThread.complete(read.apply(stateMachine.shard()));
            } catch (RuntimeException e) {
                onRatisThread.completeExceptionally(e);
            }
        });
        raftCalls.read(node.spec().raftGroupId(partition), message, node.tuning().readTimeoutMs())
                .whenComplete((r, error) -> {
                    if (onRatisThread.isDone()) {
                        return;
                    }
                    stateMachine.abandonRead(message);
                    Throwable cause = error != null ? error : r.getException();
                    ProposalException.Kind kind = r != null && r.getNotLeaderException() != null
                            ? ProposalException.Kind.NOT_LEADER : ProposalException.Kind.INDETERMINATE;
                    onRatisThread.completeExceptionally(new ProposalException(kind, leaders.recorded(partition),
                            "partition " + partition + ": linearizable read failed: " + cause, cause));
                });
        if (onRatisThread.isDone()) {
            // Read and completed on this thread, inside the submit above (a leader's lease was valid
            // and the replica had applied the read index): no Ratis lock is held here any more, so
            // the caller may continue on this thread; the hand-off below would only cost a wake-up.
            return onRatisThread;
        }
        // whenCompleteAsync, not thenApplyAsync: the latter passes a failure on synchronously.
        CompletableFuture<T> result = new CompletableFuture<>();
        onRatisThread.whenCompleteAsync((value, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(value);
            }
        }, READ_COMPLETIONS);
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
