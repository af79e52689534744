package io.cohort.core.consumer;

import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a consumer-protocol member told the coordinator about itself (Kafka's
 * ConsumerGroupMemberMetadataValue): one record per change.
 *
 * @param instanceId           static membership id, or null
 * @param rackId               null if none
 * @param subscribedTopicRegex null if none
 * @param serverAssignor       the assignor the member asks for, or null
 */
public record ConsumerMemberMetadata(String instanceId, String rackId, int rebalanceTimeoutMs, String clientId,
                                     String clientHost, SortedSet<String> subscribedTopicNames,
                                     String subscribedTopicRegex, String serverAssignor) {
    public ConsumerMemberMetadata {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        subscribedTopicNames = Collections.unmodifiableSortedSet(new TreeSet<>(subscribedTopicNames));
    }

    /** A member that has not told anything yet (the base a joining member's request updates). */
    public static final ConsumerMemberMetadata NONE =
            new ConsumerMemberMetadata(null, null, -1, "", "", new TreeSet<>(), null, null);
}
