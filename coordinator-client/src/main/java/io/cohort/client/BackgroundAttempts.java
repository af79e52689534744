package io.cohort.client;

import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

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
    private final Wakeup wakeup;
    /** The attempt in flight; volatile for {@link #shutdown}. */
    private volatile CompletableFuture<R> inFlight;

    BackgroundAttempts(String threadName, Wakeup wakeup) {
        this.thread = Executors.newSingleThreadExecutor(task -> Membership.daemon(task, threadName));
        this.wakeup = wakeup;
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
        CompletableFuture<R> result = new CompletableFuture<>();
        inFlight = result;
        thread.execute(() -> {
            try {
                result.complete(attempt.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
    }

    /**
     * Waits for the attempt in flight until {@code deadlineNanos} ({@link System#nanoTime}): its
     * result, or null if it is still under way (it stays in flight). Throws what the attempt threw,
     * and {@link CancellationException} if {@link #shutdown} ended it; either way it is no longer in
     * flight. Throws {@link WakeupException} (the attempt stays in flight) on a wakeup.
     */
    R await(long deadlineNanos) {
        CompletableFuture<R> attempt = inFlight;
        if (!wakeup.await(attempt, deadlineNanos)) {
            return null;
        }
        inFlight = null;
        try {
            return attempt.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Any thread: ends the attempt under way (interrupting its call) and the thread; no attempt starts afterwards. */
    void shutdown() {
        CompletableFuture<R> attempt = inFlight;
        if (attempt != null) {
            attempt.cancel(false);
        }
        thread.shutdownNow();
    }
}
