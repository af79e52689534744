package io.cohort.client;

import io.cohort.api.v1.ErrorCode;

/**
 * A member's commit was refused because the member is not, or no longer, part of the group's
 * current generation (Kafka's {@code CommitFailedException}): UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
 * REBALANCE_IN_PROGRESS or FENCED_INSTANCE_ID. The partitions may already belong to another member;
 * the member rejoins on its next {@link GroupMember#poll}.
 */
public class CommitFailedException extends CohortException {
    private static final long serialVersionUID = 1L;

    public CommitFailedException(ErrorCode errorCode, String message) {
        super(errorCode, message);
    }
}
