package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import java.util.List;
import java.util.Objects;

/** An OffsetDelete answer; with a top-level error the partition list is empty. */
public record OffsetDeleteResponse(ErrorCode error, List<PartitionError.TopicErrors> topics) implements Response {
    public OffsetDeleteResponse {
        Objects.requireNonNull(error, "error");
        topics = List.copyOf(topics);
    }
}
