package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import java.util.List;

/**
 * An OffsetCommit answer. Kafka has no top-level error here: a group-level error is copied into
 * every requested partition.
 */
public record OffsetCommitResponse(List<PartitionError.TopicErrors> topics) implements Response {
    public OffsetCommitResponse {
        topics = List.copyOf(topics);
    }

    /** The same error for every partition of {@code request}. */
    public static OffsetCommitResponse allFailed(Command.OffsetCommit request, ErrorCode error) {
        return new OffsetCommitResponse(request.topics().stream()
                .map(t -> new PartitionError.TopicErrors(t.topic(), t.partitions().stream()
                        .map(p -> new PartitionError(p.partition(), error)).toList()))
                .toList());
    }
}
