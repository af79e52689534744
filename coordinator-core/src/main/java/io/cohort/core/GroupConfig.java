package io.cohort.core;

/**
 * Group coordinator settings, with Kafka's defaults (reference section 5). Every replica of a
 * partition must run with the same values, because handlers read them while applying the log: the
 * node stores them in its cluster metadata and refuses to start with others. Five of them can be changed
 * online ({@link GroupSettings}): those changes are commands in the log, so every replica still applies
 * the same values at the same point of the log; the stored values are where a replay starts.
 *
 * @param minSessionTimeoutMs       group.min.session.timeout.ms: JoinGroup lower bound
 * @param maxSessionTimeoutMs       group.max.session.timeout.ms: JoinGroup upper bound
 * @param initialRebalanceDelayMs   group.initial.rebalance.delay.ms
 * @param maxGroupSize              group.max.size (classic groups), at least 1
 * @param newMemberJoinTimeoutMs    the fixed expiry of a member that has not completed a join yet
 * @param offsetsRetentionMs        offsets.retention.minutes in milliseconds
 * @param offsetsRetentionCheckIntervalMs offsets.retention.check.interval.ms
 * @param offsetMetadataMaxBytes    offset.metadata.max.bytes, compared to the metadata's length
 * @param limits                    bounds on the state one partition holds ({@link StateLimits})
 * @param consumerSessionTimeoutMs  group.consumer.session.timeout.ms: consumer-protocol members are
 *                                  fenced after this long without a heartbeat (set by the server)
 * @param consumerHeartbeatIntervalMs group.consumer.heartbeat.interval.ms, told to members in every answer
 * @param consumerMaxSize           group.consumer.max.size, at least 1
 * @param consumerAssignors         group.consumer.assignors: the server assignors members may ask for,
 *                                  the first being the default
 */
