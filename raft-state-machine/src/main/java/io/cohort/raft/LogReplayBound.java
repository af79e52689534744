package io.cohort.raft;

/**
 * When a replica takes a snapshot before Ratis's entry count ({@code raft.snapshot.every.entries})
 * asks for one: once at least {@code minEntries} entries were applied since its last snapshot,
 * their bytes reach that snapshot's size, and the state is small (at most {@code maxStateRecords}
 * groups and offsets).
 *
 * <p>Why: after a SIGKILL a replica applies every entry after its snapshot again before it can
 * lead (docs/OPERATIONS.md, "How long a restart takes"), on a JVM that has not compiled the apply
 * path yet, beside the other nodes doing the same after a whole-cluster restart. Replaying the log
 * costs about what loading a snapshot of the same bytes does, and more when the entries rewrite the
 * same offsets (each entry is decoded and applied command by command; the snapshot holds each group
 * and offset once, however often it changed), so once the log since the snapshot outweighs it, a
 * new snapshot shortens every later restart, for one write of at most as many bytes as the log took. {@code minEntries} keeps the snapshots of a
 * tiny state from following each other: each one purges the log, so a follower further behind gets
 * the snapshot installed instead of the entries.
 *
 * <p>Why only a small state: a snapshot is written on the apply thread, which holds every commit of
 * the partition for its duration, and that grows with the state (1.7 s for 9.8 MB and 2.8 s for
 * 34 MB in the scale workload on a loaded 2-core machine, run 20261207-001653). A small one costs
 * milliseconds, so taking it every {@code minEntries} entries is free; a large one is taken at
 * Ratis's entry count only, as before the bound, not more often. (A snapshot taken off the apply
 * thread would lift this; not built.)
 *
 * <p>Not thread-safe: the replica's apply thread calls every method (Ratis applies, takes and
 * loads snapshots there).
 */
final class LogReplayBound {
    /**
     * The largest state (groups and offsets) asked a snapshot of: about 0.6 MB of snapshot at the
     * 58-63 bytes a record of the scale workload's snapshots.
     */
    static final long SMALL_STATE_MAX_RECORDS = 10_000;

    private final long minEntries;
    private final long maxStateRecords;
    private long entriesSinceSnapshot;
    private long bytesSinceSnapshot;
    private long snapshotBytes;

    /**
     * {@code minEntries}: {@code raft.snapshot.min.entries} ({@link Long#MAX_VALUE} never asks);
     * {@code maxStateRecords}: the largest state, in groups and offsets, it asks for.
     */
    LogReplayBound(long minEntries, long maxStateRecords) {
        if (minEntries < 1 || maxStateRecords < 0) {
            throw new IllegalArgumentException("minEntries must be >= 1 and maxStateRecords >= 0, got " + minEntries
                    + " and " + maxStateRecords);
        }
        this.minEntries = minEntries;
        this.maxStateRecords = maxStateRecords;
    }

    /** The replica took or loaded a snapshot of {@code bytes} bytes: the log after it starts empty. */
    void onSnapshot(long bytes) {
        snapshotBytes = Math.max(0, bytes);
        entriesSinceSnapshot = 0;
        bytesSinceSnapshot = 0;
    }

    /**
     * The replica applied an entry of {@code entryBytes} bytes and now holds {@code stateRecords}
     * groups and offsets; returns whether a snapshot is due now.
     */
    boolean onApplied(long entryBytes, long stateRecords) {
        entriesSinceSnapshot++;
        bytesSinceSnapshot += Math.max(0, entryBytes);
        return entriesSinceSnapshot >= minEntries && bytesSinceSnapshot >= snapshotBytes
                && stateRecords <= maxStateRecords;
    }

    long entriesSinceSnapshot() {
        return entriesSinceSnapshot;
    }

    long bytesSinceSnapshot() {
        return bytesSinceSnapshot;
    }
}
