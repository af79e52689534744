package io.cohort.raft;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;

/**
 * Notices a replica whose apply has stopped: entries are committed beyond what it applied, and its
 * applied index has not moved for {@code stalledAfterMs}. A replica catching up (a restart's replay,
 * a follower behind) applies something every few milliseconds, however far behind it is, so only a
 * stuck apply thread stays still that long.
 *
 * <p>Why it exists: twice a replica stopped applying for good while its log kept up (a deadlock
 * between Ratis's locks and a read continuation, fixed in 312210e; and once in a 5-node chaos run
 * on 2026-12-06, a replica created for a move that applied nothing after its snapshot install, not
 * reproduced). Its node can then win an election, since a vote looks at the log, not at what was
 * applied, and a leader that applies nothing never becomes leader-ready: its partition refuses
 * every call until an operator restarts the node. The node that sees it logs a full thread dump,
 * the evidence the next investigation needs (once per stall), and a leader hands its partition to
 * the most caught-up other replica, again while the stall lasts (a vote looks at logs, so the
 * stalled node may be elected again), so the groups there work again.
 *
 * <p>Decisions are a pure function of what {@link #observe} is given (time is an argument); the
 * node's timer thread calls it for every hosted replica.
 */
final class StalledApplyWatch {
    private final long stalledAfterMs;
    /** A gap between two observations longer than this: the watch did not run (see {@link #observe}). */
    private final long awayAfterMs;
    /** Per partition: the applied index last seen, since when it has not moved, and whether reported. */
    private final long[] lastApplied;
    private final long[] stillSinceMs;
    private final boolean[] reported;
    /** Per partition: when this node last handed the partition on for the current stall, or -1. */
    private final long[] handedOnAtMs;
    /** Per partition: when it was last observed, or -1. */
    private final long[] observedAtMs;
    private long stallsReported;

    /**
     * @param checkIntervalMs how often {@link #observe} is called per partition: a gap of more than
     *                        three intervals means the watch itself did not run
     */
    StalledApplyWatch(int partitions, long stalledAfterMs, long checkIntervalMs) {
        if (stalledAfterMs <= 0 || checkIntervalMs <= 0) {
            throw new IllegalArgumentException("stalledAfterMs and checkIntervalMs must be > 0, got " + stalledAfterMs
                    + " and " + checkIntervalMs);
        }
        this.stalledAfterMs = stalledAfterMs;
        this.awayAfterMs = 3 * checkIntervalMs;
        this.lastApplied = new long[partitions];
        this.stillSinceMs = new long[partitions];
        this.reported = new boolean[partitions];
        this.handedOnAtMs = new long[partitions];
        this.observedAtMs = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            forget(p);
        }
    }

    /**
     * What {@code partition}'s replica reports at {@code nowMs}; true exactly once per stall: the
     * first observation at which it has been behind ({@code appliedIndex < committedIndex}) with the
     * same applied index for at least {@code stalledAfterMs}. Negative indexes (unknown: the replica
     * is closed or starting) forget what was seen.
     */
    synchronized boolean observe(int partition, long committedIndex, long appliedIndex, long nowMs) {
        if (committedIndex < 0 || appliedIndex < 0 || partition >= lastApplied.length) {
            if (partition < lastApplied.length) {
                forget(partition);
            }
            return false;
        }
        // A gap between two observations of more than three check intervals means the watch itself did
        // not run (the process was paused or starved): what the replica did meanwhile is unknown, so
        // the window starts again rather than count the pause as a stall.
        boolean watchWasAway = observedAtMs[partition] >= 0 && nowMs - observedAtMs[partition] > awayAfterMs;
        observedAtMs[partition] = nowMs;
        if (appliedIndex >= committedIndex || appliedIndex != lastApplied[partition] || stillSinceMs[partition] < 0
                || watchWasAway) {
            lastApplied[partition] = appliedIndex;
            stillSinceMs[partition] = nowMs;
            reported[partition] = false;
            handedOnAtMs[partition] = -1;
            return false;
        }
        if (reported[partition] || nowMs - stillSinceMs[partition] < stalledAfterMs) {
            return false;
        }
        reported[partition] = true;
        stallsReported++;
        return true;
    }

    /**
     * Whether a leader of {@code partition} should hand it on now: its stall was reported and lasts,
     * and it did not hand it on in the last {@code stalledAfterMs} (a transfer whose target lost, or
     * that elected this node again, is tried again; one in progress is left to finish).
     */
    synchronized boolean handOnDue(int partition, long nowMs) {
        if (partition >= reported.length || !reported[partition]
                || (handedOnAtMs[partition] >= 0 && nowMs - handedOnAtMs[partition] < stalledAfterMs)) {
            return false;
        }
        handedOnAtMs[partition] = nowMs;
        return true;
    }

    /** Since when (ms) {@code partition}'s applied index has not moved, as last observed; -1 if unknown. */
    synchronized long stillSinceMs(int partition) {
        return stillSinceMs[partition];
    }

    /** How many stalls {@link #observe} reported since the node started. */
    synchronized long stallsReported() {
        return stallsReported;
    }

    private void forget(int partition) {
        lastApplied[partition] = -1;
        stillSinceMs[partition] = -1;
        reported[partition] = false;
        handedOnAtMs[partition] = -1;
        observedAtMs[partition] = -1;
    }

    /**
     * Every thread of this JVM with its whole stack, the locks it holds and the one it waits for
     * ({@link ThreadInfo#toString} cuts stacks at eight frames, too few to see a deadlock's cycle).
     */
    static String threadDump() {
        StringBuilder out = new StringBuilder();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            out.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
            if (thread.getLockName() != null) {
                out.append(" on ").append(thread.getLockName());
            }
            if (thread.getLockOwnerName() != null) {
                out.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
            }
            out.append('\n');
            StackTraceElement[] stack = thread.getStackTrace();
            MonitorInfo[] monitors = thread.getLockedMonitors();
            for (int depth = 0; depth < stack.length; depth++) {
                out.append("    at ").append(stack[depth]).append('\n');
                for (MonitorInfo monitor : monitors) {
                    if (monitor.getLockedStackDepth() == depth) {
                        out.append("    - locked ").append(monitor).append('\n');
                    }
                }
            }
            for (LockInfo lock : thread.getLockedSynchronizers()) {
                out.append("    - holds ").append(lock).append('\n');
            }
            out.append('\n');
        }
        return out.toString();
    }
}
