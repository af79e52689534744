package io.cohort.raft;

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
 * <p>So the expectation is learned: after each entry, count the commands that arrive within one
 * linger of its apply, as a share of the clients it answered (at most 1), and keep a moving average
 * of that share. The next entry waits for the answered clients times that share (rounded), plus
 * whatever queued while the entry was in flight. Synchronous clients keep the share near 1 and the
 * linger as it was; pausing clients bring it down until an entry no longer waits for anyone who is
 * not already there.
 *
 * <p>Threads: {@link #onApplied} runs on the partition's apply thread only; {@link #onArrival} on
 * any thread that submits. An arrival that races with {@link #onApplied} is counted in one window or
 * the other, which the average absorbs.
 */
final class BatchExpectation {
    /** Weight of the newest window in the moving average: the last few entries decide. */
    static final double SMOOTHING = 0.25;

    private final long windowNanos;
    /** Moving average of (arrivals within a window) / (clients answered before it), each at most 1. */
    private volatile double returnShare = 1.0;
    /** {@link System#nanoTime()} when the current window opened; meaningful once {@link #windowAnswered} > 0. */
    private volatile long windowStartNanos;
    /** Clients answered by the entry that opened the current window; 0: no window to score. */
    private volatile int windowAnswered;
    private final AtomicInteger windowArrivals = new AtomicInteger();

    /** @param windowNanos how soon a client must come back to count as returning: the linger */
    BatchExpectation(long windowNanos) {
        this.windowNanos = windowNanos;
    }

    /** A command was submitted at {@code nowNanos}. */
    void onArrival(long nowNanos) {
        if (windowAnswered > 0 && nowNanos - windowStartNanos <= windowNanos) {
            windowArrivals.incrementAndGet();
        }
    }

    /**
     * An entry was applied at {@code nowNanos}, answering {@code answeredNow} clients, with
     * {@code queued} commands waiting. Scores the previous window, opens a new one, and returns how
     * many commands the next entry should wait for.
     */
    int onApplied(int answeredNow, int queued, long nowNanos) {
        int answered = windowAnswered;
        if (answered > 0) {
            double share = Math.min(1.0, windowArrivals.get() / (double) answered);
            returnShare += (share - returnShare) * SMOOTHING;
        }
        windowArrivals.set(0);
        windowStartNanos = nowNanos;
        windowAnswered = answeredNow;
        return (int) Math.round(answeredNow * returnShare) + queued;
    }

    /** The current moving average, for tests and diagnostics. */
    double returnShare() {
        return returnShare;
    }
}
