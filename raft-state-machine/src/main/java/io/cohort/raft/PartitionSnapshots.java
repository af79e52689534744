package io.cohort.raft;

import io.cohort.core.shard.StateCut;
import io.cohort.raft.log.SnapshotCodec;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one partition's snapshots, off its apply thread when the replica decides to take one.
 *
 * <p>Why: a snapshot written on the apply thread holds every commit of the partition for as long
 * as the write takes, and that grows with the state (1.7 s for 9.8 MB and 2.8 s for 34 MB in the
 * scale workload, run 20261207-001653). So the replica's own schedule ({@link LogReplayBound}:
 * Ratis's entry count, {@code raft.snapshot.every.entries}, and the replay bound) takes only a
 * {@link StateCut} on the apply thread, between two entries, and this class sorts, encodes, writes
 * on {@link #WRITER}. Once the file and its digest are in place it becomes the storage's latest
 * snapshot (what a restart loads and what the leader installs on a follower behind), and only then
 * is the log purged up to it, as Ratis purges after a snapshot it took itself: the log kept always
 * reaches back to a snapshot on disk.
 *
 * <p>Ratis's own trigger is off ({@link RaftServerProperties}); a request from elsewhere (an
 * operator, through Ratis) still gets a snapshot of everything applied from {@link #take}, written
 * on the apply thread as before, after the write in flight, if any, is done. (A backup's export
 * does not ask Ratis: {@link PartitionSnapshotExport}.)
 *
 * <p>Threads: {@link #startAsync} and {@link #take} run on the apply thread; the write on
 * {@link #WRITER}, one per node process for all partitions (snapshots are rare and compete for the
 * same disk). The storage's latest-snapshot record only ever moves forward
 * ({@link SimpleStateMachineStorage#updateLatestSnapshot}), so a write that finishes after the
 * leader installed a newer snapshot on this replica changes nothing.
 */
final class PartitionSnapshots {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionSnapshots.class);
    /** Where snapshots are written, off the partitions' apply threads. */
    static final Executor WRITER = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cohort-snapshot-writer");
        thread.setDaemon(true);
        return thread;
    });
    /**
     * How long {@link #take} waits for the write in flight: a write of 34 MB took 2.8 s (above), so
     * this is many times the largest; past it the take fails rather than hold the apply thread.
     */
    static final long IN_FLIGHT_WAIT_MS = 60_000;
    /** Snapshots of the replay bound below this size are logged at DEBUG: routine, and frequent under load. */
    private static final long ROUTINE_SNAPSHOT_MAX_BYTES = 1L << 20;

    /** What one written snapshot was. */
    record Written(TermIndex at, long bytes, int groups, long offsets) {
    }

    /** Purges the replica's log up to a written snapshot (Ratis's RaftLog#purge). */
    interface LogPurge {
        void purgeUpTo(long index) throws IOException;
    }

    private final int partition;
    private final SimpleStateMachineStorage storage;
    private final PartitionStateMachine.Hooks hooks;
    private final Executor writer;
    /** How long {@link #take} waits for the write in flight ({@link #IN_FLIGHT_WAIT_MS}). */
    private final long inFlightWaitMs;
    /** The write in flight, or a completed one (apply thread only). */
    private CompletableFuture<Written> inFlight = CompletableFuture.completedFuture(null);
    /** Snapshot files kept ({@code raft.server.snapshot.retention.file.num}; 0: all), set at initialize. */
    private volatile int retainedFiles;
    /** The size of the last snapshot written off the apply thread, for the replay bound; -1 none new. */
    private final AtomicLong writtenBytes = new AtomicLong(-1);
    private volatile boolean closed;

    PartitionSnapshots(int partition, SimpleStateMachineStorage storage, PartitionStateMachine.Hooks hooks,
                       Executor writer) {
        this(partition, storage, hooks, writer, IN_FLIGHT_WAIT_MS);
    }

    PartitionSnapshots(int partition, SimpleStateMachineStorage storage, PartitionStateMachine.Hooks hooks,
                       Executor writer, long inFlightWaitMs) {
        this.partition = partition;
        this.storage = storage;
        this.hooks = hooks;
        this.writer = writer;
        this.inFlightWaitMs = inFlightWaitMs;
    }

    /**
     * How many snapshot files to keep, Ratis's setting: Ratis deletes older ones after the snapshots
     * it takes itself, this class after those it writes.
     */
    void retainFiles(int files) {
        this.retainedFiles = files;
    }

    /** Whether a snapshot is being written off the apply thread (apply thread only). */
    boolean writing() {
        return !inFlight.isDone();
    }

    /**
     * Starts writing {@code cut}, the state after {@code at}, on the writer; then purges the log up to
     * it. {@code cutNanos}: what taking the cut cost the apply thread. Apply thread only, with no
     * write in flight ({@link #writing()}).
     */
    void startAsync(StateCut cut, TermIndex at, long cutNanos, boolean routine, LogPurge purge) {
        if (writing()) {
            throw new IllegalStateException("partition " + partition + ": a snapshot is already being written");
        }
        inFlight = CompletableFuture.supplyAsync(() -> {
            long startNanos = System.nanoTime();
            Written written;
            try {
                written = write(cut, at);
            } catch (IOException e) {
                if (!closed) {
                    hooks.onStorageFailed(partition, "snapshot", e);
                }
                throw new IllegalStateException(e);
            }
            writtenBytes.set(written.bytes());
            log(written, routine, "cut in " + TimeUnit.NANOSECONDS.toMillis(cutNanos) + " ms on the apply thread,"
                    + " written in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms beside it");
            if (!closed) {
                try {
                    purge.purgeUpTo(written.at().getIndex());
                    int retained = retainedFiles;
                    if (retained > 0) {
                        storage.cleanupOldSnapshots(new SnapshotRetentionPolicy() {
                            @Override
                            public int getNumSnapshotsRetained() {
                                return retained;
                            }
                        });
                    }
                } catch (IOException | RuntimeException e) { // a replica closing; the next snapshot does it
                    LOG.debug("partition {}: the log was not purged, or old snapshots not deleted, up to the"
                            + " snapshot: {}", partition, e.toString());
                }
            }
            return written;
        }, writer);
    }

    /**
     * Ratis's takeSnapshot, asked for (an operator), on the apply thread, {@code
     * last} the last applied entry: after the write in flight, the storage's latest snapshot if it
     * covers {@code last}, else a snapshot of everything applied, {@code cutNow}, written here.
     */
    long take(TermIndex last, Supplier<StateCut> cutNow) throws IOException {
        awaitInFlight();
        SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
        if (latest != null && latest.getIndex() >= last.getIndex()) {
            return latest.getIndex();
        }
        long startNanos = System.nanoTime();
        Written written;
        try {
            written = write(cutNow.get(), last);
        } catch (IOException e) {
            hooks.onStorageFailed(partition, "snapshot", e);
            throw e;
        }
        writtenBytes.set(written.bytes());
        log(written, false, "taken and written on the apply thread in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms (asked for, or at a stop)");
        return last.getIndex();
    }

    /** The size of a snapshot written since the last call, or -1 (apply thread, for the replay bound). */
    long takeWrittenBytes() {
        return writtenBytes.getAndSet(-1);
    }

    /** The replica is closing: a write in flight finishes, but is neither reported as failed nor followed by a purge. */
    void close() {
        closed = true;
    }

    private void awaitInFlight() throws IOException {
        try {
            inFlight.get(inFlightWaitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // The apply thread waits here (a stop's snapshot, an operator's): never for ever, since a
            // stop joins it. Ratis logs the failed snapshot and goes on; the log still holds it all.
            throw new IOException("partition " + partition + ": the snapshot being written beside apply did not"
                    + " finish within " + inFlightWaitMs + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("partition " + partition + ": interrupted waiting for a snapshot write", e);
        } catch (ExecutionException e) {
            // Reported by the writer; this snapshot is taken afresh.
            LOG.debug("partition {}: the snapshot written beside apply failed: {}", partition, e.getCause().toString());
        }
    }

    /**
     * Writes the sorted records of {@code cut} to a temp file, then renames it into place, so a
     * crash never leaves a half-written snapshot under a valid name; records it as the storage's
     * latest if it is newer.
     */
    private Written write(StateCut cut, TermIndex at) throws IOException {
        File snapshotFile = storage.getSnapshotFile(at.getTerm(), at.getIndex());
        Path temp = snapshotFile.toPath().resolveSibling(snapshotFile.getName() + ".tmp");
        MD5Hash md5;
        try {
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
                SnapshotCodec.write(out, partition, at.getTerm(), at.getIndex(), cut.records());
            }
            Files.move(temp, snapshotFile.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            md5 = MD5FileUtil.computeAndSaveMd5ForFile(snapshotFile);
        } catch (IOException e) {
            // A half-written snapshot must not hold on to the space that ran out.
            Files.deleteIfExists(temp);
            throw e;
        }
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(snapshotFile.toPath(), md5), at));
        return new Written(at, Files.size(snapshotFile.toPath()), cut.groupCount(), cut.offsetCount());
    }

    private void log(Written written, boolean routine, String how) {
        String line = "partition {}: snapshot at {} ({} groups, {} offsets, {} bytes), {}";
        Object[] args = {partition, written.at(), written.groups(), written.offsets(), written.bytes(), how};
        // The replay bound's snapshots of a small state come every few seconds under load: not a line each.
        if (routine && written.bytes() < ROUTINE_SNAPSHOT_MAX_BYTES) {
            LOG.debug(line, args);
        } else {
            LOG.info(line, args);
        }
    }
}
