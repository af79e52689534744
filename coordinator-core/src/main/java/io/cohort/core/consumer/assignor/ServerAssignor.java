package io.cohort.core.consumer.assignor;

/**
 * A server-side partition assignor of the consumer protocol (KIP-848): computes every member's
 * target assignment from the members' subscriptions, the subscribed topics' metadata and, for
 * stickiness, the previous target assignment.
 *
 * <p>It runs on every replica while a committed heartbeat is applied, so it must be a pure,
 * deterministic function of its argument: no clock, no randomness, and no iteration over hash
 * orders (the spec's maps are sorted; iterate them, or sort).
 */
public interface ServerAssignor {

    /** The name members ask for in {@code server_assignor} ("uniform", "range"). */
    String name();

    /**
     * The new target assignment: one entry for every member of {@code spec} (an empty assignment
     * for a member that gets nothing); only partitions of topics the member subscribes to, each
     * partition of a subscribed topic to at most one member.
     *
     * @throws AssignorException if no assignment can be computed (Kafka answers the heartbeat
     *                           UNKNOWN_SERVER_ERROR)
     */
    GroupAssignment assign(AssignmentSpec spec);
}
