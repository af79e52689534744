package io.cohort.core.shard;

import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.CoordinatorRecord.ConsumerAssignmentEpochValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerCurrentAssignmentValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerGroupEpochValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberMetadataValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberTombstone;
import io.cohort.core.record.CoordinatorRecord.ConsumerRegexResolutionsValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerSubscriptionMetadataValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerTargetAssignmentValue;

/**
 * How one consumer-group record changes a group value. The shard's replay and the heartbeat
 * handler's working copy (which applies its own records as it goes, so each step of a heartbeat sees
 * the previous steps) share it, so both always agree.
 */
final class ConsumerGroupReplay {
    private ConsumerGroupReplay() {
    }

    /** Whether {@code record} is a consumer-group record other than the group tombstone. */
    static boolean isConsumerGroupRecord(CoordinatorRecord record) {
        return record instanceof ConsumerGroupEpochValue || record instanceof ConsumerSubscriptionMetadataValue
                || record instanceof ConsumerRegexResolutionsValue || record instanceof ConsumerAssignmentEpochValue
                || record instanceof CoordinatorRecord.ConsumerMemberRecord;
    }

    /** Whether {@code record} may be the first of a new group (it creates the group). */
    static boolean createsGroup(CoordinatorRecord record) {
        return record instanceof ConsumerGroupEpochValue || record instanceof ConsumerSubscriptionMetadataValue
                || record instanceof ConsumerRegexResolutionsValue || record instanceof ConsumerMemberMetadataValue;
    }

    /** The group after {@code record}; throws if the record breaks an invariant. */
    static ConsumerGroup apply(ConsumerGroup group, CoordinatorRecord record) {
        if (record instanceof ConsumerGroupEpochValue r) {
            return group.withGroupEpoch(r.groupEpoch());
        } else if (record instanceof ConsumerSubscriptionMetadataValue r) {
            return group.withSubscriptionMetadata(r.topics());
        } else if (record instanceof ConsumerRegexResolutionsValue r) {
            return group.withRegexResolutions(r.resolutions());
        } else if (record instanceof ConsumerAssignmentEpochValue r) {
            return group.withAssignmentEpoch(r.assignmentEpoch());
        } else if (record instanceof ConsumerMemberMetadataValue r) {
            return group.withMemberMetadata(r.memberId(), r.metadata());
        } else if (record instanceof ConsumerTargetAssignmentValue r) {
            return group.withTargetAssignment(r.memberId(), r.assignment());
        } else if (record instanceof ConsumerCurrentAssignmentValue r) {
            return group.withCurrentAssignment(r.memberId(), r.assignment());
        } else if (record instanceof ConsumerMemberTombstone r) {
            return group.withoutMember(r.memberId());
        }
        throw new IllegalStateException("Not a consumer group record: " + record);
    }
}
