package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import java.util.List;

/** A per-partition error, grouped by topic (OffsetCommit and OffsetDelete answers). */
public record PartitionError(int partition, ErrorCode error) {

    /** The partitions of one topic with their errors. */
    public record TopicErrors(String topic, List<PartitionError> partitions) {
        public TopicErrors {
            partitions = List.copyOf(partitions);
        }
    }
}
