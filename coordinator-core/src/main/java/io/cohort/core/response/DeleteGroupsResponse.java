package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import java.util.List;

/** A DeleteGroups answer: one result per group, in request order. */
public record DeleteGroupsResponse(List<GroupResult> results) implements Response {
    public DeleteGroupsResponse {
        results = List.copyOf(results);
    }

    public record GroupResult(String groupId, ErrorCode error) {
    }
}
