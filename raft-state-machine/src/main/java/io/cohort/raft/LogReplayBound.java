package io.cohort.raft;

/**
 * When a replica takes a snapshot before Ratis's entry count ({@code raft.snapshot.every.entries})
 * asks for one: once at least {@code minEntries} entries were applied since its last snapshot and
 * their bytes reach that snapshot's size.
 *
 * <p>Why: after a SIGKILL a replica applies every entry after its snapshot again before it can
 * lead (docs/OPERATIONS.md, "How long a restart takes"), on a JVM that has not compiled the apply
 * path yet, beside the other nodes doing the same after a whole-cluster restart. Replaying the log
 * costs at least what loading a snapshot of the same bytes does (each entry is decoded and applied
 * command by command; the snapshot holds each group and offset once, however often it changed), so
 * once the log since the snapshot outweighs it, a new snapshot shortens every later restart, for
 * one write of at most as many bytes as the log took. A small state (most clusters: thousands of
 * groups, a snapshot of kilobytes) is then snapshotted every {@code minEntries} entries; a large one
 * (100,000 groups, tens of megabytes) when its log has grown as large, or at Ratis's entry count,
 * whichever comes first. {@code minEntries} keeps the snapshots of a tiny state from following each
 * other: each one holds the replica's apply for its duration and purges the log, so a follower
 * further behind gets the snapshot installed instead of the entries.
 *
 * <p>Not thread-safe: the replica's apply thread calls every method (Ratis applies, takes and
 * loads snapshots there).
 */
final class LogReplayBound {
    private final long minEntries;
    private long entriesSinceSnapshot;
    private long bytesSinceSnapshot;
    private long snapshotBytes;

    /** {@code minEntries}: {@code raft.snapshot.min.entries}; {@link Long#MAX_VALUE} never asks. */
    LogReplayBound(long minEntries) {
        if (minEntries < 1) {
            throw new IllegalArgumentException("minEntries must be >= 1, got " + minEntries);
        }
        this.minEntries = minEntries;
    }

    /** The replica took or loaded a snapshot of {@code bytes} bytes: the log after it starts empty. */
    void onSnapshot(long bytes) {
        snapshotBytes = Math.max(0, bytes);
        entriesSinceSnapshot = 0;
        bytesSinceSnapshot = 0;
    }

    /**
     * The replica applied an entry of {@code entryBytes} bytes; returns whether a snapshot is due
     * now (and stays due until {@link #onSnapshot}).
     */
    boolean onApplied(long entryBytes) {
        entriesSinceSnapshot++;
        bytesSinceSnapshot += Math.max(0, entryBytes);
        return entriesSinceSnapshot >= minEntries && bytesSinceSnapshot >= snapshotBytes;
    }

    long entriesSinceSnapshot() {
        return entriesSinceSnapshot;
    }

    long bytesSinceSnapshot() {
        return bytesSinceSnapshot;
    }
}
