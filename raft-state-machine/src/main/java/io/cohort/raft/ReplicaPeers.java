package io.cohort.raft;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Calls to other nodes a replica move needs: the server's, over their client ports, as the
 * caller of the change (as {@link LeaderHandover}).
 */
public interface ReplicaPeers {
    /** No other node is asked: a move that needs one fails. */
    ReplicaPeers NONE = new ReplicaPeers() {
        @Override
        public CompletableFuture<?> hostReplica(int nodeId, int partition) {
            return CompletableFuture.failedFuture(new IllegalStateException("no way to ask node " + nodeId));
        }

        @Override
        public CompletableFuture<List<String>> movePartition(int nodeId, int partition,
                                                             List<NodeAddress> replicas) {
            return CompletableFuture.failedFuture(new IllegalStateException("no way to ask node " + nodeId));
        }
    };

    /** Asks node {@code nodeId} to create an empty replica of {@code partition} (if it has none). */
    CompletableFuture<?> hostReplica(int nodeId, int partition);

    /**
     * Asks node {@code nodeId} to move {@code partition}'s replicas to {@code replicas}
     * ({@link MembershipChanges#movePartitionHere}); completes with its steps, or fails with a
     * {@link MembershipException} (NOT_LEADER: it holds no voting replica, ask another).
     */
    CompletableFuture<List<String>> movePartition(int nodeId, int partition, List<NodeAddress> replicas);
}
