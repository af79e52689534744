package io.cohort.core;

/**
 * Kafka's error codes, with Kafka's names and numeric codes, for every situation the group APIs can
 * report. As Kafka's {@code Errors} says: the names can be changed but the error code cannot. The
 * public API enum and this one share numbers; the server maps by {@link #code()}, never by ordinal.
 */
public enum ErrorCode {
    UNKNOWN_SERVER_ERROR(-1, false),
    NONE(0, false),
    UNKNOWN_TOPIC_OR_PARTITION(3, true),
    NOT_LEADER_OR_FOLLOWER(6, true),
    REQUEST_TIMED_OUT(7, true),
    MESSAGE_TOO_LARGE(10, false),
    OFFSET_METADATA_TOO_LARGE(12, false),
    NETWORK_EXCEPTION(13, true),
    COORDINATOR_LOAD_IN_PROGRESS(14, true),
    COORDINATOR_NOT_AVAILABLE(15, true),
    NOT_COORDINATOR(16, true),
    INVALID_TOPIC_EXCEPTION(17, false),
    RECORD_LIST_TOO_LARGE(18, false),
    NOT_ENOUGH_REPLICAS(19, true),
    ILLEGAL_GENERATION(22, false),
    INCONSISTENT_GROUP_PROTOCOL(23, false),
    INVALID_GROUP_ID(24, false),
    UNKNOWN_MEMBER_ID(25, false),
    INVALID_SESSION_TIMEOUT(26, false),
    REBALANCE_IN_PROGRESS(27, false),
    INVALID_COMMIT_OFFSET_SIZE(28, false),
    TOPIC_AUTHORIZATION_FAILED(29, false),
    GROUP_AUTHORIZATION_FAILED(30, false),
    CLUSTER_AUTHORIZATION_FAILED(31, false),
    UNSUPPORTED_VERSION(35, false),
    TOPIC_ALREADY_EXISTS(36, false),
    INVALID_PARTITIONS(37, false),
    INVALID_REQUEST(42, false),
    KAFKA_STORAGE_ERROR(56, true),
    NON_EMPTY_GROUP(68, false),
    GROUP_ID_NOT_FOUND(69, false),
    MEMBER_ID_REQUIRED(79, false),
    GROUP_MAX_SIZE_REACHED(81, false),
    FENCED_INSTANCE_ID(82, false),
    GROUP_SUBSCRIBED_TO_TOPIC(86, false),
    UNSTABLE_OFFSET_COMMIT(88, true),
    FENCED_MEMBER_EPOCH(110, false),
    UNRELEASED_INSTANCE_ID(111, false),
    UNSUPPORTED_ASSIGNOR(112, false),
    STALE_MEMBER_EPOCH(113, false),
    INVALID_REGULAR_EXPRESSION(128, false);

    private final int code;
    private final boolean retriable;

    ErrorCode(int code, boolean retriable) {
        this.code = code;
        this.retriable = retriable;
    }

    /** Kafka's numeric code; stable forever. */
    public int code() {
        return code;
    }

    /** Whether Kafka marks this error retriable (the same request may succeed if resent). */
    public boolean retriable() {
        return retriable;
    }

    /** The error for a numeric code, or {@link #UNKNOWN_SERVER_ERROR} for a code we do not know. */
    public static ErrorCode forCode(int code) {
        for (ErrorCode error : values()) {
            if (error.code == code) {
                return error;
            }
        }
        return UNKNOWN_SERVER_ERROR;
    }
}
