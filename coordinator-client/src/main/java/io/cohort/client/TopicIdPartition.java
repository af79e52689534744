package io.cohort.client;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.Objects;
import java.util.UUID;

/**
 * A partition as the consumer protocol names it (the topic's registry id) together with the topic
 * name the application sees. Package-private: the public API speaks {@link TopicPartition}.
 */
record TopicIdPartition(UUID topicId, String topic, int partition) implements Comparable<TopicIdPartition> {
    private static final Comparator<TopicIdPartition> ORDER = Comparator.comparing(TopicIdPartition::topic)
            .thenComparingInt(TopicIdPartition::partition).thenComparing(TopicIdPartition::topicId);

    TopicIdPartition {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(topic, "topic");
    }

    TopicPartition toTopicPartition() {
        return new TopicPartition(topic, partition);
    }

    @Override
    public int compareTo(TopicIdPartition other) {
        return ORDER.compare(this, other);
    }

    /** The 16 bytes of a topic id on the wire (most significant byte first) as a UUID. */
    static UUID uuidOf(ByteString bytes) {
        if (bytes.size() != 16) {
            throw new IllegalArgumentException("a topic id has 16 bytes, got " + bytes.size());
        }
        ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
        return new UUID(buffer.getLong(), buffer.getLong());
    }

    static ByteString bytesOf(UUID id) {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        buffer.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return ByteString.copyFrom(buffer.array());
    }
}
