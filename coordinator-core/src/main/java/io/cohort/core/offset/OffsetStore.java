package io.cohort.core.offset;

import io.cohort.core.record.OffsetAndMetadata;
import java.util.Collections;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Committed offsets by group, then by topic-partition in sorted order. Written only by replay on the
 * apply thread; concurrent maps let reads (OffsetFetch, describe, metrics) run beside apply.
 */
public final class OffsetStore {
    private final ConcurrentHashMap<String, ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata>> byGroup =
            new ConcurrentHashMap<>();

    /** Stores {@code value}; returns the value it replaced, or null. */
    public OffsetAndMetadata put(String groupId, TopicPartition partition, OffsetAndMetadata value) {
        return byGroup.computeIfAbsent(groupId, id -> new ConcurrentSkipListMap<>()).put(partition, value);
    }

    /** Removes the offset; returns the value removed, or null if there was none. */
    public OffsetAndMetadata remove(String groupId, TopicPartition partition) {
        ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata> offsets = byGroup.get(groupId);
        if (offsets == null) {
            return null;
        }
        OffsetAndMetadata removed = offsets.remove(partition);
        if (offsets.isEmpty()) {
            byGroup.remove(groupId);
        }
        return removed;
    }

    public OffsetAndMetadata get(String groupId, TopicPartition partition) {
        ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata> offsets = byGroup.get(groupId);
        return offsets == null ? null : offsets.get(partition);
    }

    /** The group's offsets in topic-partition order (a live, read-only, weakly consistent view). */
    public NavigableMap<TopicPartition, OffsetAndMetadata> offsets(String groupId) {
        ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata> offsets = byGroup.get(groupId);
        return offsets == null ? Collections.emptyNavigableMap() : Collections.unmodifiableNavigableMap(offsets);
    }

    /**
     * Appends the group's offsets, in topic-partition order, to {@code copy} and returns their index
     * there ({@link OffsetColumns#forEachOf}), or -1 when the group has none; consistent when called
     * by the only writer (the apply thread). One pass over keys and values each, no object per offset:
     * a snapshot's cut copies every offset this way.
     */
    public int copyInto(String groupId, OffsetColumns copy) {
        ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata> offsets = byGroup.get(groupId);
        if (offsets == null || offsets.isEmpty()) {
            return -1;
        }
        int index = copy.startGroup(groupId);
        Iterator<OffsetAndMetadata> values = offsets.values().iterator();
        for (TopicPartition partition : offsets.keySet()) {
            copy.add(partition, values.next());
        }
        return index;
    }

    public boolean hasOffsets(String groupId) {
        ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata> offsets = byGroup.get(groupId);
        return offsets != null && !offsets.isEmpty();
    }

    public Set<String> groupIds() {
        return Collections.unmodifiableSet(byGroup.keySet());
    }

    /** The number of committed offsets held, over all groups. */
    public long size() {
        long total = 0;
        for (ConcurrentSkipListMap<TopicPartition, OffsetAndMetadata> offsets : byGroup.values()) {
            total += offsets.size();
        }
        return total;
    }
}
