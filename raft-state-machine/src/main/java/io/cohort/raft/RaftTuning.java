package io.cohort.raft;

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
        int appenderWaitMinMs) {

    public RaftTuning {
        if (electionTimeoutMinMs <= 0 || electionTimeoutMaxMs <= electionTimeoutMinMs) {
            throw new IllegalArgumentException("election timeout must be 0 < min < max, got "
                    + electionTimeoutMinMs + ".." + electionTimeoutMaxMs);
        }
        if (appenderWaitMinMs < 0) {
            throw new IllegalArgumentException("appender wait must be >= 0, got " + appenderWaitMinMs);
        }
        if (maxBatchCommands < 1 || maxInFlightEntries < 1 || maxBatchBytes < 1) {
            throw new IllegalArgumentException("batch limits must be positive");
        }
    }

    /** The defaults; see docs/OPERATIONS.md ("Raft settings") for why each value. */
    public static RaftTuning defaults() {
        return new RaftTuning(
                200, 400,
                3_000,
                1_000,
                10_000, 2,
                32L << 20, 1L << 20, 1L << 20,
                256, 512 << 10, 1,
                5_000, 5_000,
                true,
                5_000,
                false,
                1);
    }

    public RaftTuning withElectionTimeouts(int minMs, int maxMs) {
        return new RaftTuning(minMs, maxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs, snapshotEveryEntries,
                snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes, maxBatchCommands,
                maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs, leaderLeaseEnabled, leaderBalanceHoldMs, logMetadataEnabled, appenderWaitMinMs);
    }

    public RaftTuning withSnapshotEveryEntries(long entries) {
        return new RaftTuning(electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                entries, snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes,
                maxBatchCommands, maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs,
                leaderLeaseEnabled, leaderBalanceHoldMs, logMetadataEnabled, appenderWaitMinMs);
    }

    public RaftTuning withBatching(int commands, int inFlight) {
        return new RaftTuning(electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                snapshotEveryEntries, snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes,
                commands, maxBatchBytes, inFlight, proposalTimeoutMs, readTimeoutMs, leaderLeaseEnabled, leaderBalanceHoldMs, logMetadataEnabled, appenderWaitMinMs);
    }

    public RaftTuning withLeaderBalanceHoldMs(long holdMs) {
        return new RaftTuning(electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                snapshotEveryEntries, snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes,
                maxBatchCommands, maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs,
                leaderLeaseEnabled, holdMs, logMetadataEnabled, appenderWaitMinMs);
    }

    /** Smaller log segments (and preallocation), so that tests fill and purge closed segments quickly. */
    public RaftTuning withSegmentSizeMaxBytes(long segmentBytes) {
        return new RaftTuning(electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                snapshotEveryEntries, snapshotRetentionFiles, segmentBytes, Math.min(preallocatedBytes, segmentBytes),
                writeBufferBytes, maxBatchCommands, maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs,
                leaderLeaseEnabled, leaderBalanceHoldMs, logMetadataEnabled, appenderWaitMinMs);
    }

    public RaftTuning withLogMetadata(boolean enabled) {
        return new RaftTuning(electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                snapshotEveryEntries, snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes,
                maxBatchCommands, maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs,
                leaderLeaseEnabled, leaderBalanceHoldMs, enabled, appenderWaitMinMs);
    }

    public RaftTuning withAppenderWaitMinMs(int waitMs) {
        return new RaftTuning(electionTimeoutMinMs, electionTimeoutMaxMs, rpcRequestTimeoutMs, leaderStepDownWaitMs,
                snapshotEveryEntries, snapshotRetentionFiles, segmentSizeMaxBytes, preallocatedBytes, writeBufferBytes,
                maxBatchCommands, maxBatchBytes, maxInFlightEntries, proposalTimeoutMs, readTimeoutMs,
                leaderLeaseEnabled, leaderBalanceHoldMs, logMetadataEnabled, waitMs);
    }
}
