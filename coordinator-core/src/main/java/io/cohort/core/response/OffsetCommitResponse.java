package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import java.util.List;

/**
 * An OffsetCommit answer. Kafka has no top-level error here: a group-level error is copied into
 * every requested partition.
 *
 * @param errorMessage why the request was refused, when the code alone cannot say it (a state limit
 *                     names its key and value); null otherwise
 */
public record OffsetCommitResponse(List<PartitionError.TopicErrors> topics, String errorMessage) implements Response {
    public OffsetCommitResponse {
        topics = List.copyOf(topics);
    }

    public OffsetCommitResponse(List<PartitionError.TopicErrors> topics) {
        this(topics, null);
    }

    /** The same error for every partition of {@code request}. */
    public static OffsetCommitResponse allFailed(Command.OffsetCommit request, ErrorCode error) {
        return allFailed(request, error, null);
    }

    /** The same error for every partition of {@code request}, explained by {@code message}. */
    public static OffsetCommitResponse allFailed(Command.OffsetCommit request, ErrorCode error, String message) {
        return new OffsetCommitResponse(request.topics().stream()
                .map(t -> new PartitionError.TopicErrors(t.topic(), t.partitions().stream()
                        .map(p -> new PartitionError(p.partition(), error)).toList()))
                .toList(), message);
    }
}
