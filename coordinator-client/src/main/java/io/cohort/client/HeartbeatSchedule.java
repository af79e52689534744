package io.cohort.client;

import java.time.Duration;

/**
 * When a {@link GroupMember}'s heartbeat thread sends next, as Kafka's consumer times it (its
 * {@code Heartbeat} timer and {@code AbstractCoordinator.HeartbeatThread}): heartbeats are on from
 * the moment a JoinGroup is answered (the member is then in a generation, waiting for or holding
 * its assignment) until the member rejoins or loses its generation, and the first one goes out one
 * interval after the JoinGroup answer, not on a fixed beat from the member's creation.
 *
 * <p>That phase matters for how fast a group notices a rebalance: members learn of one only from a
 * heartbeat's REBALANCE_IN_PROGRESS, so a group whose heartbeats were phased to when the members
 * were created waits up to a whole interval longer than one phased to its last join.
 *
 * <p>Times are {@link System#nanoTime()} values passed in; not thread-safe (the member's lock guards it).
 */
final class HeartbeatSchedule {
    private final long intervalNanos;
    private boolean enabled;
    private long nextNanos;

    HeartbeatSchedule(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("heartbeat interval must be positive, got " + interval);
        }
        this.intervalNanos = interval.toNanos();
    }

    /** A JoinGroup was answered at {@code nowNanos}: heartbeat from one interval later (Kafka's resetTimeouts). */
    void onJoined(long nowNanos) {
        enabled = true;
        nextNanos = nowNanos + intervalNanos;
    }

    /** The member is (re)joining or lost its generation: nothing to heartbeat for. */
    void disable() {
        enabled = false;
    }

    boolean isEnabled() {
        return enabled;
    }

    /** A heartbeat goes out at {@code nowNanos}: the next one is due an interval after it. */
    void onSent(long nowNanos) {
        nextNanos = nowNanos + intervalNanos;
    }

    /** Nanoseconds until the next heartbeat is due (0 or less: now); {@link Long#MAX_VALUE} while disabled. */
    long nanosUntilDue(long nowNanos) {
        return enabled ? nextNanos - nowNanos : Long.MAX_VALUE;
    }
}
