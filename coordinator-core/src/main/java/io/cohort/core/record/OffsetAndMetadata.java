package io.cohort.core.record;

import java.util.Objects;

/**
 * A committed offset as stored (Kafka's OffsetCommitValue).
 *
 * @param offset            the committed offset
 * @param leaderEpoch       the committed leader epoch, or -1 if none was sent
 * @param metadata          the client's metadata string ("" when null was sent)
 * @param commitTimestampMs leader time of the commit
 * @param expireTimestampMs explicit expiry from a retention time, or -1 (broker retention applies)
 */
public record OffsetAndMetadata(long offset, int leaderEpoch, String metadata, long commitTimestampMs,
                                long expireTimestampMs) {
    public static final int NO_LEADER_EPOCH = -1;
    public static final long NO_EXPIRE_TIMESTAMP = -1L;

    public OffsetAndMetadata {
        Objects.requireNonNull(metadata, "metadata");
    }

    public boolean hasExpireTimestamp() {
        return expireTimestampMs != NO_EXPIRE_TIMESTAMP;
    }
}
