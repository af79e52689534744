package io.cohort.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node's replicas have applied the log they held when the node started.
 *
 * <p>At start each replica loads its newest snapshot and then applies, on its own apply thread, the
 * entries of its log after it, as soon as it learns they are committed: from the leader's first
 * message (Ratis keeps no commit index on disk unless {@code raft.log.metadata.enabled}), or from its
 * own election. So the span waited for is the replica's snapshot index to the last entry of its log
 * at start; entries of it that were never committed are replaced by the leader's, and the applied
 * index passes the span's end once the cluster commits anything. Until that is done the replica
 * cannot serve as a leader, and on a large log it is most of a restart: 100,000 groups with
 * 1,000,000 offsets in one partition's log took 4-6 s of the 7-10 s from SIGKILL to caught up
 * (docs/OPERATIONS.md, "How long a restart takes"). This records each replica's span at start and
 * reports when they are all applied: one log line with the time it took, so that an operator sees
 * which part of a slow restart was the replay, and a future, for which the leader-path warm-up holds
 * its load while a long replay runs.
 *
 * <p>A replica that cannot report its applied index any more (closed, moved away) no longer holds
 * the node back. Entries the leader sends after the start are not counted: they are catch-up, not
 * replay.
 */
final class StartupReplay {
    private static final Logger LOG = LoggerFactory.getLogger(StartupReplay.class);
    /** How often the replay is checked: what waits for it starts this late at most. */
    private static final long CHECK_INTERVAL_MS = 50;

    /** One replica at start: applied up to {@code appliedIndex} (its snapshot), its log up to {@code lastIndex}. */
    record Span(int partition, long appliedIndex, long lastIndex) {
        /** Entries to apply: 0 when the snapshot covers the log (or the replica could not tell). */
        long entries() {
            return Math.max(0, lastIndex - appliedIndex);
        }
    }

    private final int nodeId;
    private final long startNanos;
    /** The replicas still applying; emptied as they finish. Touched by {@link #check} only. */
    private final List<Span> pending = new ArrayList<>();
    private final List<Span> spans;
    private final CompletableFuture<Void> applied = new CompletableFuture<>();

    /**
     * @param spans every hosted replica's span, read right after the Raft server started
     * @param startNanos when the node's start began ({@link System#nanoTime()}), for the log line
     */
    StartupReplay(int nodeId, List<Span> spans, long startNanos) {
        this.nodeId = nodeId;
        this.startNanos = startNanos;
        this.spans = List.copyOf(spans);
        for (Span span : spans) {
            if (span.entries() > 0) {
                pending.add(span);
            }
        }
    }

    /**
     * Records each of {@code partitions}' span (its applied index, the snapshot's, to the last entry of
     * its log) and checks on {@code scheduler} until they are applied.
     */
    static StartupReplay watch(int nodeId, List<Integer> partitions, IntToLongFunction appliedIndex,
                               IntToLongFunction lastLogIndex, long startNanos, ScheduledExecutorService scheduler) {
        List<Span> spans = new ArrayList<>();
        for (int p : partitions) {
            spans.add(new Span(p, appliedIndex.applyAsLong(p), lastLogIndex.applyAsLong(p)));
        }
        StartupReplay replay = new StartupReplay(nodeId, spans, startNanos);
        if (replay.check(appliedIndex, System.nanoTime())) {
            return replay;
        }
        AtomicReference<ScheduledFuture<?>> poll = new AtomicReference<>();
        poll.set(scheduler.scheduleWithFixedDelay(() -> {
            ScheduledFuture<?> self = poll.get();
            // Null only if the first check ran before the schedule returned: the next one cancels.
            if (replay.check(appliedIndex, System.nanoTime()) && self != null) {
                self.cancel(false);
            }
        }, CHECK_INTERVAL_MS, CHECK_INTERVAL_MS, TimeUnit.MILLISECONDS));
        return replay;
    }

    /** Completes once every replica applied the log it held at start; exceptionally if the node stopped first. */
    CompletableFuture<Void> applied() {
        return applied;
    }

    /**
     * Compares each pending replica's applied index ({@code appliedIndex}, negative when the replica
     * cannot tell) with the end of its span; completes {@link #applied()} when none is left. Returns whether it
     * is done. Called from one thread at a time.
     */
    synchronized boolean check(IntToLongFunction appliedIndex, long nowNanos) {
        if (applied.isDone()) {
            return true;
        }
        pending.removeIf(span -> {
            long index = appliedIndex.applyAsLong(span.partition());
            return index < 0 || index >= span.lastIndex();
        });
        if (!pending.isEmpty()) {
            return false;
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(nowNanos - startNanos);
        List<String> replayed = new ArrayList<>();
        for (Span span : spans) {
            if (span.entries() > 0) {
                replayed.add("partition " + span.partition() + ": " + (span.appliedIndex() + 1) + " to "
                        + span.lastIndex());
            }
        }
        if (replayed.isEmpty()) {
            LOG.debug("node {}: nothing to apply at start: every replica's snapshot covers its log", nodeId);
        } else {
            LOG.info("node {}: applied the log it held at start, {} entries, {} ms after its Raft start began ({})",
                    nodeId, entries(), elapsedMs, String.join("; ", replayed));
        }
        applied.complete(null);
        return true;
    }

    /**
     * Whether {@code partition}'s replica has applied the log it held at start (as of the last check,
     * every 50 ms); true for a partition not hosted at start.
     */
    synchronized boolean replayed(int partition) {
        if (applied.isDone()) {
            return true;
        }
        for (Span span : pending) {
            if (span.partition() == partition) {
                return false;
            }
        }
        return true;
    }

    /** The node stopped: whoever waits for the replay stops waiting. */
    void cancel() {
        applied.completeExceptionally(new IllegalStateException("node " + nodeId + " stopped"));
    }

    /** Entries to apply at start, over every replica: the sum of the spans. */
    long entries() {
        return spans.stream().mapToLong(Span::entries).sum();
    }

    /** The spans recorded at start, in partition order (for tests). */
    List<Span> spans() {
        return spans;
    }
}
