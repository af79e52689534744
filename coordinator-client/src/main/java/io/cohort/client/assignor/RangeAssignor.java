package io.cohort.client.assignor;

import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Kafka's {@code RangeAssignor} ("range"): topic by topic, the members subscribed to the topic (in
 * Kafka's member order: static members by group instance id first, then member id) each get one
 * contiguous range of its partitions; with {@code n} partitions and {@code m} members the first
 * {@code n % m} members get one partition more than the others.
 *
 * <p>Because every topic is split independently, the same members come first for every topic, so
 * with many topics the first members can end up with many more partitions than the last ones. That is
 * Kafka's behaviour and what applications that co-partition topics rely on (partition {@code i} of
 * every topic lands on the same member when the topics have the same partition count).
 *
 * <p>Eager only: it ignores ownership, so with cooperative rebalancing it could hand a partition to
 * a new member while its old owner still processes it.
 */
public final class RangeAssignor implements ConsumerPartitionAssignor {
    /** The protocol name, as Kafka's. */
    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        SortedMap<String, List<TopicPartition>> assignment = AssignorSupport.emptyAssignment(subscriptions);
        List<String> members = AssignorSupport.membersInKafkaOrder(subscriptions);

        for (String topic : AssignorSupport.assignableTopics(partitionsPerTopic, subscriptions)) {
            // The member order is the same for every topic: filtering the globally ordered list
            // keeps it.
            List<String> subscribers = new ArrayList<>();
            for (String member : members) {
                if (subscriptions.get(member).topics().contains(topic)) {
                    subscribers.add(member);
                }
            }
            int partitions = AssignorSupport.partitionCount(partitionsPerTopic, topic);
            int perMember = partitions / subscribers.size();
            int withExtra = partitions % subscribers.size();
            for (int i = 0; i < subscribers.size(); i++) {
                // Member i starts after the i ranges before it, min(i, withExtra) of which were one longer.
                int start = perMember * i + Math.min(i, withExtra);
                int length = perMember + (i < withExtra ? 1 : 0);
                List<TopicPartition> target = assignment.get(subscribers.get(i));
                for (int p = start; p < start + length; p++) {
                    target.add(new TopicPartition(topic, p));
                }
            }
        }
        return AssignorSupport.toAssignments(assignment);
    }
}
