package io.cohort.client.assignor;

import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/** Helpers shared by the assignors of this package. */
final class AssignorSupport {
    private AssignorSupport() {
    }

    /**
     * The member ids of {@code subscriptions} in Kafka's {@code MemberInfo} order: static members
     * first, by group instance id, then dynamic members by member id. Range and round robin deal
     * partitions in this order, so a static member that restarts with a new member id gets the same
     * partitions back. Two static members with the same instance id cannot happen in a healthy group;
     * they are ordered by member id so that the result stays deterministic even then.
     */
    static List<String> membersInKafkaOrder(Map<String, Subscription> subscriptions) {
        Comparator<String> order = (a, b) -> {
            var instanceA = subscriptions.get(a).groupInstanceId();
            var instanceB = subscriptions.get(b).groupInstanceId();
            if (instanceA.isPresent() && instanceB.isPresent()) {
                int byInstance = instanceA.get().compareTo(instanceB.get());
                return byInstance != 0 ? byInstance : a.compareTo(b);
            }
            if (instanceA.isPresent()) {
                return -1;
            }
            if (instanceB.isPresent()) {
                return 1;
            }
            return a.compareTo(b);
        };
        List<String> members = new ArrayList<>(subscriptions.keySet());
        members.sort(order);
        return members;
    }

    /**
     * The topics some member subscribes to and whose partition count the leader knows (with at least
     * one partition), sorted. Topics without metadata are skipped, as Kafka does.
     */
    static TreeSet<String> assignableTopics(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        TreeSet<String> topics = new TreeSet<>();
        for (Subscription subscription : subscriptions.values()) {
            for (String topic : subscription.topics()) {
                if (partitionCount(partitionsPerTopic, topic) > 0) {
                    topics.add(topic);
                }
            }
        }
        return topics;
    }

    /** The partition count of {@code topic}, 0 when it is unknown. */
    static int partitionCount(Map<String, Integer> partitionsPerTopic, String topic) {
        Integer count = partitionsPerTopic.get(topic);
        return count == null ? 0 : Math.max(0, count);
    }

    /** An empty, mutable partition list for every member, in member id order. */
    static SortedMap<String, List<TopicPartition>> emptyAssignment(Map<String, Subscription> subscriptions) {
        SortedMap<String, List<TopicPartition>> assignment = new TreeMap<>();
        for (String member : subscriptions.keySet()) {
            assignment.put(member, new ArrayList<>());
        }
        return assignment;
    }

    /** Wraps the partition lists into {@link Assignment}s (which sort them), in member id order. */
    static Map<String, Assignment> toAssignments(SortedMap<String, List<TopicPartition>> partitions) {
        Map<String, Assignment> assignments = new LinkedHashMap<>();
        partitions.forEach((member, list) -> assignments.put(member, new Assignment(list)));
        return Collections.unmodifiableMap(assignments);
    }
}
