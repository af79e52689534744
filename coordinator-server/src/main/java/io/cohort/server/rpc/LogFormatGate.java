package io.cohort.server.rpc;

import com.google.common.util.concurrent.ListenableFuture;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.log.LogCodec;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The gate in front of every command of a newer log format: a node proposes an entry of format N
 * only once every node of the cluster reads N (each node's ClusterStatus
 * {@code max_log_format_version}; a node that does not answer counts as not confirmed), since a
 * node that reads less stops applying the partition at the first such entry
 * ({@code NewerLogFormatException}). Used for format 3 (online group settings) and format 4
 * (KIP-848: the topic registry and consumer groups). The answer is UNSUPPORTED_VERSION with the
 * message this gate returns, and nothing is proposed.
 */
final class LogFormatGate {
    /** What a ClusterStatus answer without the field means: the builds before it read format 2. */
    static final int LOG_FORMAT_OF_OLDER_BUILDS = 2;
    private static final long PEER_CALL_TIMEOUT_MS = 5_000;

    private final CohortRaftNode node;
    private final IntFunction<ManagedChannel> channelToNode;

    /** {@code channelToNode}: the channel to a node's client port. */
    LogFormatGate(CohortRaftNode node, IntFunction<ManagedChannel> channelToNode) {
        this.node = node;
        this.channelToNode = channelToNode;
    }

    /**
     * Null if every node reads log format {@code requiredVersion}; else a message naming the nodes
     * that do not (or did not answer), beginning with {@code what} ("changing group settings online").
     */
    CompletableFuture<String> refusal(int requiredVersion, String what) {
        List<CompletableFuture<String>> checks = new ArrayList<>();
        for (NodeAddress peer : node.spec().peers()) {
            if (peer.nodeId() == node.nodeId()) {
                checks.add(CompletableFuture.completedFuture(LogCodec.MAX_READABLE_FORMAT_VERSION >= requiredVersion
                        ? null : "node " + peer.nodeId() + " reads log format " + LogCodec.MAX_READABLE_FORMAT_VERSION));
                continue;
            }
            ListenableFuture<io.cohort.api.v1.ClusterStatusResponse> status = ClusterAdminGrpc
                    .newFutureStub(channelToNode.apply(peer.nodeId()))
                    .withDeadlineAfter(PEER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .clusterStatus(ClusterStatusRequest.newBuilder().setRoutingOnly(true).build());
            checks.add(ListenableFutures.toCompletable(status).handle((answer, failure) -> {
                if (failure != null) {
                    return "node " + peer.nodeId() + " (" + peer.host() + ":" + peer.clientPort()
                            + ") did not answer, so its log format is unknown";
                }
                int version = answer.getMaxLogFormatVersion() == 0 ? LOG_FORMAT_OF_OLDER_BUILDS
                        : answer.getMaxLogFormatVersion();
                return version >= requiredVersion ? null
                        : "node " + peer.nodeId() + " reads log format up to " + version + " (an older build)";
            }));
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<String> problems = checks.stream().map(CompletableFuture::join).filter(Objects::nonNull).toList();
            return problems.isEmpty() ? null : what + " writes log entries of format " + requiredVersion
                    + ", which every node must read, and " + String.join("; ", problems)
                    + ". Upgrade those nodes (or start them) and run the change again; nothing was changed";
        });
    }
}
