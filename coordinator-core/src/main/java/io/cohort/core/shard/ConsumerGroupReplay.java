package io.cohort.core.shard;

import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.CoordinatorRecord.ConsumerAssignmentEpochValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerCurrentAssignmentValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerGroupEpochValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberMetadataValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberTombstone;
import io.cohort.core.record.CoordinatorRecord.ConsumerRegexResolutionsValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerSubscriptionMetadataValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerTargetAssignmentValue;
import java.util.Map;

/**
 * Replay of consumer-group records into the shard's maps, keeping the invariants between the two
 * group types (one type per group id) and the offsets. How one record changes a group value
 * ({@link #apply}) is shared by the shard's replay and the heartbeat handler's working copy (which
 * applies its own records as it goes, so each step of a heartbeat sees the previous steps), so both
 * always agree.
 */
final class ConsumerGroupReplay {
    private final Map<String, ConsumerGroup> consumerGroups;
    private final Map<String, ClassicGroup> groups;
    private final OffsetStore offsets;
    private final StateUsage usage;

    ConsumerGroupReplay(Map<String, ConsumerGroup> consumerGroups, Map<String, ClassicGroup> groups, OffsetStore offsets,
                        StateUsage usage) {
        this.consumerGroups = consumerGroups;
        this.groups = groups;
        this.offsets = offsets;
        this.usage = usage;
    }

    /** A classic group replaces a consumer group only when it is empty (offsets only). */
    void replaceEmptyConsumerGroup(String groupId) {
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null) {
            if (!consumerGroup.isEmpty()) {
                throw new IllegalStateException("Classic group " + groupId + " replaces a consumer group with members "
                        + consumerGroup.members().keySet());
            }
            consumerGroups.remove(groupId);
        }
    }

    void replay(CoordinatorRecord record) {
        String groupId = record.groupId();
        ConsumerGroup group = consumerGroups.get(groupId);
        if (group == null) {
            if (!createsGroup(record)) {
                throw new IllegalStateException("Record for unknown consumer group " + groupId + ": " + record);
            }
            // The first record of a consumer group replaces an empty classic group of the same id
            // (Kafka's conversion of a group that holds only offsets); one with members cannot be.
            ClassicGroup classic = groups.get(groupId);
            if (classic != null) {
                if (!classic.members().isEmpty() || !classic.pendingMembers().isEmpty()) {
                    throw new IllegalStateException("Consumer group " + groupId + " replaces classic group with members "
                            + classic.members().keySet());
                }
                usage.onGroupReplaced(groups.remove(groupId), null);
            }
            group = ConsumerGroup.newEmpty(groupId);
        }
        consumerGroups.put(groupId, apply(group, record));
    }

    void replayTombstone(String groupId) {
        ConsumerGroup group = consumerGroups.get(groupId);
        if (group == null) {
            throw new IllegalStateException("Tombstone for unknown consumer group " + groupId);
        }
        if (!group.isEmpty()) {
            throw new IllegalStateException("Consumer group " + groupId + " deleted with members "
                    + group.members().keySet());
        }
        if (offsets.hasOffsets(groupId)) {
            throw new IllegalStateException("Consumer group " + groupId + " deleted while it still has offsets "
                    + offsets.offsets(groupId).keySet());
        }
        consumerGroups.remove(groupId);
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
