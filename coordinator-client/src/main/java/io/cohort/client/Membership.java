package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * One protocol's membership loop behind the {@link GroupMember} facade: the classic
 * JoinGroup/SyncGroup/Heartbeat loop ({@link ClassicMembership}) or KIP-848's
 * ConsumerGroupHeartbeat loop ({@link ConsumerMembership}). Holds what both share: the lock that
 * guards the membership fields (shared with the loop's background heartbeats), the fatal error,
 * the owned partitions, and the poll-thread helpers.
 *
 * <p>The facade calls {@link #pollOnce} on the poll thread, which runs the listener there; commits
 * ({@link OffsetCommits}) ask for a {@link CommitTarget} and report refusals back.
 */
abstract class Membership {
    final MemberConfig config;
    final CohortClient client;
    final String groupId;
    final RebalanceListener listener;

    /** Guards the membership fields of the subclasses, shared with their heartbeats. */
    final Object lock = new Object();
    /** A {@link GroupMember#wakeup} to throw on the poll thread. */
    final Wakeup wakeup = new Wakeup();
    /** Set when the member cannot go on; poll and commits throw it. Guarded by {@link #lock}. */
    CohortException fatal;
    /** The partitions the application owns now; written on the poll thread only. */
    volatile Set<TopicPartition> owned = Set.of();

    /** What a commit carries to identify the member: Kafka's generation_id_or_member_epoch and member id. */
    record CommitTarget(int generationOrEpoch, String memberId) {
    }

    Membership(MemberConfig config) {
        this.config = config;
        this.client = config.client();
        this.groupId = config.groupId();
        this.listener = config.listener();
    }

    // ---------------------------------------------------------------------------------------------
    // What the facade calls

    /**
     * Poll thread: does the membership work that is due (join, reconcile, report lost partitions),
     * running the listener, and returns when there is none left or {@code deadlineNanos} passed.
     */
    abstract void pollOnce(long deadlineNanos);

    /** Whether poll must go on (before its deadline): the member is not settled yet. Throws if closed or failed. */
    abstract boolean pollWorkPending();

    /** Holding {@link #lock}: whether poll has membership work to do, or must throw. */
    abstract boolean rebalanceNeededLocked();

    /** The member id; "" before the coordinator (classic) or the member (consumer) chose one. */
    abstract String memberId();

    /** The generation (classic) or member epoch (consumer) commits carry; -1 while there is none. */
    abstract int commitGeneration();

    /** Whether the member was closed. Holding {@link #lock}. */
    abstract boolean closedLocked();

    /**
     * What a commit made now carries; throws if the member is closed or failed. A generation below 0
     * makes the commit fail at once ({@link CommitFailedException}).
     */
    CommitTarget commitTarget() {
        synchronized (lock) {
            ensureOpen();
            return new CommitTarget(commitGeneration(), memberId());
        }
    }

    /**
     * A commit sent with {@code failed} was refused with {@code code}: the target to send it again
     * with, or null if it must fail. Runs on the committer; may wait until {@code deadlineNanos}.
     */
    CommitTarget retryCommitAfter(ErrorCode code, CommitTarget failed, long deadlineNanos) {
        return null;
    }

    /**
     * Whether a commit made now must fail at once with REBALANCE_IN_PROGRESS rather than be sent:
     * a classic member between its JoinGroup and its assignment, whose generation is about to
     * change (Kafka's {@code generationIfStable} is null then). The consumer protocol commits with
     * its epoch throughout.
     */
    boolean refusesCommitsWhileRebalancing() {
        return false;
    }

    /** A commit sent with {@code target} failed with {@code e}: reacts (rejoin, fence) and says what to throw. */
    abstract RuntimeException onCommitFailed(CohortException e, CommitTarget target);

    /** Poll thread, on close: reports fenced partitions lost, and revokes the others through the listener. */
    void releaseOnClose() {
        reportLostPartitionsIfFenced();
        if (!owned.isEmpty()) {
            Set<TopicPartition> revoked = owned;
            owned = Set.of();
            listener.onPartitionsRevoked(sorted(revoked));
        }
    }

    /** Poll thread: if the member was fenced since the last call, reports its partitions lost. */
    abstract void reportLostPartitionsIfFenced();

    /** Marks the member closed and stops its heartbeats. */
    abstract void stop();

    /** Leaves the group (after {@link #stop}); failures are logged, the session timeout removes the member anyway. */
    abstract void leave();

    /**
     * Waits until the member must take part in a rebalance or {@code timeout} passes
     * ({@link GroupMember#awaitRebalanceNeeded}).
     */
    final boolean awaitRebalanceNeeded(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!rebalanceNeededLocked() && !wakeup.pending()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    throw new InterruptException(e);
                }
            }
            return true;
        }
    }

    /**
     * Any thread: a {@link GroupMember#wakeup}; wakes {@link #awaitRebalanceNeeded} too (the next
     * poll has to throw).
     */
    final void wakeup() {
        wakeup.request();
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    boolean isFatal() {
        synchronized (lock) {
            return fatal != null;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers for the loops

    /** Records {@code e} as the member's fatal error (the first one wins) and returns it to throw. */
    final CohortException fail(CohortException e) {
        synchronized (lock) {
            if (fatal == null) {
                fatal = e;
                lock.notifyAll();
            }
        }
        return e;
    }

    final void ensureNotFatal() {
        synchronized (lock) {
            if (fatal != null) {
                throw fatal;
            }
        }
    }

    /** Holding {@link #lock}: throws if the member is closed or failed. */
    final void ensureOpen() {
        if (closedLocked()) {
            throw new IllegalStateException("the group member is closed");
        }
        if (fatal != null) {
            throw fatal;
        }
    }

    static List<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        return new ArrayList<>(new TreeSet<>(partitions));
    }

    static int millis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
    }

    static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
