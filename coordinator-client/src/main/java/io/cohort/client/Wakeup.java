package io.cohort.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A member's pending {@link GroupMember#wakeup}: set by any thread, taken (and thrown as
 * {@link WakeupException}) by the poll thread's next wait that may be woken, or the one under way.
 */
final class Wakeup {
    private final Object monitor = new Object();
    /** Guarded by {@link #monitor}. */
    private boolean requested;
    /**
     * Guarded by {@link #monitor}: the future whose completion already notifies the monitor, so that
     * polls waiting again and again for one rebalance attempt add one callback, not one per poll.
     */
    private CompletableFuture<?> notifying;

    /** Any thread: asks for the next (or current) wait to end with a WakeupException. */
    void request() {
        synchronized (monitor) {
            requested = true;
            monitor.notifyAll();
        }
    }

    /** Whether a wakeup is waiting to be thrown. */
    boolean pending() {
        synchronized (monitor) {
            return requested;
        }
    }

    /** Throws the pending wakeup, if there is one (and clears it). */
    void throwIfRequested() {
        synchronized (monitor) {
            takeLocked();
        }
    }

    /**
     * Waits until {@code future} completes or {@code deadlineNanos} ({@link System#nanoTime})
     * passes: true if it completed, false at the deadline. Throws WakeupException as soon as a
     * wakeup is pending (the future goes on), and InterruptException if the thread is interrupted.
     */
    boolean await(CompletableFuture<?> future, long deadlineNanos) {
        synchronized (monitor) {
            if (future != notifying) {
                notifying = future;
                future.whenComplete((result, failure) -> {
                    synchronized (monitor) {
                        monitor.notifyAll();
                    }
                });
            }
            while (true) {
                takeLocked();
                if (future.isDone()) {
                    return true;
                }
                long leftNanos = deadlineNanos - System.nanoTime();
                if (leftNanos <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, leftNanos);
                } catch (InterruptedException e) {
                    throw new InterruptException(e);
                }
            }
        }
    }

    private void takeLocked() {
        if (requested) {
            requested = false;
            throw new WakeupException();
        }
    }
}
