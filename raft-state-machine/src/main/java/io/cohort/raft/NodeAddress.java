package io.cohort.raft;

import java.util.Objects;

/**
 * One node of the cluster as every other node knows it.
 *
 * @param nodeId     the node's id, distinct in the cluster (its Raft peer id is "n{nodeId}")
 * @param host       the host it listens on (loopback for local clusters)
 * @param raftPort   the one port all its Raft groups share
 * @param clientPort the gRPC port clients call
 */
public record NodeAddress(int nodeId, String host, int raftPort, int clientPort) {
    public NodeAddress {
        if (nodeId < 0) {
            throw new IllegalArgumentException("nodeId must be >= 0, got " + nodeId);
        }
        Objects.requireNonNull(host, "host");
        if (raftPort <= 0 || raftPort > 65535 || clientPort <= 0 || clientPort > 65535) {
            throw new IllegalArgumentException("ports must be in 1..65535: raft " + raftPort + ", client " + clientPort);
        }
    }

    /** The Raft peer id of this node. */
    public String peerId() {
        return "n" + nodeId;
    }

    public String raftAddress() {
        return host + ":" + raftPort;
    }

    /** The text form used in config files: {@code id=host:raftPort:clientPort}. */
    public String toSpec() {
        return nodeId + "=" + host + ":" + raftPort + ":" + clientPort;
    }

    /** Parses {@link #toSpec()}. */
    public static NodeAddress parse(String spec) {
        String[] idAndRest = spec.trim().split("=", 2);
        String[] parts = idAndRest.length == 2 ? idAndRest[1].split(":") : new String[0];
        if (parts.length != 3) {
            throw new IllegalArgumentException("peer '" + spec + "' is not of the form id=host:raftPort:clientPort");
        }
        try {
            return new NodeAddress(Integer.parseInt(idAndRest[0].trim()), parts[0],
                    Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("peer '" + spec + "' has a non-numeric id or port", e);
        }
    }
}
