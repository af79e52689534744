package io.cohort.core.response;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import java.util.Objects;

/** A SyncGroup answer: the member's assignment (empty on error). */
public record SyncGroupResponse(ErrorCode error, String protocolType, String protocolName, Bytes assignment)
        implements Response {
    public SyncGroupResponse {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(assignment, "assignment");
    }

    public static SyncGroupResponse error(ErrorCode error) {
        return new SyncGroupResponse(error, null, null, Bytes.EMPTY);
    }
}
