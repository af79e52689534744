package io.cohort.core.offset;

import java.util.Comparator;
import java.util.Objects;

/** A topic and partition index, ordered by topic then partition. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {
    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public int compareTo(TopicPartition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
