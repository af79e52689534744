package io.cohort.client;

/**
 * The node that coordinates a group: the leader of the group's offsets partition, as last learned.
 *
 * @param partition the group's offsets partition
 * @param nodeId the node's id
 * @param host the node's client host
 * @param port the node's client port
 */
public record Coordinator(int partition, int nodeId, String host, int port) {
    @Override
    public String toString() {
        return "node " + nodeId + " (" + host + ":" + port + ", partition " + partition + ")";
    }
}
