package io.cohort.client.assignor;

import com.google.protobuf.ByteString;
import io.cohort.client.TopicPartition;
import java.util.List;
import java.util.Objects;

/**
 * One member's assignment as computed by the group leader's assignor (Kafka's
 * {@code ConsumerPartitionAssignor.Assignment}); travels as a {@code cohort.v1.ConsumerAssignment}.
 *
 * @param partitions the partitions assigned to the member, sorted
 * @param userData assignor-specific data for the member
 */
public record Assignment(List<TopicPartition> partitions, ByteString userData) {
    public Assignment {
        partitions = partitions.stream().sorted().toList();
        Objects.requireNonNull(userData, "userData");
    }

    public Assignment(List<TopicPartition> partitions) {
        this(partitions, ByteString.EMPTY);
    }
}
