package io.cohort.client;

import java.util.Comparator;
import java.util.Objects;

/** One partition of one topic, as Kafka's {@code TopicPartition}. Ordered by topic, then partition. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {
    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + partition);
        }
    }

    /** Parses {@code topic:partition}; the topic may itself contain ':' (the last one splits). */
    public static TopicPartition parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected TOPIC:PARTITION, got '" + text + "'");
        }
        try {
            return new TopicPartition(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected TOPIC:PARTITION with a numeric partition, got '" + text + "'");
        }
    }

    @Override
    public int compareTo(TopicPartition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return topic + ":" + partition;
    }
}
