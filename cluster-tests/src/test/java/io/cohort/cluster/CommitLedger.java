package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The offsets a failover test's members committed, for the "nothing acknowledged is lost" check:
 * each partition's offsets increase with every commit, so the last acknowledged one is the
 * largest; a commit that failed or went unanswered (a killed coordinator) may or may not have been
 * applied, so its offsets are "in doubt" and may be fetched back instead of the last acknowledged.
 */
final class CommitLedger {
    private final Map<TopicPartition, AtomicLong> nextOffset = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> acknowledged = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Set<Long>> inDoubt = new ConcurrentHashMap<>();

    /**
     * Commits the next offset of each of {@code partitions} through {@code commit} (a member's
     * commitSync) and records the outcome: null if acknowledged, else the failure.
     */
    CohortException commitNext(Collection<TopicPartition> partitions,
                               Consumer<Map<TopicPartition, OffsetAndMetadata>> commit) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        for (TopicPartition tp : new TreeSet<>(partitions)) {
            offsets.put(tp, new OffsetAndMetadata(nextOffset.computeIfAbsent(tp, t -> new AtomicLong())
                    .incrementAndGet()));
        }
        try {
            commit.accept(offsets);
            offsets.forEach((tp, offset) -> acknowledged.merge(tp, offset.offset(), Math::max));
            return null;
        } catch (CohortException e) {
            offsets.forEach((tp, offset) -> inDoubt.computeIfAbsent(tp, t -> ConcurrentHashMap.newKeySet())
                    .add(offset.offset()));
            return e;
        }
    }

    /** Offsets whose commit failed or went unanswered. */
    int inDoubtCount() {
        return inDoubt.values().stream().mapToInt(Set::size).sum();
    }

    /**
     * Every partition of {@code partitions} had a commit acknowledged, and {@code fetched} (the
     * group's offsets read after the run) holds each one's last acknowledged offset, or a later
     * in-doubt one.
     */
    void assertEveryAcknowledgedCommitFetched(Map<TopicPartition, OffsetAndMetadata> fetched, int partitions,
                                              History history) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> ack : new TreeMap<>(acknowledged).entrySet()) {
            OffsetAndMetadata got = fetched.get(ack.getKey());
            long last = ack.getValue();
            boolean ok = got != null && (got.offset() == last
                    || got.offset() > last && inDoubt.getOrDefault(ack.getKey(), Set.of()).contains(got.offset()));
            if (!ok) {
                problems.add(ack.getKey() + ": last acknowledged " + last + ", fetched " + got);
            }
        }
        history.record("fetched " + fetched.size() + " offsets; " + acknowledged.size() + " partitions acknowledged");
        assertThat(problems).as("acknowledged commits not fetched back").isEmpty();
        assertThat(acknowledged).hasSize(partitions);
    }
}
