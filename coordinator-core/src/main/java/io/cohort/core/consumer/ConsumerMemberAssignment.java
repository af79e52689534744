package io.cohort.core.consumer;

import java.util.Objects;

/**
 * A consumer-protocol member's current assignment and reconciliation state (Kafka's
 * ConsumerGroupCurrentMemberAssignmentValue): one record per change.
 *
 * @param memberEpoch                 the epoch of the assignment the member holds; -2 after a static
 *                                    member left temporarily
 * @param previousMemberEpoch         the epoch before the last bump (the "one epoch behind" acceptance)
 * @param assignedPartitions          what the member may own now
 * @param partitionsPendingRevocation what it must give up before it moves on
 */
public record ConsumerMemberAssignment(int memberEpoch, int previousMemberEpoch, MemberState state,
                                       Assignment assignedPartitions, Assignment partitionsPendingRevocation) {
    public ConsumerMemberAssignment {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(assignedPartitions, "assignedPartitions");
        Objects.requireNonNull(partitionsPendingRevocation, "partitionsPendingRevocation");
    }

    /** A member that just joined: epoch 0, nothing owned. */
    public static final ConsumerMemberAssignment JOINING =
            new ConsumerMemberAssignment(0, 0, MemberState.STABLE, Assignment.EMPTY, Assignment.EMPTY);
}
