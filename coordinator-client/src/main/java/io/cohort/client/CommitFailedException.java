package io.cohort.client;

import io.cohort.api.v1.ErrorCode;

/**
 * A member's commit was refused because the member is not, or no longer, part of the group's
 * current generation (Kafka's {@code CommitFailedException}): UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
 * REBALANCE_IN_PROGRESS or FENCED_INSTANCE_ID. The partitions may already belong to another member;
 * the member rejoins on its next {@link GroupMember#poll}.
 *
 * <p>Without a cause the commit was not applied. With one, an earlier attempt of it got no answer
 * (the cause: a deadline, a node that died mid-call) and may have been applied before the group
 * moved on; Kafka's client does not tell these apart.
 */
public class CommitFailedException extends CohortException {
    private static final long serialVersionUID = 1L;

    public CommitFailedException(ErrorCode errorCode, String message) {
        super(errorCode, message);
    }

    /**
     * With {@code cause}: an earlier attempt of the same commit that got no answer and may have been
     * applied; {@code message} whole when {@code codeInMessage} is false (it already names the code).
     */
    CommitFailedException(ErrorCode errorCode, String message, Throwable cause, boolean codeInMessage) {
        super(errorCode, message, cause, codeInMessage);
    }
}
