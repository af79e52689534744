package io.cohort.client.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.cohort.api.v1.ConsumerAssignment;
import io.cohort.api.v1.ConsumerSubscription;
import io.cohort.api.v1.TopicPartitions;
import io.cohort.client.TopicPartition;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.Subscription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Encodes and decodes the "consumer" protocol's embedded formats (consumer_protocol.proto). */
public final class ConsumerProtocol {
    private ConsumerProtocol() {
    }

    public static ConsumerSubscription encode(Subscription subscription) {
        ConsumerSubscription.Builder proto = ConsumerSubscription.newBuilder()
                .addAllTopics(subscription.topics().stream().sorted().toList())
                .setUserData(subscription.userData())
                .addAllOwnedPartitions(group(subscription.ownedPartitions()))
                .setGenerationId(subscription.generationId());
        subscription.rackId().ifPresent(proto::setRackId);
        return proto.build();
    }

    /** Decodes a member's subscription; throws IllegalArgumentException for bytes that are not one. */
    public static Subscription decodeSubscription(com.google.protobuf.ByteString bytes, Optional<String> groupInstanceId) {
        try {
            ConsumerSubscription proto = ConsumerSubscription.parseFrom(bytes);
            return new Subscription(proto.getTopicsList(), proto.getUserData(), flatten(proto.getOwnedPartitionsList()),
                    proto.getGenerationId(), groupInstanceId,
                    proto.hasRackId() ? Optional.of(proto.getRackId()) : Optional.empty());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("not a ConsumerSubscription: " + e.getMessage(), e);
        }
    }

    public static ConsumerAssignment encode(Assignment assignment) {
        return ConsumerAssignment.newBuilder().addAllAssignedPartitions(group(assignment.partitions()))
                .setUserData(assignment.userData()).build();
    }

    /** Decodes an assignment; empty bytes are the empty assignment. */
    public static Assignment decodeAssignment(com.google.protobuf.ByteString bytes) {
        try {
            ConsumerAssignment proto = ConsumerAssignment.parseFrom(bytes);
            return new Assignment(flatten(proto.getAssignedPartitionsList()), proto.getUserData());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("not a ConsumerAssignment: " + e.getMessage(), e);
        }
    }

    public static List<TopicPartitions> group(Collection<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        partitions.stream().sorted().forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(tp.partition()));
        List<TopicPartitions> grouped = new ArrayList<>();
        byTopic.forEach((topic, indexes) -> grouped.add(TopicPartitions.newBuilder().setTopic(topic)
                .addAllPartitions(indexes).build()));
        return grouped;
    }

    public static List<TopicPartition> flatten(List<TopicPartitions> grouped) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (TopicPartitions topic : grouped) {
            for (int partition : topic.getPartitionsList()) {
                partitions.add(new TopicPartition(topic.getTopic(), partition));
            }
        }
        return partitions;
    }
}
