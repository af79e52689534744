package io.cohort.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Watches the listeners of many members and records every moment a partition would be owned by two
 * members at once (a partition assigned before its previous owner revoked or lost it).
 */
final class OwnershipTracker {
    private final Map<TopicPartition, String> owner = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private final List<String> events = new ArrayList<>();

    /** A listener for the member named {@code name} that reports to this tracker. */
    RebalanceListener listener(String name) {
        return new RebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                release(name, "revoked", partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                release(name, "lost", partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                acquire(name, partitions);
            }
        };
    }

    private synchronized void acquire(String name, Collection<TopicPartition> partitions) {
        events.add(name + " assigned " + partitions);
        for (TopicPartition tp : partitions) {
            String previous = owner.putIfAbsent(tp, name);
            if (previous != null && !previous.equals(name)) {
                violations.add(tp + " assigned to " + name + " while " + previous + " owns it");
            }
        }
    }

    private synchronized void release(String name, String how, Collection<TopicPartition> partitions) {
        events.add(name + " " + how + " " + partitions);
        for (TopicPartition tp : partitions) {
            if (!owner.remove(tp, name)) {
                violations.add(name + " " + how + " " + tp + " it did not own (owner: " + owner.get(tp) + ")");
            }
        }
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    synchronized Set<TopicPartition> owned(String name) {
        Set<TopicPartition> mine = new TreeSet<>();
        owner.forEach((tp, who) -> {
            if (who.equals(name)) {
                mine.add(tp);
            }
        });
        return mine;
    }

    synchronized int ownedCount() {
        return owner.size();
    }
}
