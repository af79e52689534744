package io.cohort.raft;

import java.util.function.Consumer;

/**
 * The Ratis settings Cohort chooses, each with its reason (docs/OPERATIONS.md has the measurements).
 *
 * @param electionTimeoutMinMs      Raft election timeout lower bound
 * @param electionTimeoutMaxMs      Raft election timeout upper bound
 * @param rpcRequestTimeoutMs       Ratis server-to-server request timeout
 * @param leaderStepDownWaitMs      how long a leader that stepped down waits before standing again
 * @param snapshotEveryEntries      take a snapshot after this many applied entries (auto trigger)
 * @param snapshotRetentionFiles    snapshots kept on disk per partition
 * @param segmentSizeMaxBytes       Raft log segment size
 * @param preallocatedBytes         bytes preallocated per new segment
 * @param writeBufferBytes          the log writer's direct buffer, per partition
 * @param maxBatchCommands          group commit: most commands in one log entry
 * @param maxBatchBytes             group commit: most encoded bytes in one log entry (soft)
 * @param maxInFlightEntries        group commit: entries outstanding per partition before queueing
 * @param proposalTimeoutMs         how long a proposal may take before its outcome is unknown
 * @param readTimeoutMs             linearizable read (read index) timeout
 * @param leaderLeaseEnabled        serve linearizable reads from the leader lease when valid
 * @param leaderBalanceHoldMs       a new leader keeps a partition at least this long before handing it
 *                                  to the partition's preferred node
 * @param logMetadataEnabled        Ratis writes a metadata entry (the commit index) to the log after
 *                                  every commit-index advance. Off: it doubled the log writes of a
 *                                  lightly loaded partition, and Raft needs no persisted commit index
 * @param appenderWaitMinMs         Ratis's least time between two AppendEntries sends to one follower
 *                                  ({@code raft.server.log.appender.wait-time.min}); an entry ready
 *                                  sooner waits for it
 * @param batchLingerMaxMicros      group commit: how long a free slot may wait for the commands the
 *                                  next entry is expected to carry ({@link Proposer}); 0: never wait
 */
