package io.cohort.core;

/**
 * Maps a group id to its offsets partition, exactly as Kafka's
 * {@code GroupCoordinatorService.partitionFor}: {@code Utils.abs(groupId.hashCode()) % partitions}.
 *
 * <p>Pinned by a frozen test vector: changing it moves every group to another partition, so the
 * partition count and this function never change after a cluster is created.
 */
public final class PartitionFunction {
    private PartitionFunction() {
    }

    /** The offsets partition of {@code groupId} among {@code partitions}. */
    public static int partitionFor(String groupId, int partitions) {
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be positive, got " + partitions);
        }
        return kafkaAbs(groupId.hashCode()) % partitions;
    }

    /**
     * Kafka's {@code Utils.abs}: 0 for {@link Integer#MIN_VALUE} (whose {@link Math#abs} is negative),
     * {@link Math#abs} otherwise. A floor-mod would give other partitions for negative hashes.
     */
    static int kafkaAbs(int n) {
        return n == Integer.MIN_VALUE ? 0 : Math.abs(n);
    }
}
