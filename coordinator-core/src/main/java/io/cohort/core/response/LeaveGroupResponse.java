package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import java.util.List;
import java.util.Objects;

/** A LeaveGroup answer: a top-level error and one result per member, in request order. */
public record LeaveGroupResponse(ErrorCode error, List<MemberResult> members) implements Response {
    public LeaveGroupResponse {
        Objects.requireNonNull(error, "error");
        members = List.copyOf(members);
    }

    /** The outcome for one member as named in the request. */
    public record MemberResult(String memberId, String groupInstanceId, ErrorCode error) {
    }
}
