package io.cohort.core.shard;

import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * A consistent cut of a shard's whole state, taken between two applied entries: what a snapshot
 * holds. Taking it ({@link GroupCoordinatorShard#cut()}) copies a reference per group: to its value,
 * immutable, and to its offsets, which the cut freezes ({@link OffsetStore#freezeAll()}: the shard
 * copies a group's offsets before it next writes them). Nothing is copied per offset, so the apply
 * thread pays little, and the cut stays what it was while the shard goes on applying. Building the
 * records and putting them in snapshot order, most of a snapshot's cost before its bytes, happens
 * in {@link #records()}, on whatever thread writes the snapshot.
 */
public final class StateCut {
    /** One group of the cut: its value (classic or consumer) and its offsets, frozen (empty if none). */
    record Group(String groupId, ClassicGroup classic, ConsumerGroup consumer,
                 NavigableMap<TopicPartition, OffsetAndMetadata> offsets) {
    }

    private final List<CoordinatorRecord> settingsAclsTopics;
    private final List<Group> groups;
    private List<CoordinatorRecord> records;
    private long offsetCount;

    StateCut(List<CoordinatorRecord> settingsAclsTopics, List<Group> groups) {
        this.settingsAclsTopics = settingsAclsTopics;
        this.groups = groups;
    }

    /**
     * The records in {@link CoordinatorRecord#SNAPSHOT_ORDER}, a total order over the records of one
     * state (no two compare equal), so the list, and a snapshot's bytes, depend only on the state.
     */
    public synchronized List<CoordinatorRecord> records() {
        if (records == null) {
            List<CoordinatorRecord> built = new ArrayList<>(settingsAclsTopics.size() + groups.size() * 16);
            built.addAll(settingsAclsTopics);
            // Group by group in id order, each group's records in their snapshot order: the sort
            // below then finds runs already in order (a comparison per record, not a full sort).
            List<Group> byId = new ArrayList<>(groups);
            byId.sort(Comparator.comparing(Group::groupId));
            long offsetRecords = 0;
            for (Group group : byId) {
                if (group.classic() != null) {
                    built.add(new CoordinatorRecord.GroupValue(group.classic()));
                } else {
                    ConsumerGroupSnapshot.appendRecords(group.consumer(), built);
                }
                for (Map.Entry<TopicPartition, OffsetAndMetadata> offset : group.offsets().entrySet()) {
                    TopicPartition tp = offset.getKey();
                    built.add(new CoordinatorRecord.OffsetValue(group.groupId(), tp.topic(), tp.partition(),
                            offset.getValue()));
                    offsetRecords++;
                }
            }
            built.sort(CoordinatorRecord.SNAPSHOT_ORDER);
            offsetCount = offsetRecords;
            records = Collections.unmodifiableList(built);
        }
        return records;
    }

    /** Classic and consumer groups in the cut. */
    public int groupCount() {
        return groups.size();
    }

    /** Offsets in the cut; counted by {@link #records()}, which it calls if it has not run. */
    public synchronized long offsetCount() {
        records();
        return offsetCount;
    }
}
