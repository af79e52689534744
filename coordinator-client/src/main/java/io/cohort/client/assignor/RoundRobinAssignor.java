package io.cohort.client.assignor;

import io.cohort.client.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Kafka's {@code RoundRobinAssignor} ("roundrobin"): all partitions of all subscribed topics, sorted
 * by topic then partition, are dealt one at a time to the members in Kafka's member order (static
 * members by group instance id first, then member id), cycling; a member not subscribed to a
 * partition's topic is skipped, and the deal goes on from the member after the one that took it.
 *
 * <p>When every member has the same subscription the counts differ by at most one; with different
 * subscriptions the result can be unbalanced (Kafka documents the same).
 *
 * <p>Eager only: it ignores ownership.
 */
public final class RoundRobinAssignor implements ConsumerPartitionAssignor {
    /** The protocol name, as Kafka's. */
    public static final String NAME = "roundrobin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        SortedMap<String, List<TopicPartition>> assignment = AssignorSupport.emptyAssignment(subscriptions);
        List<String> members = AssignorSupport.membersInKafkaOrder(subscriptions);

        int next = 0; // the member the deal continues with, an index into members
        for (String topic : AssignorSupport.assignableTopics(partitionsPerTopic, subscriptions)) {
            int partitions = AssignorSupport.partitionCount(partitionsPerTopic, topic);
            for (int p = 0; p < partitions; p++) {
                // Terminates: the topic is assignable, so at least one member subscribes to it.
                while (!subscriptions.get(members.get(next)).topics().contains(topic)) {
                    next = (next + 1) % members.size();
                }
                assignment.get(members.get(next)).add(new TopicPartition(topic, p));
                next = (next + 1) % members.size();
            }
        }
        return AssignorSupport.toAssignments(assignment);
    }
}
