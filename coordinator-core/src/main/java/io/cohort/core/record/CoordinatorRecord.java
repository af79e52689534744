package io.cohort.core.record;

import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.ConsumerMemberMetadata;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.topic.TopicMetadata;
import java.util.Collections;
import java.util.Comparator;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a handler asks the shard to change. Replaying records is the only way the shard's state
 * changes, on the leader and on every follower alike, and a snapshot is the sorted list of records
 * that rebuilds the state. There are two families, as in {@code __consumer_offsets}: group values
 * and offsets, each with a tombstone; and a third, the cluster's ACLs, kept by partition 0 only.
 */
public sealed interface CoordinatorRecord {

    /** The group this record belongs to. */
    String groupId();

    /** The group's whole new value (Cohort replicates in-flight rebalances too). */
    record GroupValue(ClassicGroup group) implements CoordinatorRecord {
        public GroupValue {
            Objects.requireNonNull(group, "group");
        }

        @Override
        public String groupId() {
            return group.groupId();
        }
    }

    /** The group is removed (DeleteGroups, or expiry of an empty group's last offsets). */
    record GroupTombstone(String groupId) implements CoordinatorRecord {
        public GroupTombstone {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /** A committed offset of one partition. */
    record OffsetValue(String groupId, String topic, int partition, OffsetAndMetadata value)
            implements CoordinatorRecord {
        public OffsetValue {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(value, "value");
        }
    }

    /** A partition's committed offset is removed. */
    record OffsetTombstone(String groupId, String topic, int partition) implements CoordinatorRecord {
        public OffsetTombstone {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(topic, "topic");
        }
    }

    /** An ACL is added. ACL records belong to no group: {@link #groupId()} is "". */
    record AclValue(AclBinding binding) implements CoordinatorRecord {
        public AclValue {
            Objects.requireNonNull(binding, "binding");
        }

        @Override
        public String groupId() {
            return "";
        }
    }

    /** An ACL is removed. */
    record AclTombstone(AclBinding binding) implements CoordinatorRecord {
        public AclTombstone {
            Objects.requireNonNull(binding, "binding");
        }

        @Override
        public String groupId() {
            return "";
        }
    }

    /**
     * The partition's online group settings (SetGroupConfig). Belongs to no group: {@link #groupId()}
     * is "". In a snapshot only when they differ from the initial ones (version > 0), first.
     */
    record GroupConfigValue(GroupSettings settings) implements CoordinatorRecord {
        public GroupConfigValue {
            Objects.requireNonNull(settings, "settings");
        }

        @Override
        public String groupId() {
            return "";
        }
    }

    // ---- Consumer groups (KIP-848): per-group and per-member records, as Kafka's, so that one
    // heartbeat writes only what it changed, never the whole group. A group is a consumer group from
    // its first record on (an empty classic group with the same id is replaced); see
    // GroupCoordinatorShard#replay for the invariants each record must keep.

    /** Marks records of a consumer group's member (ordered by member id in a snapshot). */
    sealed interface ConsumerMemberRecord extends CoordinatorRecord permits ConsumerMemberMetadataValue,
            ConsumerTargetAssignmentValue, ConsumerCurrentAssignmentValue, ConsumerMemberTombstone {
        String memberId();
    }

    /** A consumer group's epoch (Kafka's ConsumerGroupMetadataValue); creates the group if absent. */
    record ConsumerGroupEpochValue(String groupId, int groupEpoch) implements CoordinatorRecord {
        public ConsumerGroupEpochValue {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /** The consumer group is removed; it must have no members and no offsets left. */
    record ConsumerGroupTombstone(String groupId) implements CoordinatorRecord {
        public ConsumerGroupTombstone {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /**
     * The metadata of the topics the group subscribes to, by name, as the heartbeat that changed it
     * looked them up (Kafka's ConsumerGroupPartitionMetadataValue).
     */
    record ConsumerSubscriptionMetadataValue(String groupId, SortedMap<String, TopicMetadata> topics)
            implements CoordinatorRecord {
        public ConsumerSubscriptionMetadataValue {
            Objects.requireNonNull(groupId, "groupId");
            topics = Collections.unmodifiableSortedMap(new TreeMap<>(topics));
        }
    }

    /** Every regex the group's members subscribe to and the topic names it resolved to. */
    record ConsumerRegexResolutionsValue(String groupId, SortedMap<String, SortedSet<String>> resolutions)
            implements CoordinatorRecord {
        public ConsumerRegexResolutionsValue {
            Objects.requireNonNull(groupId, "groupId");
            TreeMap<String, SortedSet<String>> copy = new TreeMap<>();
            resolutions.forEach((regex, names) -> copy.put(regex, Collections.unmodifiableSortedSet(
                    new TreeSet<>(names))));
            resolutions = Collections.unmodifiableSortedMap(copy);
        }
    }

    /** The epoch the target assignment was computed for (Kafka's TargetAssignmentMetadataValue). */
    record ConsumerAssignmentEpochValue(String groupId, int assignmentEpoch) implements CoordinatorRecord {
        public ConsumerAssignmentEpochValue {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /** A member's metadata (Kafka's ConsumerGroupMemberMetadataValue); adds the member if it is new. */
    record ConsumerMemberMetadataValue(String groupId, String memberId, ConsumerMemberMetadata metadata)
            implements ConsumerMemberRecord {
        public ConsumerMemberMetadataValue {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(metadata, "metadata");
        }
    }

    /** A member's target assignment (Kafka's ConsumerGroupTargetAssignmentMemberValue). */
    record ConsumerTargetAssignmentValue(String groupId, String memberId, Assignment assignment)
            implements ConsumerMemberRecord {
        public ConsumerTargetAssignmentValue {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(assignment, "assignment");
        }
    }

    /** A member's current assignment and state (Kafka's ConsumerGroupCurrentMemberAssignmentValue). */
    record ConsumerCurrentAssignmentValue(String groupId, String memberId, ConsumerMemberAssignment assignment)
            implements ConsumerMemberRecord {
        public ConsumerCurrentAssignmentValue {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(assignment, "assignment");
        }
    }

    /**
     * The member is removed with its target and current assignment (Kafka writes three tombstones;
     * Cohort never removes one without the others, so one record says it).
     */
    record ConsumerMemberTombstone(String groupId, String memberId) implements ConsumerMemberRecord {
        public ConsumerMemberTombstone {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
        }
    }

    /**
     * The position of a group's record among the group's records in a snapshot: the classic value, or
     * the consumer group's group-level records (epoch first, so later ones find the group), then its
     * members' records, then the offsets.
     */
    static int groupRecordRank(CoordinatorRecord r) {
        if (r instanceof GroupValue) {
            return 0;
        } else if (r instanceof ConsumerGroupEpochValue) {
            return 1;
        } else if (r instanceof ConsumerSubscriptionMetadataValue) {
            return 2;
        } else if (r instanceof ConsumerRegexResolutionsValue) {
            return 3;
        } else if (r instanceof ConsumerAssignmentEpochValue) {
            return 4;
        } else if (r instanceof ConsumerMemberRecord) {
            return 5;
        }
        return 6;
    }

    /** A member's metadata before its target before its current assignment. */
    static int memberRecordRank(CoordinatorRecord r) {
        if (r instanceof ConsumerMemberMetadataValue) {
            return 0;
        } else if (r instanceof ConsumerTargetAssignmentValue) {
            return 1;
        }
        return 2;
    }

    /**
     * A topic of the registry is created or changed (its whole new value); partition 0 only. Belongs
     * to no group: {@link #groupId()} is "".
     */
    record TopicValue(TopicMetadata topic) implements CoordinatorRecord {
        public TopicValue {
            Objects.requireNonNull(topic, "topic");
        }

        @Override
        public String groupId() {
            return "";
        }
    }

    /** A topic is removed from the registry. */
    record TopicTombstone(String name) implements CoordinatorRecord {
        public TopicTombstone {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String groupId() {
            return "";
        }
    }

    /**
     * The snapshot order: the group settings (if changed) first, then ACLs (in {@link AclBinding} order),
     * then topics by name, then by group id, the group's value
     * before its offsets, offsets by topic then partition. A consumer group's records come in
     * {@link #groupRecordRank} order, its members' by member id, each in {@link #memberRecordRank} order.
     * Sorting makes a snapshot's bytes the same
     * on every replica.
     */
    Comparator<CoordinatorRecord> SNAPSHOT_ORDER = Comparator
            .comparingInt((CoordinatorRecord r) -> r instanceof GroupConfigValue ? 0 : r instanceof AclValue ? 1
                    : r instanceof TopicValue ? 2 : 3)
            .thenComparing((CoordinatorRecord r) -> r instanceof AclValue a ? a.binding() : null,
                    Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing((CoordinatorRecord r) -> r instanceof TopicValue t ? t.topic().name() : "")
            .thenComparing(CoordinatorRecord::groupId)
            .thenComparingInt(CoordinatorRecord::groupRecordRank)
            .thenComparing(r -> r instanceof ConsumerMemberRecord m ? m.memberId() : "")
            .thenComparingInt(CoordinatorRecord::memberRecordRank)
            .thenComparing(r -> r instanceof OffsetValue o ? o.topic() : "")
            .thenComparingInt(r -> r instanceof OffsetValue o ? o.partition() : -1);
}
