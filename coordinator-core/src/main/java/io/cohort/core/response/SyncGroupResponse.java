package io.cohort.core.response;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import java.util.Objects;

/**
 * A SyncGroup answer: the member's assignment (empty on error).
 *
 * @param errorMessage why the sync was refused, when the code alone cannot say it (a state limit
 *                     names its key and value); null otherwise
 */
public record SyncGroupResponse(ErrorCode error, String protocolType, String protocolName, Bytes assignment,
                                String errorMessage) implements Response {
    public SyncGroupResponse {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(assignment, "assignment");
    }

    public SyncGroupResponse(ErrorCode error, String protocolType, String protocolName, Bytes assignment) {
        this(error, protocolType, protocolName, assignment, null);
    }

    public static SyncGroupResponse error(ErrorCode error) {
        return new SyncGroupResponse(error, null, null, Bytes.EMPTY);
    }

    /** An error answer explained by {@code message}. */
    public static SyncGroupResponse error(ErrorCode error, String message) {
        return new SyncGroupResponse(error, null, null, Bytes.EMPTY, message);
    }
}
