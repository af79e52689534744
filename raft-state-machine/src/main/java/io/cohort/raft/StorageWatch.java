package io.cohort.raft;

import java.util.BitSet;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that this node's storage failed and says so once. A replica whose log write failed is
 * broken for good in Ratis 3.3: its log worker keeps the first IOException and fails every later
 * write with "Log already failed" until the replica is reopened, and Ratis closes a replica whose
 * log worker or apply thread hit an unexpected error. Neither heals when the disk has space again,
 * so the node stops (see {@link StorageFailure}) and its supervisor starts it again; on start the
 * replica replays its log and catches up from the leader.
 *
 * <p>Two sources: the state machine's hooks (a log write, {@code notifyLogFailed}; a snapshot
 * write) and a periodic check that every replica is still open, which also catches failures Ratis
 * reports only by closing the replica (for instance a Raft metadata write that failed).
 */
final class StorageWatch {
    private static final Logger LOG = LoggerFactory.getLogger(StorageWatch.class);

    /** What failed, in words for the operator, and the exception if there was one. */
    record StorageFailure(String description, Throwable cause) {
    }

    private final int nodeId;
    private final Consumer<StorageFailure> onFailure;
    private final AtomicReference<StorageFailure> failure = new AtomicReference<>();
    /** Set when the node stops on purpose: replicas closing then are not a failure. */
    private volatile boolean closing;
    /**
     * The replicas found closed by the previous {@link #checkReplicasOpen} (one timer thread calls
     * it, and {@link #replicaReopened}).
     */
    private BitSet closedAtLastCheck = new BitSet();

    StorageWatch(int nodeId, Consumer<StorageFailure> onFailure) {
        this.nodeId = nodeId;
        this.onFailure = onFailure;
    }

    /** Records the first failure, logs it and tells the node; later ones only go to the log. */
    void report(String description, Throwable cause) {
        if (closing) {
            return;
        }
        StorageFailure reported = new StorageFailure(description, cause);
        if (!failure.compareAndSet(null, reported)) {
            LOG.warn("node {}: storage failed again: {}: {}", nodeId, description, String.valueOf(cause));
            return;
        }
        LOG.error("node {}: STORAGE FAILED: {}: {}. This node steps down and stops taking writes; Ratis cannot "
                + "reopen a failed log in place, so the node stops and must be restarted once the data dir "
                + "is writable again (free space, fix the disk)", nodeId, description, String.valueOf(cause), cause);
        onFailure.accept(reported);
    }

    /**
     * Reports the first of {@code partitions} replicas found closed on two checks in a row, if the
     * node is not closing. Two, because Ratis also closes a replica that was removed from its group
     * (an election answered "not in the configuration") and says so only once the close has finished
     * ({@code notifyServerShutdown} after {@code close()}): a removed node must not be mistaken for
     * one whose disk failed. A log that cannot be written is reported at once, through
     * {@link #report}, not here.
     */
    void checkReplicasOpen(int partitions, IntPredicate replicaOpen) {
        if (closing || failure.get() != null) {
            return;
        }
        BitSet closedNow = new BitSet(partitions);
        for (int p = 0; p < partitions; p++) {
            if (!replicaOpen.test(p)) {
                closedNow.set(p);
            }
        }
        BitSet closedTwice = (BitSet) closedNow.clone();
        closedTwice.and(closedAtLastCheck);
        closedAtLastCheck = closedNow;
        int first = closedTwice.nextSetBit(0);
        if (first >= 0 && !closing) {
            report("the replica of partition " + first + " was closed by Ratis (its log or Raft metadata could "
                    + "not be written, or its apply thread failed; see the Ratis errors before this line)", null);
        }
    }

    /**
     * {@code partition}'s replica was opened again after Ratis closed it (on the thread that runs
     * {@link #checkReplicasOpen}): a close found before belongs to the replica it replaced.
     */
    void replicaReopened(int partition) {
        closedAtLastCheck.clear(partition);
    }

    Optional<StorageFailure> failure() {
        return Optional.ofNullable(failure.get());
    }

    void close() {
        closing = true;
    }
}
