package io.cohort.raft;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Whether this node's replica of partition 0 holds the cluster-wide state (ACLs, topics, group
 * settings, which only partition 0's log carries) as of the moment the node took part: the log it
 * held at start applied ({@link StartupReplay}), and for a node started to be added to a running
 * cluster, everything up to the configuration entry that added it. Until then that state is a
 * snapshot's or nothing: a new node's replica is created empty and gets partition 0 by a snapshot
 * install and the entries after it, so before this its ACL set is empty and its authorizer would
 * deny everyone (docs/SECURITY.md). Once true it stays true: what the leader commits later is the
 * ordinary apply lag every node has.
 *
 * <p>The add's configuration entry is a point after which the new replica is a member, so every
 * ACL change the cluster had acknowledged before the add is applied when the replica's applied
 * index reaches it. Ratis applies configuration entries as it applies others (the applied index
 * passes them), so the comparison needs nothing of ours. The earliest configuration seen listing
 * the node is the one compared with: an add stages the node (caught up without a vote, listed in no
 * configuration), then lists it in the joint configuration (old and new voters), then in the new
 * one alone; waiting for the last would keep the gate shut until that entry's commit reached the new
 * node, which may be after the add's next steps (HostReplica calls to this node) start. The node's
 * timer thread {@link #observe observes} every 50 ms while it is not loaded, so the joint entry is
 * seen even when no call asks.
 */
final class ClusterStateLoaded {
    private final boolean joining;
    private final BooleanSupplier replayedAtStart;
    private final LongSupplier addedAtIndex;
    private final LongSupplier appliedIndex;
    private volatile boolean loaded;
    /** The lowest log index of a configuration seen listing this node, or -1 before one is seen. */
    private long addedAt = -1;

    /**
     * @param joining the node was started to be added to a running cluster
     * @param replayedAtStart whether partition 0's replica applied the log it held at start
     * @param addedAtIndex the log index of partition 0's current configuration here, if it lists
     *     this node (as voter or listener), else -1
     * @param appliedIndex partition 0's applied index here (-1 when unknown)
     */
    ClusterStateLoaded(boolean joining, BooleanSupplier replayedAtStart, LongSupplier addedAtIndex,
                       LongSupplier appliedIndex) {
        this.joining = joining;
        this.replayedAtStart = replayedAtStart;
        this.addedAtIndex = addedAtIndex;
        this.appliedIndex = appliedIndex;
    }

    /**
     * Observes on {@code timer} every {@code intervalMs} until the state is loaded, then stops: a
     * joining node's configuration entry is seen even when no call asks. Returns the task, cancelled
     * once it saw the state loaded.
     */
    ScheduledFuture<?> observeUntilLoaded(ScheduledExecutorService timer, long intervalMs) {
        AtomicReference<ScheduledFuture<?>> task = new AtomicReference<>();
        task.set(timer.scheduleWithFixedDelay(() -> {
            ScheduledFuture<?> self = task.get();
            if (observe() && self != null) { // null: the first run came before set; the next one stops
                self.cancel(false);
            }
        }, intervalMs, intervalMs, TimeUnit.MILLISECONDS));
        return task.get();
    }

    /** Whether the state is loaded; decides (and records the configuration it sees) if not yet. */
    boolean loaded() {
        return loaded || observe();
    }

    /** Records the configuration listing this node, if any, and whether the state is now loaded. */
    synchronized boolean observe() {
        if (loaded) {
            return true;
        }
        if (joining) {
            long listed = addedAtIndex.getAsLong();
            if (listed >= 0 && (addedAt < 0 || listed < addedAt)) {
                addedAt = listed;
            }
            if (addedAt < 0 || appliedIndex.getAsLong() < addedAt) {
                return false;
            }
        }
        if (!replayedAtStart.getAsBoolean()) {
            return false;
        }
        loaded = true;
        return true;
    }
}
