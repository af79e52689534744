package io.cohort.core;

/**
 * Bounds on the state one offsets partition holds, so that a node's heap stays far from
 * OutOfMemoryError whatever clients send. Like every {@link GroupConfig} setting they are part of
 * the replicated configuration: handlers check them while applying the log, so every replica
 * refuses the same commands. They bound growth only: a command that would add state beyond a limit
 * is refused as a whole, while state already held (accepted by an older build or under a higher
 * limit) stays, and updates that do not grow it are accepted. docs/OPERATIONS.md ("Memory limits")
 * shows how the defaults were chosen for a 512 MiB heap.
 *
 * @param maxOffsetsPerGroup           group.max.offsets: committed offsets one group may hold
 * @param maxGroupsPerPartition        offsets.partition.max.groups: groups one partition may hold
 * @param maxOffsetsPerPartition       offsets.partition.max.offsets: committed offsets one partition
 *                                     may hold, over all its groups
 * @param maxMetadataBytesPerPartition offsets.partition.max.metadata.bytes: offset metadata (chars)
 *                                     plus member protocol metadata and assignments (bytes) one
 *                                     partition may hold
 */
public record StateLimits(int maxOffsetsPerGroup, int maxGroupsPerPartition, int maxOffsetsPerPartition,
                          long maxMetadataBytesPerPartition) {
    public static final String MAX_OFFSETS_PER_GROUP = "group.max.offsets";
    public static final String MAX_GROUPS_PER_PARTITION = "offsets.partition.max.groups";
    public static final String MAX_OFFSETS_PER_PARTITION = "offsets.partition.max.offsets";
    public static final String MAX_METADATA_BYTES_PER_PARTITION = "offsets.partition.max.metadata.bytes";

    public static final int DEFAULT_MAX_OFFSETS_PER_GROUP = 100_000;
    public static final int DEFAULT_MAX_GROUPS_PER_PARTITION = 50_000;
    public static final int DEFAULT_MAX_OFFSETS_PER_PARTITION = 500_000;
    public static final long DEFAULT_MAX_METADATA_BYTES_PER_PARTITION = 32L << 20;

    /**
     * Most topics the topic registry (partition 0's state) holds. Fixed, not a setting: the registry
     * is one per cluster, and a replica replaying a topic command must refuse exactly what the
     * leader refused, whatever its configuration. At 10,000 topics of a few hundred bytes each the
     * registry stays a few MiB, and each copy-on-write change copies it once.
     */
    public static final int MAX_TOPICS = 10_000;

    /**
     * Most partitions of one registered topic (fixed, as {@link #MAX_TOPICS}); far above Kafka's
     * practical limits, and low enough that one topic's record stays well inside a log entry.
     */
    public static final int MAX_PARTITIONS_PER_TOPIC = 100_000;

    public StateLimits {
        if (maxOffsetsPerGroup < 1 || maxGroupsPerPartition < 1 || maxOffsetsPerPartition < 1
                || maxMetadataBytesPerPartition < 0) {
            throw new IllegalArgumentException("state limits must be positive: " + maxOffsetsPerGroup + ", "
                    + maxGroupsPerPartition + ", " + maxOffsetsPerPartition + ", " + maxMetadataBytesPerPartition);
        }
    }

    public static StateLimits defaults() {
        return new StateLimits(DEFAULT_MAX_OFFSETS_PER_GROUP, DEFAULT_MAX_GROUPS_PER_PARTITION,
                DEFAULT_MAX_OFFSETS_PER_PARTITION, DEFAULT_MAX_METADATA_BYTES_PER_PARTITION);
    }

    public StateLimits withMaxOffsetsPerGroup(int value) {
        return new StateLimits(value, maxGroupsPerPartition, maxOffsetsPerPartition, maxMetadataBytesPerPartition);
    }

    public StateLimits withMaxGroupsPerPartition(int value) {
        return new StateLimits(maxOffsetsPerGroup, value, maxOffsetsPerPartition, maxMetadataBytesPerPartition);
    }

    public StateLimits withMaxOffsetsPerPartition(int value) {
        return new StateLimits(maxOffsetsPerGroup, maxGroupsPerPartition, value, maxMetadataBytesPerPartition);
    }

    public StateLimits withMaxMetadataBytesPerPartition(long value) {
        return new StateLimits(maxOffsetsPerGroup, maxGroupsPerPartition, maxOffsetsPerPartition, value);
    }
}
