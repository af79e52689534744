package io.cohort.client;

import java.util.Map;
import java.util.OptionalInt;

/**
 * The partition counts of topics, which the group leader's assignor needs. Cohort keeps no topic
 * metadata (Kafka's brokers do), so the application provides it, from its own broker or config.
 */
@FunctionalInterface
public interface TopicMetadata {
    /** The number of partitions of {@code topic}; empty if unknown (the topic is then not assigned). */
    OptionalInt partitionCount(String topic);

    /** Fixed partition counts. */
    static TopicMetadata of(Map<String, Integer> partitionCounts) {
        Map<String, Integer> copy = Map.copyOf(partitionCounts);
        return topic -> copy.containsKey(topic) ? OptionalInt.of(copy.get(topic)) : OptionalInt.empty();
    }
}
