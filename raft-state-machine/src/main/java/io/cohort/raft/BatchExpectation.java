package io.cohort.raft;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many commands a partition's next Raft entry waits for ({@link Proposer}'s batch linger).
 *
 * <p>The linger exists for synchronous clients: after an entry is applied, the clients it answered
 * send their next command at once, in a burst, and the next entry should carry the whole burst
 * rather than its first command alone (docs/BENCHMARKS.md, "Tuning" #7). Clients that pause between
 * commands (a consumer commits after processing a batch of records, every few seconds at most) do
 * not come back within the linger; waiting for them makes every entry wait out the whole linger and
 * adds it to every commit's latency, while the entry collects only what other clients happen to send
 * meanwhile (measured: at 32 committers pausing 50 ms, 55% of the entries waited out the 2 ms linger;
 * "Light load" in docs/BENCHMARKS.md).
 *
 * <p>So the expectation is learned: after each entry, count how many of the clients it answered come
 * back within one linger of its apply, as a share of them, and keep a moving average of that share.
 * The next entry waits for the answered clients times that share (rounded), plus whatever queued
 * while the entry was in flight. Synchronous clients keep the share near 1 and the linger as it was;
 * pausing clients bring it down until an entry no longer waits for anyone who is not already there.
 *
 * <p>A client is recognised by its command's return key (the group id: a consumer commits for its
 * own group), counted as a multiset so that several members of one group answered by one entry are
 * several returns. Only a command whose key the entry (or the entry before it) answered counts: other
 * clients' commands that happen to arrive within the window are load the next entry may carry, not
 * returns, and counting them kept the share high under a light load of many pausing clients (32
 * committers pausing 50 ms send ~0.6 commands per ms), so that a fifth to a quarter of the entries
 * waited out the linger for commands that were not coming (docs/BENCHMARKS.md, "Tuning" #24 and #25).
 * The entry before counts because on a loaded machine the tail of a burst comes back a window late;
 * counting only the entry's own clients then measured the share low and cut the batches (#25).
 *
 * <p>Threads: {@link #onApplied} runs on the partition's apply thread only; {@link #onArrival} on
 * any thread that submits. An arrival that races with {@link #onApplied} is scored in one window or
 * the other (or in neither), which the average absorbs.
 */
final class BatchExpectation {
    /** Weight of the newest window in the moving average: the last few entries decide. */
    static final double SMOOTHING = 0.25;

    /** One entry's window: the clients it answered, and how many of them came back so far. */
    private static final class Window {
        final long startNanos;
        final int answered;
        /** Return key -> answered commands with that key not yet back. Filled before publication. */
        final Map<String, AtomicInteger> outstanding;
        final AtomicInteger returns = new AtomicInteger();

        /** Null keys (no client to follow up) are skipped: neither counted as answered nor expected back. */
        Window(long startNanos, List<String> answeredKeys) {
            this.startNanos = startNanos;
            this.outstanding = new HashMap<>(Math.max(4, answeredKeys.size() * 2));
            int clients = 0;
            for (String key : answeredKeys) {
                if (key != null) {
                    outstanding.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                    clients++;
                }
            }
            this.answered = clients;
        }

        /** Takes one of {@code key}'s answered commands as back; false if none is outstanding. */
        boolean takeReturn(String key) {
            AtomicInteger waiting = key == null ? null : outstanding.get(key);
            if (waiting == null) {
                return false;
            }
            int left;
            do {
                left = waiting.get();
                if (left == 0) {
                    return false;
                }
            } while (!waiting.compareAndSet(left, left - 1));
            return true;
        }
    }

    private final long windowNanos;
    /** Moving average of (answered clients back within a window) / (clients answered). */
    private volatile double returnShare = 1.0;
    /** The window of the last entry that answered anyone; null: none to score. Its map is never written after publication. */
    private volatile Window window;
    /** The window before {@link #window}: its clients' late returns still count (see {@link #onArrival}). */
    private volatile Window previousWindow;

    /** @param windowNanos how soon a client must come back to count as returning: the linger */
    BatchExpectation(long windowNanos) {
        this.windowNanos = windowNanos;
    }

    /** A command with {@code returnKey} (null: none, never a return) was submitted at {@code nowNanos}. */
    void onArrival(String returnKey, long nowNanos) {
        Window current = window;
        if (current == null || nowNanos - current.startNanos > windowNanos) {
            return;
        }
        // A client of the entry before, back only now, counts too: on a loaded machine the tail of
        // one entry's burst comes back in the next window, where it stands in for the tail of this
        // window's own clients, which will come back in the window after.
        Window previous = previousWindow;
        if (current.takeReturn(returnKey) || (previous != null && previous.takeReturn(returnKey))) {
            current.returns.incrementAndGet();
        }
    }

    /**
     * An entry was applied at {@code nowNanos}, answering at once the commands whose return keys are
     * {@code answeredKeys}, with {@code queued} commands waiting. Scores the previous window, opens a
     * new one, and returns how many commands the next entry should wait for. A null key (a command no
     * client follows up: the leader's timers, administration) is neither scored nor expected back.
     */
    int onApplied(List<String> answeredKeys, int queued, long nowNanos) {
        Window previous = window;
        if (previous != null) {
            double share = Math.min(1.0, previous.returns.get() / (double) previous.answered);
            returnShare += (share - returnShare) * SMOOTHING;
        }
        Window opened = new Window(nowNanos, answeredKeys);
        previousWindow = previous;
        window = opened.answered == 0 ? null : opened;
        return (int) Math.round(opened.answered * returnShare) + queued;
    }

    /** The current moving average, for tests and diagnostics. */
    double returnShare() {
        return returnShare;
    }
}
