package io.cohort.client;

import java.util.Collection;

/**
 * Callbacks for changes of a {@link GroupMember}'s assignment (Kafka's
 * {@code ConsumerRebalanceListener}). They run on the thread that calls {@link GroupMember#poll} (or
 * {@link GroupMember#close}), never concurrently, and may commit with {@link GroupMember#commitSync}.
 */
public interface RebalanceListener {
    /**
     * The member gives up these partitions in an orderly rebalance: its generation is still valid,
     * so it may commit their offsets now. With the eager protocol every owned partition is revoked
     * before each rejoin; with the cooperative protocol only the partitions that move.
     */
    default void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    }

    /** The member now owns these partitions as well (may be empty: called after every completed rebalance). */
    default void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    }

    /**
     * The member lost these partitions without an orderly revocation: it was fenced (its session
     * expired, or its generation is no longer valid), so other members may own them already and
     * committing their offsets would fail. By default, the same as {@link #onPartitionsRevoked}.
     */
    default void onPartitionsLost(Collection<TopicPartition> partitions) {
        onPartitionsRevoked(partitions);
    }
}