public record GroupConfig(
        int minSessionTimeoutMs,
        int maxSessionTimeoutMs,
        int initialRebalanceDelayMs,
        int maxGroupSize,
        int newMemberJoinTimeoutMs,
        long offsetsRetentionMs,
        long offsetsRetentionCheckIntervalMs,
        int offsetMetadataMaxBytes,
        StateLimits limits,
        int consumerSessionTimeoutMs,
        int consumerHeartbeatIntervalMs,
        int consumerMaxSize,
        java.util.List<String> consumerAssignors) {

    public static final int DEFAULT_MIN_SESSION_TIMEOUT_MS = 6_000;
    public static final int DEFAULT_MAX_SESSION_TIMEOUT_MS = 1_800_000;
    public static final int DEFAULT_INITIAL_REBALANCE_DELAY_MS = 3_000;
    public static final int DEFAULT_MAX_GROUP_SIZE = Integer.MAX_VALUE;
    public static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;
    /** 7 days, computed in long: minutes x 60,000 must not overflow an int. */
    public static final long DEFAULT_OFFSETS_RETENTION_MS = 10_080L * 60_000L;
    public static final long DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS = 600_000L;
    public static final int DEFAULT_OFFSET_METADATA_MAX_BYTES = 4_096;
    /** The cluster.properties / server setting keys of the consumer-protocol settings (Kafka's names). */
    public static final String CONSUMER_SESSION_TIMEOUT_MS = "group.consumer.session.timeout.ms";
    public static final String CONSUMER_HEARTBEAT_INTERVAL_MS = "group.consumer.heartbeat.interval.ms";
    public static final String CONSUMER_MAX_SIZE = "group.consumer.max.size";
    public static final String CONSUMER_ASSIGNORS = "group.consumer.assignors";
    public static final int DEFAULT_CONSUMER_SESSION_TIMEOUT_MS = 45_000;
    public static final int DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS = 5_000;
    public static final int DEFAULT_CONSUMER_MAX_SIZE = Integer.MAX_VALUE;
    public static final java.util.List<String> DEFAULT_CONSUMER_ASSIGNORS = java.util.List.of("uniform", "range");

    public GroupConfig {
        if (minSessionTimeoutMs < 0 || maxSessionTimeoutMs < minSessionTimeoutMs) {
            throw new IllegalArgumentException("session timeout bounds [" + minSessionTimeoutMs + ", "
                    + maxSessionTimeoutMs + "] are not a range");
        }
        if (initialRebalanceDelayMs < 0) {
            throw new IllegalArgumentException("initialRebalanceDelayMs must be >= 0");
        }
        if (maxGroupSize < 1) {
            throw new IllegalArgumentException("maxGroupSize must be >= 1");
        }
        if (newMemberJoinTimeoutMs <= 0 || offsetsRetentionMs <= 0 || offsetsRetentionCheckIntervalMs <= 0) {
            throw new IllegalArgumentException("timeouts and retention must be positive");
        }
        if (offsetMetadataMaxBytes < 0) {
            throw new IllegalArgumentException("offsetMetadataMaxBytes must be >= 0");
        }
        java.util.Objects.requireNonNull(limits, "limits");
        if (consumerSessionTimeoutMs <= 0 || consumerHeartbeatIntervalMs <= 0 || consumerMaxSize < 1) {
            throw new IllegalArgumentException("consumer session timeout, heartbeat interval and max size must be"
                    + " positive");
        }
        consumerAssignors = java.util.List.copyOf(consumerAssignors);
    }

    /** The settings with the consumer-protocol defaults (the settings before issue 17). */
    public GroupConfig(int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs,
                       int maxGroupSize, int newMemberJoinTimeoutMs, long offsetsRetentionMs,
                       long offsetsRetentionCheckIntervalMs, int offsetMetadataMaxBytes, StateLimits limits) {
        this(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, maxGroupSize, newMemberJoinTimeoutMs,
                offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes, limits,
                DEFAULT_CONSUMER_SESSION_TIMEOUT_MS, DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS, DEFAULT_CONSUMER_MAX_SIZE,
                DEFAULT_CONSUMER_ASSIGNORS);
    }

    /** The settings with the default {@link StateLimits}. */
    public GroupConfig(int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs,
                       int maxGroupSize, int newMemberJoinTimeoutMs, long offsetsRetentionMs,
                       long offsetsRetentionCheckIntervalMs, int offsetMetadataMaxBytes) {
        this(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, maxGroupSize, newMemberJoinTimeoutMs,
                offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes, StateLimits.defaults());
    }

    /** Kafka's defaults. */
    public static GroupConfig defaults() {
        return new GroupConfig(DEFAULT_MIN_SESSION_TIMEOUT_MS, DEFAULT_MAX_SESSION_TIMEOUT_MS,
                DEFAULT_INITIAL_REBALANCE_DELAY_MS, DEFAULT_MAX_GROUP_SIZE, NEW_MEMBER_JOIN_TIMEOUT_MS,
                DEFAULT_OFFSETS_RETENTION_MS, DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS,
                DEFAULT_OFFSET_METADATA_MAX_BYTES);
    }

    public GroupConfig withSessionTimeoutBounds(int minMs, int maxMs) {
        return new GroupConfig(minMs, maxMs, initialRebalanceDelayMs, maxGroupSize, newMemberJoinTimeoutMs,
                offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes, limits,
                consumerSessionTimeoutMs, consumerHeartbeatIntervalMs, consumerMaxSize, consumerAssignors);
    }

    public GroupConfig withInitialRebalanceDelayMs(int delayMs) {
        return new GroupConfig(minSessionTimeoutMs, maxSessionTimeoutMs, delayMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes,
                limits, consumerSessionTimeoutMs, consumerHeartbeatIntervalMs, consumerMaxSize, consumerAssignors);
    }

    public GroupConfig withMaxGroupSize(int size) {
        return new GroupConfig(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, size,
                newMemberJoinTimeoutMs, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes,
                limits, consumerSessionTimeoutMs, consumerHeartbeatIntervalMs, consumerMaxSize, consumerAssignors);
    }

    public GroupConfig withOffsetsRetentionMs(long retentionMs) {
        return new GroupConfig(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, maxGroupSize,
                newMemberJoinTimeoutMs, retentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes, limits,
                consumerSessionTimeoutMs, consumerHeartbeatIntervalMs, consumerMaxSize, consumerAssignors);
    }

    public GroupConfig withOffsetMetadataMaxBytes(int maxBytes) {
        return new GroupConfig(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, maxBytes, limits,
                consumerSessionTimeoutMs, consumerHeartbeatIntervalMs, consumerMaxSize, consumerAssignors);
    }

    public GroupConfig withLimits(StateLimits newLimits) {
        return new GroupConfig(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes,
                newLimits, consumerSessionTimeoutMs, consumerHeartbeatIntervalMs, consumerMaxSize, consumerAssignors);
    }

    /** These settings with other consumer-protocol (KIP-848) settings. */
    public GroupConfig withConsumerSettings(int sessionTimeoutMs, int heartbeatIntervalMs, int maxSize,
                                            java.util.List<String> assignors) {
        return new GroupConfig(minSessionTimeoutMs, maxSessionTimeoutMs, initialRebalanceDelayMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetMetadataMaxBytes,
                limits, sessionTimeoutMs, heartbeatIntervalMs, maxSize, assignors);
    }
}
