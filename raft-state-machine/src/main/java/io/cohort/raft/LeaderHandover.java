package io.cohort.raft;

import java.util.concurrent.CompletableFuture;

/**
 * Asks the node that leads {@code partition} now to hand its leadership to {@code targetNode}
 * (the node running the change). Configuration changes run on a partition's leader, and with
 * several partitions the leaders are spread over the nodes; Ratis lets only a leader start a
 * transfer, so the request goes to that node, over the client port (the server's
 * TransferLeadership, authorized as the caller of the change).
 */
@FunctionalInterface
public interface LeaderHandover {
    /** No other node is asked: a partition led elsewhere fails the change with NOT_LEADER. */
    LeaderHandover NONE = (partition, targetNode) -> CompletableFuture.failedFuture(
            new IllegalStateException("no way to ask another node to hand over leadership"));

    CompletableFuture<?> request(int partition, int targetNode);
}
