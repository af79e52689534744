package io.cohort.raft;

/**
 * When a replica takes a snapshot on its own: once its log reaches {@code everyEntries} entries
 * past its last snapshot ({@code raft.snapshot.every.entries}, counted by index as Ratis's own
 * trigger did, configuration entries included), and earlier,
 * once at least {@code minEntries} entries were applied since its last snapshot, their bytes reach
 * that snapshot's size, and the state is small (at most {@code maxStateRecords} groups and offsets):
 * the replay bound.
 *
 * <p>Why the replay bound: after a SIGKILL a replica applies every entry after its snapshot again before it can
 * lead (docs/OPERATIONS.md, "How long a restart takes"), on a JVM that has not compiled the apply
 * path yet, beside the other nodes doing the same after a whole-cluster restart. Replaying the log
 * costs about what loading a snapshot of the same bytes does, and more when the entries rewrite the
 * same offsets (each entry is decoded and applied command by command; the snapshot holds each group
 * and offset once, however often it changed), so once the log since the snapshot outweighs it, a
 * new snapshot shortens every later restart, for one write of at most as many bytes as the log took. {@code minEntries} keeps the snapshots of a
 * tiny state from following each other: each one purges the log, so a follower further behind gets
 * the snapshot installed instead of the entries.
 *
 * <p>Why only a small state: for a large one the bound bought nothing. In the scale workload
 * (100,000 groups of 10 offsets) it took snapshots of 9.8 MB and 34 MB during the load and the
 * restart after it was no shorter (5.8-6.3 s against 5.5 s without, runs 20261207-001237 and
 * -001653): a 34 MB snapshot loads about as slowly as the entries it spared. Those snapshots were
 * then also written on the apply thread, holding the partition's commits 1.7 s and 2.8 s; they are
 * written beside it now ({@link PartitionSnapshots}), but still cost a core for that long.
 *
 * <p>Counts run from the last snapshot's cut ({@link #onCut}), not from when its file was written;
 * the bytes compared are those of the last snapshot written ({@link #onSnapshotWritten}).
 *
 * <p>Not thread-safe: the replica's apply thread calls every method (Ratis applies and loads
 * snapshots there, and the replica takes its cuts there).
 */
final class LogReplayBound {
    /**
     * The largest state (groups and offsets) asked a snapshot of: about 0.6 MB of snapshot at the
     * 58-63 bytes a record of the scale workload's snapshots.
     */
    static final long SMALL_STATE_MAX_RECORDS = 10_000;

    private final long everyEntries;
    private final long minEntries;
    private final long maxStateRecords;
    /** The log index of the last snapshot (its cut), and of the last entry applied; -1 none. */
    private long snapshotIndex = -1;
    private long appliedIndex = -1;
    private long entriesSinceSnapshot;
    private long bytesSinceSnapshot;
    private long snapshotBytes;

    /**
     * {@code everyEntries}: {@code raft.snapshot.every.entries}; {@code minEntries}: {@code
     * raft.snapshot.min.entries} ({@link Long#MAX_VALUE} never asks); {@code maxStateRecords}: the
     * largest state, in groups and offsets, the replay bound asks for.
     */
    LogReplayBound(long everyEntries, long minEntries, long maxStateRecords) {
        if (everyEntries < 1 || minEntries < 1 || maxStateRecords < 0) {
            throw new IllegalArgumentException("everyEntries and minEntries must be >= 1 and maxStateRecords >= 0,"
                    + " got " + everyEntries + ", " + minEntries + " and " + maxStateRecords);
        }
        this.everyEntries = everyEntries;
        this.minEntries = minEntries;
        this.maxStateRecords = maxStateRecords;
    }

    /** The replica took or loaded a snapshot at {@code index} of {@code bytes} bytes: the log after it starts empty. */
    void onSnapshot(long index, long bytes) {
        onCut(index);
        onSnapshotWritten(bytes);
    }

    /** The replica cut its state after entry {@code index} for a snapshot: the entries after it count towards the next. */
    void onCut(long index) {
        snapshotIndex = index;
        appliedIndex = Math.max(appliedIndex, index);
        entriesSinceSnapshot = 0;
        bytesSinceSnapshot = 0;
    }

    /** The snapshot of the last cut was written: {@code bytes} on disk. */
    void onSnapshotWritten(long bytes) {
        snapshotBytes = Math.max(0, bytes);
    }

    /**
     * The replica applied the entry at {@code index}, of {@code entryBytes} bytes, and now holds
     * {@code stateRecords} groups and offsets; returns whether a snapshot is due now.
     */
    boolean onApplied(long index, long entryBytes, long stateRecords) {
        appliedIndex = index;
        entriesSinceSnapshot++;
        bytesSinceSnapshot += Math.max(0, entryBytes);
        return countReached() || entriesSinceSnapshot >= minEntries && bytesSinceSnapshot >= snapshotBytes
                && stateRecords <= maxStateRecords;
    }

    /** Whether the log reaches {@code everyEntries} past the last snapshot (not only the replay bound). */
    boolean countReached() {
        return appliedIndex - snapshotIndex >= everyEntries;
    }

    long entriesSinceSnapshot() {
        return entriesSinceSnapshot;
    }

    long bytesSinceSnapshot() {
        return bytesSinceSnapshot;
    }
}
