package io.cohort.client;

import java.util.Objects;

/**
 * A committed offset, as Kafka's {@code OffsetAndMetadata}: the next record the group should
 * consume, the leader epoch of the last consumed record (-1 if unknown) and free-form metadata.
 */
public record OffsetAndMetadata(long offset, int leaderEpoch, String metadata) {
    /** The leader epoch of an offset committed without one. */
    public static final int NO_LEADER_EPOCH = -1;

    public OffsetAndMetadata {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        Objects.requireNonNull(metadata, "metadata");
    }

    public OffsetAndMetadata(long offset) {
        this(offset, NO_LEADER_EPOCH, "");
    }

    public OffsetAndMetadata(long offset, String metadata) {
        this(offset, NO_LEADER_EPOCH, metadata);
    }
}
