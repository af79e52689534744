package io.cohort.server.rpc;

/**
 * The size limits of the public API, in one place. A request beyond any of them is malformed: it
 * fails with gRPC status INVALID_ARGUMENT, changes nothing, and the node keeps serving.
 *
 * <p>Why these numbers. Every accepted write becomes one command in one Raft log entry, and a log
 * entry must fit Ratis's write buffer ({@code RaftTuning.writeBufferBytes}, 1 MiB by default), so no
 * single request may come near 1 MiB: {@link #MAX_REQUEST_BYTES} keeps a quarter of the buffer for
 * the entry's framing and for the internal encoding, which is slightly larger than the public one.
 * The per-field limits are far above what Kafka clients send (a consumer's subscription is a few
 * hundred bytes; Kafka caps topic names at 249 characters and its client truncates reasons to 255)
 * and low enough that one member cannot fill a group's log entry alone. String lengths are counted
 * in UTF-16 chars ({@link String#length()}).
 */
public final class RequestLimits {
    /** Most bytes of any serialized request. Keep the server's gRPC inbound limit above it. */
    public static final int MAX_REQUEST_BYTES = 768 * 1024;

    /** Most chars of a group id. */
    public static final int MAX_GROUP_ID_LENGTH = 255;

    /** Most chars of a group_instance_id (static membership); when set it must not be empty. */
    public static final int MAX_INSTANCE_ID_LENGTH = 255;

    /** Most chars of a client_id. */
    public static final int MAX_CLIENT_ID_LENGTH = 255;

    /** Most chars of a client_host. */
    public static final int MAX_CLIENT_HOST_LENGTH = 255;

    /**
     * Most chars of a member id. Minted ids are {@code clientId-UUID} or {@code instanceId-UUID}, so
     * the limit is the longest prefix plus a dash plus a 36-char UUID: every minted id is accepted.
     */
    public static final int MAX_MEMBER_ID_LENGTH = Math.max(MAX_CLIENT_ID_LENGTH, MAX_INSTANCE_ID_LENGTH) + 1 + 36;

    /** Most chars of a protocol type ("consumer") or a protocol name ("range"). */
    public static final int MAX_PROTOCOL_NAME_LENGTH = 255;

    /** Most protocols (assignors) in one JoinGroup; names must be distinct. */
    public static final int MAX_PROTOCOLS = 256;

    /** Most bytes of protocol metadata in one JoinGroup, summed over its protocols. */
    public static final int MAX_PROTOCOL_METADATA_BYTES = 512 * 1024;

    /** Most bytes of one member's assignment in the leader's SyncGroup. */
    public static final int MAX_ASSIGNMENT_BYTES = 512 * 1024;

    /** Longer reasons (JoinGroup, LeaveGroup) are truncated, as Kafka's client does, not rejected. */
    public static final int MAX_REASON_LENGTH = 255;

    /** Most chars of a topic name; Kafka's own limit. Topic names must not be empty. */
    public static final int MAX_TOPIC_NAME_LENGTH = 249;

    /** Most group ids in one FindCoordinator, OffsetFetch, DescribeGroups or DeleteGroups. */
    public static final int MAX_GROUPS_PER_REQUEST = 10_000;

    /** Most entries in a ListGroups filter, each at most {@link #MAX_PROTOCOL_NAME_LENGTH} chars. */
    public static final int MAX_FILTER_VALUES = 64;

    /**
     * Largest OffsetCommit retention_time_ms: far beyond any useful retention, and small enough that
     * the leader time plus the retention never overflows a long.
     */
    public static final long MAX_RETENTION_TIME_MS = Long.MAX_VALUE / 4;

    private RequestLimits() {
    }

    /** {@code reason} cut to {@link #MAX_REASON_LENGTH} chars; null stays null. */
    static String truncateReason(String reason) {
        return reason == null || reason.length() <= MAX_REASON_LENGTH ? reason : reason.substring(0, MAX_REASON_LENGTH);
    }
}
