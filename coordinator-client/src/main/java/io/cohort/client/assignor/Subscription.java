package io.cohort.client.assignor;

import com.google.protobuf.ByteString;
import io.cohort.client.TopicPartition;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One member's subscription as the group leader's assignor sees it (Kafka's
 * {@code ConsumerPartitionAssignor.Subscription}); travels as a {@code cohort.v1.ConsumerSubscription}.
 *
 * @param topics the subscribed topics
 * @param userData assignor-specific data from {@link ConsumerPartitionAssignor#subscriptionUserData}
 * @param ownedPartitions the partitions the member owns now (used by sticky and cooperative assignors)
 * @param generationId the generation in which the member got {@code ownedPartitions}; -1 if none
 * @param groupInstanceId the member's static instance id, if it is static
 * @param rackId the member's rack, if known
 */
public record Subscription(List<String> topics, ByteString userData, List<TopicPartition> ownedPartitions,
        int generationId, Optional<String> groupInstanceId, Optional<String> rackId) {
    /** The generation of a member that owns nothing yet. */
    public static final int NO_GENERATION = -1;

    public Subscription {
        topics = List.copyOf(topics);
        Objects.requireNonNull(userData, "userData");
        ownedPartitions = List.copyOf(ownedPartitions);
        Objects.requireNonNull(groupInstanceId, "groupInstanceId");
        Objects.requireNonNull(rackId, "rackId");
    }

    /** A subscription to {@code topics} of a member that owns nothing. */
    public Subscription(List<String> topics) {
        this(topics, ByteString.EMPTY, List.of(), NO_GENERATION, Optional.empty(), Optional.empty());
    }

    /** A subscription to {@code topics} of a member that owns {@code owned} since {@code generationId}. */
    public Subscription(List<String> topics, List<TopicPartition> owned, int generationId) {
        this(topics, ByteString.EMPTY, owned, generationId, Optional.empty(), Optional.empty());
    }
}
