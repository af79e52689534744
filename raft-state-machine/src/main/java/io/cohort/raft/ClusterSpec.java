package io.cohort.raft;

import io.cohort.core.GroupConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * What every node of one cluster must agree on, fixed when the cluster is created: its id, the
 * number of offsets partitions, the peers, and the group settings the state machines apply with.
 * Changing any of them would route groups elsewhere or make replicas diverge, so it is written to
 * the data dir at first start and checked at every start ({@link ClusterMetadata}).
 */
public record ClusterSpec(String clusterId, int partitions, List<NodeAddress> peers, GroupConfig groupConfig) {
    public ClusterSpec {
        Objects.requireNonNull(clusterId, "clusterId");
        if (clusterId.isBlank()) {
            throw new IllegalArgumentException("clusterId must not be blank");
        }
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be positive, got " + partitions);
        }
        peers = List.copyOf(peers);
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one peer");
        }
        for (int i = 1; i < peers.size(); i++) {
            if (peers.get(i).nodeId() <= peers.get(i - 1).nodeId()) {
                throw new IllegalArgumentException("peers must have distinct ids in increasing order; got "
                        + peers.stream().map(NodeAddress::toSpec).collect(Collectors.joining(",")));
            }
        }
        Objects.requireNonNull(groupConfig, "groupConfig");
    }

    /** The peer with id {@code nodeId}. */
    public NodeAddress peer(int nodeId) {
        for (NodeAddress peer : peers) {
            if (peer.nodeId() == nodeId) {
                return peer;
            }
        }
        throw new IllegalArgumentException("node " + nodeId + " is not a peer of cluster " + clusterId + ": "
                + peers.stream().map(NodeAddress::toSpec).collect(Collectors.joining(",")));
    }

    public boolean hasPeer(int nodeId) {
        return peers.stream().anyMatch(p -> p.nodeId() == nodeId);
    }

    /**
     * The Raft group id of {@code partition}: a name-based UUID of the cluster id and the partition,
     * so every node derives the same id without coordination, and two clusters never share one.
     */
    public RaftGroupId raftGroupId(int partition) {
        String name = "cohort/" + clusterId + "/offsets-partition/" + partition;
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The node whose replica should lead {@code partition}: the {@code (p mod N)}-th peer in id order,
     * which spreads leaders evenly and brings them back to the same node after it restarts.
     */
    public int preferredLeader(int partition) {
        return peers.get(partition % peers.size()).nodeId();
    }
}
