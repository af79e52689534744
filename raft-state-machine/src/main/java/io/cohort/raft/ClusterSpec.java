package io.cohort.raft;

import io.cohort.core.GroupConfig;
import io.cohort.core.placement.ReplicaPlacement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;

/**
 * What every node of one cluster must agree on, fixed when the cluster is created: its id, the
 * number of offsets partitions, the peers, the group settings the state machines apply with, the
 * replication factor and the nodes' rack labels (which together place the replicas,
 * {@link ReplicaPlacement}). Changing any of them would route groups elsewhere, move replicas or
 * make replicas diverge, so it is written to the data dir at first start and checked at every start
 * ({@link ClusterMetadata}).
 *
 * @param replicationFactor how many nodes hold each partition; {@code >= peers} (the layout of every
 *                          cluster before the setting existed) puts every partition on every node
 * @param racks             node id to rack (or zone) label: empty, or a label for every peer
 */
public record ClusterSpec(String clusterId, int partitions, List<NodeAddress> peers, GroupConfig groupConfig,
                          int replicationFactor, Map<Integer, String> racks, List<List<Integer>> placement) {
    /** Every partition on every node: the layout before the replication factor existed. */
    public ClusterSpec(String clusterId, int partitions, List<NodeAddress> peers, GroupConfig groupConfig) {
        this(clusterId, partitions, peers, groupConfig, peers.size(), Map.of());
    }

    public ClusterSpec(String clusterId, int partitions, List<NodeAddress> peers, GroupConfig groupConfig,
                       int replicationFactor, Map<Integer, String> racks) {
        this(clusterId, partitions, peers, groupConfig, replicationFactor, racks, null);
    }

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
        if (replicationFactor < 1 || replicationFactor > peers.size()) {
            throw new IllegalArgumentException("the replication factor must be in 1.." + peers.size()
                    + " (the number of nodes), got " + replicationFactor);
        }
        racks = Map.copyOf(new TreeMap<>(racks));
        for (Integer id : racks.keySet()) {
            if (peers.stream().noneMatch(peer -> peer.nodeId() == id)) {
                throw new IllegalArgumentException("a rack label names node " + id + ", which is not a peer");
            }
        }
        List<ReplicaPlacement.Node> nodes = new ArrayList<>();
        for (NodeAddress peer : peers) {
            nodes.add(new ReplicaPlacement.Node(peer.nodeId(), Optional.ofNullable(racks.get(peer.nodeId()))));
        }
        // Derived, never configured: the placement is a function of the fields above.
        placement = everywhereFirst(ReplicaPlacement.place(partitions, nodes, replicationFactor), peers);
    }

    /**
     * Partition 0 holds the ACLs, which every node enforces, so every node holds a voting replica
     * of it whatever the replication factor: its replica list is the placement's, then the other
     * nodes in id order (the placement's first is still the preferred leader).
     */
    private static List<List<Integer>> everywhereFirst(List<List<Integer>> placed, List<NodeAddress> peers) {
        List<Integer> partitionZero = new ArrayList<>(placed.get(0));
        for (NodeAddress peer : peers) {
            if (!partitionZero.contains(peer.nodeId())) {
                partitionZero.add(peer.nodeId());
            }
        }
        List<List<Integer>> placement = new ArrayList<>(placed);
        placement.set(0, List.copyOf(partitionZero));
        return List.copyOf(placement);
    }

    /**
     * This cluster with another member list (a node added or removed online, see
     * {@link Membership}): the same id, partitions and group settings; the replication factor as
     * created, capped at the member count; rack labels of the remaining members. The placement is
     * derived again from the new list.
     */
    public ClusterSpec withMembers(List<NodeAddress> members) {
        List<NodeAddress> sorted = new ArrayList<>(members);
        sorted.sort(java.util.Comparator.comparingInt(NodeAddress::nodeId));
        Map<Integer, String> keptRacks = new TreeMap<>();
        for (NodeAddress member : sorted) {
            String rack = racks.get(member.nodeId());
            if (rack != null) {
                keptRacks.put(member.nodeId(), rack);
            }
        }
        return new ClusterSpec(clusterId, partitions, sorted, groupConfig,
                Math.min(replicationFactor, sorted.size()), keptRacks);
    }

    /** The nodes holding a replica of {@code partition}, the preferred leader first. */
    public List<Integer> replicas(int partition) {
        return placement.get(partition);
    }

    /** The partitions {@code nodeId} holds a replica of, ascending. */
    public List<Integer> partitionsOf(int nodeId) {
        List<Integer> held = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            if (hosts(nodeId, p)) {
                held.add(p);
            }
        }
        return held;
    }

    /** Whether {@code nodeId} holds a replica of {@code partition}. */
    public boolean hosts(int nodeId, int partition) {
        return placement.get(partition).contains(nodeId);
    }

    /** Whether some partition is not on every node (replication factor below the node count). */
    public boolean partial() {
        return replicationFactor < peers.size();
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
     * The Ratis peers of {@code partition}'s replicas, the preferred leader first, as its group is
     * created (no client address: members added later carry theirs, {@link Membership#raftPeer}).
     */
    public List<RaftPeer> raftPeers(int partition) {
        List<RaftPeer> peers = new ArrayList<>();
        for (int replica : replicas(partition)) {
            NodeAddress address = peer(replica);
            peers.add(RaftPeer.newBuilder().setId(address.peerId()).setAddress(address.raftAddress()).build());
        }
        return peers;
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
     * The node whose replica should lead {@code partition}: the first of its replicas
     * ({@link ReplicaPlacement}; the {@code (p mod N)}-th peer in id order when every node holds
     * every partition), which spreads leaders evenly and brings them back to the same node after it
     * restarts.
     */
    public int preferredLeader(int partition) {
        return placement.get(partition).get(0);
    }
}
