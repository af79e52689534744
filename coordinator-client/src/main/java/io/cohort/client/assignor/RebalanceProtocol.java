package io.cohort.client.assignor;

/** How partitions move in a rebalance (Kafka's {@code ConsumerPartitionAssignor.RebalanceProtocol}). */
public enum RebalanceProtocol {
    /** Every member revokes everything before it rejoins; the new assignment starts from nothing. */
    EAGER,
    /**
     * Incremental cooperative rebalancing (KIP-429): members keep their partitions while they
     * rejoin; a partition that moves is first revoked by its owner (first rebalance) and only then
     * assigned to its new owner (a follow-up rebalance).
     */
    COOPERATIVE
}
