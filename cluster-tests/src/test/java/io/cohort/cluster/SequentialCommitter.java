package io.cohort.cluster;

import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Commits offsets 1, 2, 3, ... of one partition of its own group synchronously, without pause, on
 * its own thread, and keeps every acknowledgement's time: what a test needs to find lost commits
 * (the last acknowledged offset) and stalls (the longest time without an acknowledgement).
 */
final class SequentialCommitter {
    final String group;
    private final TopicPartition partition;
    private final CohortClient client;
    private final Thread thread;
    final AtomicLong failures = new AtomicLong();
    private volatile boolean running = true;
    volatile long lastAcked;
    volatile String lastError;
    private final List<Long> ackNanos = new ArrayList<>();

    SequentialCommitter(String group, TopicPartition partition, String bootstrap) {
        this.group = group;
        this.partition = partition;
        this.client = CohortClient.builder().bootstrap(bootstrap).clientId(group).build();
        this.thread = new Thread(this::loop, "committer-" + group);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        long offset = 0;
        while (running) {
            offset++;
            try {
                client.commitOffsets(group, Map.of(partition, new OffsetAndMetadata(offset)));
                lastAcked = offset;
                synchronized (ackNanos) {
                    ackNanos.add(System.nanoTime());
                }
            } catch (CohortException e) {
                // Unknown outcome (a node died or the client's retry budget ran out): a later offset supersedes it.
                failures.incrementAndGet();
                lastError = e.getMessage();
            }
        }
    }

    long ackCount() {
        synchronized (ackNanos) {
            return ackNanos.size();
        }
    }

    /** The longest time without an acknowledgement between {@code from} and {@code to} (System.nanoTime). */
    double longestPauseMs(long from, long to) {
        long previous = from;
        long longest = 0;
        synchronized (ackNanos) {
            for (long t : ackNanos) {
                if (t <= from) {
                    previous = Math.max(previous, from);
                    continue;
                }
                if (t > to) {
                    longest = Math.max(longest, t - previous);
                    return longest / 1e6;
                }
                longest = Math.max(longest, t - previous);
                previous = t;
            }
        }
        return Math.max(longest, to - previous) / 1e6;
    }

    void stop() throws InterruptedException {
        if (!running) {
            return;
        }
        running = false;
        thread.join(60_000);
        client.close();
    }

    /** Waits until every committer has at least {@code more} acknowledgements more than now. */
    static void awaitAcks(ProcessCluster cluster, List<SequentialCommitter> committers, long more, Duration bound) {
        Map<SequentialCommitter, Long> target = new HashMap<>();
        committers.forEach(c -> target.put(c, c.ackCount() + more));
        cluster.awaitCondition(bound, "every committer acknowledged " + more + " more commits",
                () -> committers.stream().allMatch(c -> c.ackCount() >= target.get(c)),
                () -> committers.stream().map(c -> "\n  " + c.group + ": " + c.ackCount() + " acks, last error "
                        + c.lastError).reduce("", String::concat));
    }
}
