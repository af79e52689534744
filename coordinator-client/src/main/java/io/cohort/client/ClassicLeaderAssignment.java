package io.cohort.client;

import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.Subscription;
import io.cohort.client.internal.ConsumerProtocol;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leader of a classic group computes between JoinGroup and SyncGroup: every member's
 * subscription decoded from the JoinGroup answer, the partition counts from the application's
 * {@link TopicMetadata}, and the selected client-side assignor run over them.
 */
final class ClassicLeaderAssignment {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicLeaderAssignment.class);

    private ClassicLeaderAssignment() {
    }

    static Map<String, Assignment> assign(String groupId, ConsumerPartitionAssignor assignor,
            TopicMetadata topicMetadata, List<JoinGroupResponse.Member> members) {
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        Set<String> allTopics = new TreeSet<>();
        for (JoinGroupResponse.Member member : members) {
            Optional<String> instance = member.hasGroupInstanceId() ? Optional.of(member.getGroupInstanceId())
                    : Optional.empty();
            Subscription subscription;
            try {
                subscription = ConsumerProtocol.decodeSubscription(member.getMetadata(), instance);
            } catch (IllegalArgumentException e) {
                // A member that speaks another format gets nothing rather than breaking the group.
                LOG.warn("group {}: member {} sent an unreadable subscription: {}", groupId, member.getMemberId(),
                        e.getMessage());
                subscription = new Subscription(List.of());
            }
            subscriptions.put(member.getMemberId(), subscription);
            allTopics.addAll(subscription.topics());
        }
        Map<String, Integer> partitionsPerTopic = new TreeMap<>();
        for (String topic : allTopics) {
            OptionalInt count = topicMetadata.partitionCount(topic);
            if (count.isPresent()) {
                partitionsPerTopic.put(topic, count.getAsInt());
            } else {
                LOG.warn("group {}: no partition count known for topic {}; it is not assigned", groupId, topic);
            }
        }
        return assignor.assign(partitionsPerTopic, subscriptions);
    }
}
