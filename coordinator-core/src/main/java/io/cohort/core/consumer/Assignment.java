package io.cohort.core.consumer;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A set of partitions by topic id: a member's current or target assignment, or the partitions it
 * reports owning. Immutable and sorted (topic ids, then partitions), so that iterating it is the
 * same on every replica and its encoding is canonical. Topics with no partitions are not kept.
 */
public record Assignment(SortedMap<UUID, SortedSet<Integer>> partitions) {

    public static final Assignment EMPTY = new Assignment(new TreeMap<>());

    public Assignment {
        Objects.requireNonNull(partitions, "partitions");
        TreeMap<UUID, SortedSet<Integer>> copy = new TreeMap<>();
        for (Map.Entry<UUID, ? extends SortedSet<Integer>> e : partitions.entrySet()) {
            if (!e.getValue().isEmpty()) {
                copy.put(Objects.requireNonNull(e.getKey(), "topicId"),
                        Collections.unmodifiableSortedSet(new TreeSet<>(e.getValue())));
            }
        }
        partitions = Collections.unmodifiableSortedMap(copy);
    }

    /** An assignment from any map of topic id to partitions (copied and sorted). */
    public static Assignment of(Map<UUID, ? extends java.util.Collection<Integer>> partitions) {
        TreeMap<UUID, SortedSet<Integer>> sorted = new TreeMap<>();
        partitions.forEach((topic, parts) -> sorted.put(topic, new TreeSet<>(parts)));
        return new Assignment(sorted);
    }

    /** The partitions of one topic (empty if none). */
    public SortedSet<Integer> partitionsOf(UUID topicId) {
        SortedSet<Integer> set = partitions.get(topicId);
        return set == null ? Collections.emptySortedSet() : set;
    }

    public boolean isEmpty() {
        return partitions.isEmpty();
    }

    /** The number of partitions over all topics. */
    public int size() {
        int n = 0;
        for (SortedSet<Integer> set : partitions.values()) {
            n += set.size();
        }
        return n;
    }

    public boolean contains(UUID topicId, int partition) {
        return partitionsOf(topicId).contains(partition);
    }
}
