package io.cohort.client;

import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a membership loop's blocking attempts (a classic rebalance's JoinGroup and SyncGroup) on one
 * background thread, one at a time, so that the poll thread can wait for the attempt under way
 * only until its own deadline and take it up again in a later poll, as Kafka's poll does with its
 * requests in flight. Poll thread only, except {@link #shutdown}.
 *
 * @param <R> what an attempt ends with
 */
final class BackgroundAttempts<R> {
    private final ExecutorService thread;
    private Future<R> inFlight;

    BackgroundAttempts(String threadName) {
        this.thread = Executors.newSingleThreadExecutor(task -> Membership.daemon(task, threadName));
    }

    /** Whether an attempt was started and its result not yet taken by {@link #await}. */
    boolean inFlight() {
        return inFlight != null;
    }

    /** Starts {@code attempt}; only when none is in flight. */
    void start(Callable<R> attempt) {
        if (inFlight != null) {
            throw new IllegalStateException("an attempt is already in flight");
        }
        inFlight = thread.submit(attempt);
    }

    /**
     * Waits for the attempt in flight until {@code deadlineNanos} ({@link System#nanoTime}): its
     * result, or null if it is still under way (it stays in flight). Throws what the attempt threw,
     * and {@link CancellationException} if {@link #shutdown} ended it; either way it is no longer in
     * flight.
     */
    R await(long deadlineNanos) {
        try {
            R result = inFlight.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            inFlight = null;
            return result;
        } catch (TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (CancellationException e) {
            inFlight = null;
            throw e;
        } catch (ExecutionException e) {
            inFlight = null;
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Any thread: interrupts the attempt under way and ends the thread; no attempt starts afterwards. */
    void shutdown() {
        thread.shutdownNow();
    }
}
