package io.cohort.core.offset;

import io.cohort.core.record.OffsetAndMetadata;
import java.util.Arrays;

/**
 * Offsets of many groups copied into a few growing arrays (a snapshot's cut): group by group, each
 * group's topic-partitions and values index by index. Three references per offset and nothing
 * allocated per offset, so copying a million costs the apply thread little. Not thread-safe: filled
 * by one thread, then read by one.
 */
public final class OffsetColumns {
    private String[] groupIds = new String[16];
    /** Where each group's offsets end (exclusive) in the offset arrays. */
    private int[] groupEnds = new int[16];
    private int groups;
    private TopicPartition[] partitions = new TopicPartition[64];
    private OffsetAndMetadata[] values = new OffsetAndMetadata[64];
    private int size;

    /** Starts the next group's offsets; returns its index ({@link #forEachOf}). */
    int startGroup(String groupId) {
        if (groups == groupIds.length) {
            groupIds = Arrays.copyOf(groupIds, groups * 2);
            groupEnds = Arrays.copyOf(groupEnds, groups * 2);
        }
        groupIds[groups] = groupId;
        groupEnds[groups] = size;
        return groups++;
    }

    void add(TopicPartition partition, OffsetAndMetadata value) {
        if (size == partitions.length) {
            partitions = Arrays.copyOf(partitions, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        partitions[size] = partition;
        values[size] = value;
        size++;
        groupEnds[groups - 1] = size;
    }

    /** Offsets copied, over all groups. */
    public int size() {
        return size;
    }

    /** What one copied offset is given to. */
    public interface Visitor {
        void offset(String groupId, TopicPartition partition, OffsetAndMetadata value);
    }

    /** The offsets of the {@code group}th group copied, in topic-partition order. */
    public void forEachOf(int group, Visitor visitor) {
        int start = group == 0 ? 0 : groupEnds[group - 1];
        for (int i = start; i < groupEnds[group]; i++) {
            visitor.offset(groupIds[group], partitions[i], values[i]);
        }
    }
}
