package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import java.util.List;
import java.util.Objects;

/** OffsetFetch for one group: a group-level error and the partitions' committed offsets. */
public record OffsetFetchResponse(String groupId, ErrorCode error, List<TopicOffsets> topics) {
    public OffsetFetchResponse {
        Objects.requireNonNull(error, "error");
        topics = List.copyOf(topics);
    }

    public record TopicOffsets(String topic, List<PartitionOffset> partitions) {
        public TopicOffsets {
            partitions = List.copyOf(partitions);
        }
    }

    /** A partition's committed offset; -1, -1 and "" when there is none. */
    public record PartitionOffset(int partition, long offset, int leaderEpoch, String metadata, ErrorCode error) {
        public static PartitionOffset none(int partition) {
            return new PartitionOffset(partition, -1L, -1, "", ErrorCode.NONE);
        }
    }
}