public record RaftTuning(
        int electionTimeoutMinMs,
        int electionTimeoutMaxMs,
        int rpcRequestTimeoutMs,
        int leaderStepDownWaitMs,
        long snapshotEveryEntries,
        int snapshotRetentionFiles,
        long segmentSizeMaxBytes,
        long preallocatedBytes,
        long writeBufferBytes,
        int maxBatchCommands,
        int maxBatchBytes,
        int maxInFlightEntries,
        long proposalTimeoutMs,
        long readTimeoutMs,
        boolean leaderLeaseEnabled,
        long leaderBalanceHoldMs,
        boolean logMetadataEnabled,
        int appenderWaitMinMs,
        int batchLingerMaxMicros) {

    public RaftTuning {
        if (electionTimeoutMinMs <= 0 || electionTimeoutMaxMs <= electionTimeoutMinMs) {
            throw new IllegalArgumentException("election timeout must be 0 < min < max, got "
                    + electionTimeoutMinMs + ".." + electionTimeoutMaxMs);
        }
        if (appenderWaitMinMs < 0 || batchLingerMaxMicros < 0) {
            throw new IllegalArgumentException("appender wait and batch linger must be >= 0, got "
                    + appenderWaitMinMs + " ms and " + batchLingerMaxMicros + " us");
        }
        if (maxBatchCommands < 1 || maxInFlightEntries < 1 || maxBatchBytes < 1) {
            throw new IllegalArgumentException("batch limits must be positive");
        }
    }

    /** The defaults; see docs/OPERATIONS.md ("Raft settings") for why each value. */
    public static RaftTuning defaults() {
        return new Builder().build();
    }

    /** A copy of this tuning with {@code change} applied to its values (validated again). */
    private RaftTuning with(Consumer<Builder> change) {
        Builder b = new Builder();
        b.electionTimeoutMinMs = electionTimeoutMinMs;
        b.electionTimeoutMaxMs = electionTimeoutMaxMs;
        b.rpcRequestTimeoutMs = rpcRequestTimeoutMs;
        b.leaderStepDownWaitMs = leaderStepDownWaitMs;
        b.snapshotEveryEntries = snapshotEveryEntries;
        b.snapshotRetentionFiles = snapshotRetentionFiles;
        b.segmentSizeMaxBytes = segmentSizeMaxBytes;
        b.preallocatedBytes = preallocatedBytes;
        b.writeBufferBytes = writeBufferBytes;
        b.maxBatchCommands = maxBatchCommands;
        b.maxBatchBytes = maxBatchBytes;
        b.maxInFlightEntries = maxInFlightEntries;
        b.proposalTimeoutMs = proposalTimeoutMs;
        b.readTimeoutMs = readTimeoutMs;
        b.leaderLeaseEnabled = leaderLeaseEnabled;
        b.leaderBalanceHoldMs = leaderBalanceHoldMs;
        b.logMetadataEnabled = logMetadataEnabled;
        b.appenderWaitMinMs = appenderWaitMinMs;
        b.batchLingerMaxMicros = batchLingerMaxMicros;
        change.accept(b);
        return b.build();
    }

    public RaftTuning withElectionTimeouts(int minMs, int maxMs) {
        return with(b -> {
            b.electionTimeoutMinMs = minMs;
            b.electionTimeoutMaxMs = maxMs;
        });
    }

    public RaftTuning withSnapshotEveryEntries(long entries) {
        return with(b -> b.snapshotEveryEntries = entries);
    }

    public RaftTuning withBatching(int commands, int inFlight) {
        return with(b -> {
            b.maxBatchCommands = commands;
            b.maxInFlightEntries = inFlight;
        });
    }

    public RaftTuning withProposalTimeoutMs(long timeoutMs) {
        return with(b -> b.proposalTimeoutMs = timeoutMs);
    }

    public RaftTuning withLeaderBalanceHoldMs(long holdMs) {
        return with(b -> b.leaderBalanceHoldMs = holdMs);
    }

    /** Smaller log segments (and preallocation), so that tests fill and purge closed segments quickly. */
    public RaftTuning withSegmentSizeMaxBytes(long segmentBytes) {
        return with(b -> {
            b.segmentSizeMaxBytes = segmentBytes;
            b.preallocatedBytes = Math.min(preallocatedBytes, segmentBytes);
        });
    }

    public RaftTuning withLogMetadata(boolean enabled) {
        return with(b -> b.logMetadataEnabled = enabled);
    }

    public RaftTuning withAppenderWaitMinMs(int waitMs) {
        return with(b -> b.appenderWaitMinMs = waitMs);
    }

    public RaftTuning withBatchLingerMaxMicros(int lingerMicros) {
        return with(b -> b.batchLingerMaxMicros = lingerMicros);
    }

    /** The values of a tuning being made, starting from the defaults; {@link #build()} validates. */
    private static final class Builder {
        private int electionTimeoutMinMs = 200;
        private int electionTimeoutMaxMs = 400;
        private int rpcRequestTimeoutMs = 3_000;
        private int leaderStepDownWaitMs = 1_000;
        private long snapshotEveryEntries = 10_000;
        private int snapshotRetentionFiles = 2;
        private long segmentSizeMaxBytes = 32L << 20;
        private long preallocatedBytes = 1L << 20;
        private long writeBufferBytes = 1L << 20;
        private int maxBatchCommands = 256;
        private int maxBatchBytes = 512 << 10;
        private int maxInFlightEntries = 1;
        private long proposalTimeoutMs = 5_000;
        private long readTimeoutMs = 5_000;
        private boolean leaderLeaseEnabled = true;
        private long leaderBalanceHoldMs = 5_000;
        private boolean logMetadataEnabled = false;
        private int appenderWaitMinMs = 1;
        private int batchLingerMaxMicros = 2_000;

        private Builder() {
        }

        RaftTuning build() {
            return new RaftTuning(
                    electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                    snapshotEveryEntries, snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes,
                    maxBatchCommands, maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs,
                    leaderLeaseEnabled, leaderBalanceHoldMs, logMetadataEnabled, appenderWaitMinMs, batchLingerMaxMicros);
        }
    }
}
