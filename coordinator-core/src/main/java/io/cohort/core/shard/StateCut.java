package io.cohort.core.shard;

import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.offset.OffsetColumns;
import io.cohort.core.record.CoordinatorRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * A consistent cut of a shard's whole state, taken between two applied entries: what a snapshot
 * holds. Taking it ({@link GroupCoordinatorShard#cut()}) copies references: the groups, immutable
 * values, and the offsets, immutable records, into a few arrays ({@link OffsetColumns}); nothing is
 * allocated per offset, so the apply thread pays little, and the cut stays what it was while the shard goes
 * on applying. Building the records and putting them in snapshot order, most of a snapshot's cost
 * before its bytes, happens in {@link #records()}, on whatever thread writes the snapshot.
 */
public final class StateCut {
    /** One group of the cut: its value (classic or consumer) and its offsets' index in the copy, or -1. */
    record Group(String groupId, ClassicGroup classic, ConsumerGroup consumer, int offsetsIndex) {
    }

    private final List<CoordinatorRecord> settingsAclsTopics;
    private final List<Group> groups;
    private final OffsetColumns offsets;
    private List<CoordinatorRecord> records;

    StateCut(List<CoordinatorRecord> settingsAclsTopics, List<Group> groups, OffsetColumns offsets) {
        this.settingsAclsTopics = settingsAclsTopics;
        this.groups = groups;
        this.offsets = offsets;
    }

    /**
     * The records in {@link CoordinatorRecord#SNAPSHOT_ORDER}, a total order over the records of one
     * state (no two compare equal), so the list, and a snapshot's bytes, depend only on the state.
     */
    public synchronized List<CoordinatorRecord> records() {
        if (records == null) {
            List<CoordinatorRecord> built = new ArrayList<>(settingsAclsTopics.size() + groups.size() * 4
                    + offsets.size());
            built.addAll(settingsAclsTopics);
            // Group by group in id order, each group's records in their snapshot order: the sort
            // below then finds runs already in order (a comparison per record, not a full sort).
            OffsetColumns.Visitor addOffset = (groupId, tp, value) ->
                    built.add(new CoordinatorRecord.OffsetValue(groupId, tp.topic(), tp.partition(), value));
            List<Group> byId = new ArrayList<>(groups);
            byId.sort(Comparator.comparing(Group::groupId));
            for (Group group : byId) {
                if (group.classic() != null) {
                    built.add(new CoordinatorRecord.GroupValue(group.classic()));
                } else {
                    ConsumerGroupSnapshot.appendRecords(group.consumer(), built);
                }
                if (group.offsetsIndex() >= 0) {
                    offsets.forEachOf(group.offsetsIndex(), addOffset);
                }
            }
            built.sort(CoordinatorRecord.SNAPSHOT_ORDER);
            records = Collections.unmodifiableList(built);
        }
        return records;
    }

    /** Classic and consumer groups in the cut. */
    public int groupCount() {
        return groups.size();
    }

    public long offsetCount() {
        return offsets.size();
    }
}
