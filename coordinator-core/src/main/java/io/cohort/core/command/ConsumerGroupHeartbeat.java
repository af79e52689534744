package io.cohort.core.command;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.TopicLookup;
import java.util.List;
import java.util.Objects;

/**
 * KIP-848's ConsumerGroupHeartbeat (Kafka API key 68, v1), as a log command. Null fields mean
 * "not provided / unchanged", as Kafka's nullable fields.
 *
 * @param memberEpoch          0 join, -1 leave, -2 static leave, else the member's current epoch
 * @param rebalanceTimeoutMs   -1 = unchanged
 * @param subscribedTopicNames null = unchanged
 * @param subscribedTopicRegex null = unchanged; "" removes the regex
 * @param serverAssignor       null = unchanged
 * @param ownedPartitions      null = unchanged (the partitions the member reports owning)
 * @param topics               the topic registry lookups the leader made before proposing
 */
public record ConsumerGroupHeartbeat(String groupId, String memberId, int memberEpoch, String instanceId,
                                     String rackId, int rebalanceTimeoutMs, List<String> subscribedTopicNames,
                                     String subscribedTopicRegex, String serverAssignor,
                                     Assignment ownedPartitions, String clientId, String clientHost,
                                     TopicLookup topics) implements Command {

    public static final int LEAVE_GROUP_MEMBER_EPOCH = -1;
    public static final int LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

    public ConsumerGroupHeartbeat {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        subscribedTopicNames = subscribedTopicNames == null ? null : List.copyOf(subscribedTopicNames);
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        Objects.requireNonNull(topics, "topics");
    }

    /** Kafka's "full request": a join, or every field that describes the member set. */
    public boolean isFullRequest() {
        return memberEpoch == 0
                || (rebalanceTimeoutMs != -1 && subscribedTopicNames != null && ownedPartitions != null);
    }
}
