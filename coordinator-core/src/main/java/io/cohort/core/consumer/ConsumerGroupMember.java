package io.cohort.core.consumer;

import java.util.Objects;

/**
 * One member of a consumer group (Kafka's {@code ConsumerGroupMember}): what it told the
 * coordinator and where its reconciliation stands. Immutable.
 */
public record ConsumerGroupMember(String memberId, ConsumerMemberMetadata metadata,
                                  ConsumerMemberAssignment current) {
    public ConsumerGroupMember {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(current, "current");
    }

    public int memberEpoch() {
        return current.memberEpoch();
    }

    public int previousMemberEpoch() {
        return current.previousMemberEpoch();
    }

    public MemberState state() {
        return current.state();
    }

    public Assignment assignedPartitions() {
        return current.assignedPartitions();
    }

    public Assignment partitionsPendingRevocation() {
        return current.partitionsPendingRevocation();
    }

    public String instanceId() {
        return metadata.instanceId();
    }

    public ConsumerGroupMember withMetadata(ConsumerMemberMetadata newMetadata) {
        return new ConsumerGroupMember(memberId, newMetadata, current);
    }

    public ConsumerGroupMember withCurrent(ConsumerMemberAssignment newCurrent) {
        return new ConsumerGroupMember(memberId, metadata, newCurrent);
    }

    /** Whether the member holds the target of {@code assignmentEpoch} and nothing else. */
    public boolean isReconciledTo(int assignmentEpoch) {
        return memberEpoch() == assignmentEpoch && state() == MemberState.STABLE;
    }
}
