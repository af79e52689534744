package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import java.util.Objects;

/** A Heartbeat answer. */
public record HeartbeatResponse(ErrorCode error) implements Response {
    public HeartbeatResponse {
        Objects.requireNonNull(error, "error");
    }
}
