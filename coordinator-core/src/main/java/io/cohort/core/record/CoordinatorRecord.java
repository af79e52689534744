package io.cohort.core.record;

import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.topic.TopicMetadata;
import java.util.Comparator;
import java.util.Objects;

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
     * before its offsets, offsets by topic then partition. Sorting makes a snapshot's bytes the same
     * on every replica.
     */
    Comparator<CoordinatorRecord> SNAPSHOT_ORDER = Comparator
            .comparingInt((CoordinatorRecord r) -> r instanceof GroupConfigValue ? 0 : r instanceof AclValue ? 1
                    : r instanceof TopicValue ? 2 : 3)
            .thenComparing((CoordinatorRecord r) -> r instanceof AclValue a ? a.binding() : null,
                    Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing((CoordinatorRecord r) -> r instanceof TopicValue t ? t.topic().name() : "")
            .thenComparing(CoordinatorRecord::groupId)
            .thenComparingInt(r -> r instanceof GroupValue ? 0 : 1)
            .thenComparing(r -> r instanceof OffsetValue o ? o.topic() : "")
            .thenComparingInt(r -> r instanceof OffsetValue o ? o.partition() : -1);
}
