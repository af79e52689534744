package io.cohort.client;

/**
 * The group protocol a {@link GroupMember} speaks (Kafka's {@code group.protocol}).
 */
public enum GroupProtocol {
    /**
     * JoinGroup / SyncGroup / Heartbeat / LeaveGroup: the group's leader runs a client-side
     * assignor, and each rebalance is a barrier for the whole group (eager or cooperative). The default.
     */
    CLASSIC,
    /**
     * KIP-848's ConsumerGroupHeartbeat: the coordinator computes the assignment with a server
     * assignor and moves partitions one member at a time (revoke before assign); the other members
     * go on consuming.
     */
    CONSUMER
}
