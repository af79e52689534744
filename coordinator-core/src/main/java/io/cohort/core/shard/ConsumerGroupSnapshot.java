package io.cohort.core.shard;

import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.record.CoordinatorRecord;
import java.util.List;

/** The records that rebuild one consumer group from nothing (its part of a snapshot). */
final class ConsumerGroupSnapshot {
    private ConsumerGroupSnapshot() {
    }

    /**
     * Group-level records first (the epoch creates the group), then each member's metadata, target
     * and current assignment; a target kept for no member cannot exist (targets go with members).
     */
    static void appendRecords(ConsumerGroup group, List<CoordinatorRecord> records) {
        String groupId = group.groupId();
        records.add(new CoordinatorRecord.ConsumerGroupEpochValue(groupId, group.groupEpoch()));
        if (!group.subscriptionMetadata().isEmpty()) {
            records.add(new CoordinatorRecord.ConsumerSubscriptionMetadataValue(groupId, group.subscriptionMetadata()));
        }
        if (!group.regexResolutions().isEmpty()) {
            records.add(new CoordinatorRecord.ConsumerRegexResolutionsValue(groupId, group.regexResolutions()));
        }
        if (group.assignmentEpoch() != 0) {
            records.add(new CoordinatorRecord.ConsumerAssignmentEpochValue(groupId, group.assignmentEpoch()));
        }
        for (ConsumerGroupMember member : group.members().values()) {
            records.add(new CoordinatorRecord.ConsumerMemberMetadataValue(groupId, member.memberId(),
                    member.metadata()));
            if (group.targetAssignment().containsKey(member.memberId())) {
                records.add(new CoordinatorRecord.ConsumerTargetAssignmentValue(groupId, member.memberId(),
                        group.targetAssignment(member.memberId())));
            }
            records.add(new CoordinatorRecord.ConsumerCurrentAssignmentValue(groupId, member.memberId(),
                    member.current()));
        }
    }
}
