package io.cohort.server.rpc;

import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Channels to other nodes' client ports, for calls one node makes to another (forwarded admin
 * changes, the log-format gate's ClusterStatus). One per address, opened on first use: keyed by the
 * address rather than the node id, because a node replaced under the same id may listen elsewhere
 * (the membership names its new address); a channel to an address no longer in use is closed.
 */
final class PeerChannels implements AutoCloseable {
    private final IntFunction<NodeAddress> addressOf;
    private final Function<NodeAddress, ManagedChannel> factory;
    private final Map<Integer, Map.Entry<NodeAddress, ManagedChannel>> byNode = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** {@code factory}: a channel to a peer's client port, with the node's TLS if it has any. */
    PeerChannels(CohortRaftNode node, Function<NodeAddress, ManagedChannel> factory) {
        this(nodeId -> node.spec().peer(nodeId), factory);
    }

    /** {@code addressOf}: a node's address as the current membership gives it. */
    PeerChannels(IntFunction<NodeAddress> addressOf, Function<NodeAddress, ManagedChannel> factory) {
        this.addressOf = addressOf;
        this.factory = factory;
    }

    /** Plaintext channels, for nodes without TLS and for tests. */
    static Function<NodeAddress, ManagedChannel> plaintext() {
        return peer -> ManagedChannelBuilder.forAddress(peer.host(), peer.clientPort()).usePlaintext().build();
    }

    /**
     * The channel to node {@code nodeId} at the address the current membership gives it. After
     * {@link #close}, a channel already shut down: calls on it fail as to an unreachable peer.
     */
    ManagedChannel channel(int nodeId) {
        NodeAddress address = addressOf.apply(nodeId);
        if (closed) {
            ManagedChannel shut = factory.apply(address);
            shut.shutdownNow();
            return shut;
        }
        Map.Entry<NodeAddress, ManagedChannel> entry = byNode.compute(nodeId, (id, current) -> {
            if (current != null && current.getKey().equals(address)) {
                return current;
            }
            if (current != null) {
                current.getValue().shutdown();
            }
            return Map.entry(address, factory.apply(address));
        });
        return entry.getValue();
    }

    @Override
    public void close() {
        closed = true;
        byNode.values().forEach(entry -> entry.getValue().shutdownNow());
        byNode.clear();
    }
}
