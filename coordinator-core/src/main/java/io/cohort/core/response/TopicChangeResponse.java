package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.topic.TopicMetadata;
import java.util.List;
import java.util.Objects;

/**
 * The answer to CreateTopics, AlterTopics or DeleteTopics: one result per topic of the command, in
 * command order.
 */
public record TopicChangeResponse(List<TopicResult> results) implements Response {
    public TopicChangeResponse {
        results = List.copyOf(results);
    }

    /**
     * One topic's outcome.
     *
     * @param error   NONE, or the Kafka error (INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS,
     *                INVALID_PARTITIONS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST)
     * @param message why, for an error; "" otherwise
     * @param topic   the topic as it is after the command (as it would be, for validate_only), or as
     *                it was before a delete; null on error
     */
    public record TopicResult(String name, ErrorCode error, String message, TopicMetadata topic) {
        public TopicResult {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(message, "message");
        }

        public static TopicResult ok(TopicMetadata topic) {
            return new TopicResult(topic.name(), ErrorCode.NONE, "", topic);
        }

        public static TopicResult error(String name, ErrorCode error, String message) {
            return new TopicResult(name, error, message, null);
        }
    }
}
