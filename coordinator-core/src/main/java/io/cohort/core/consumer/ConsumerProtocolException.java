package io.cohort.core.consumer;

import io.cohort.core.ErrorCode;
import java.util.Objects;

/**
 * A consumer-protocol request the coordinator refuses, with Kafka's error and message. Thrown by the
 * {@code throwIf...} validations before any record is produced and turned into the answer by the
 * handler; it never escapes the shard.
 */
public final class ConsumerProtocolException extends RuntimeException {
    private final ErrorCode error;

    public ConsumerProtocolException(ErrorCode error, String message) {
        super(message, null, false, false);
        this.error = Objects.requireNonNull(error, "error");
    }

    public ErrorCode error() {
        return error;
    }
}
