package io.cohort.raft;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Ratis server properties of a node: {@link RaftTuning}'s values and the settings that are
 * not tunables, each with the reason it differs from Ratis's default.
 */
final class RaftServerProperties {
    /**
     * How long a leader's appender waits before its next send to a follower after N errors in a
     * row: 1 ms for the first 10, then 100 ms. Ratis's default ("1ms,10, 1s,20, 5s,1000") waits 1 s
     * and then 5 s, and counts every INCONSISTENCY reply (the normal search for a restarted
     * follower's match index) as an error, so a restarted follower stayed behind for seconds (scale
     * benchmark, restart to caught up: 7.0-7.8 s with the default, 5.6 s with this). 10 connection
     * attempts per second to a dead peer cost nothing here.
     */
    private static final String APPENDER_ERROR_RETRY_POLICY = "1ms,10, 100ms,1000000";
    /** How long a peer being added may stay silent before Ratis fails the change (NOPROGRESS). */
    private static final long STAGING_TIMEOUT_MS = 30_000;

    private RaftServerProperties() {
    }

    /** The Ratis server settings of the node at {@code self}, its storage under {@code dataDir}. */
    static RaftProperties of(Path dataDir, NodeAddress self, RaftTuning tuning) {
        RaftProperties properties = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(properties, List.of(dataDir.resolve("raft").toFile()));
        GrpcConfigKeys.Server.setHost(properties, self.host());
        GrpcConfigKeys.Server.setPort(properties, self.raftPort());
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, millis(tuning.electionTimeoutMinMs()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, millis(tuning.electionTimeoutMaxMs()));
        RaftServerConfigKeys.Rpc.setRequestTimeout(properties, millis(tuning.rpcRequestTimeoutMs()));
        RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(properties, millis(tuning.leaderStepDownWaitMs()));
        // Ratis's count out of reach: each replica counts raft.snapshot.every.entries itself and writes
        // its snapshots beside the apply thread (PartitionSnapshots); Ratis's would write them on it.
        // The trigger stays on for its snapshot at a graceful stop (a restart then replays nothing).
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, Long.MAX_VALUE);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, tuning.snapshotRetentionFiles());
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
        // Purge at every snapshot (Ratis waits for 1,024 entries past the last purge): the same
        // in production (a snapshot every 10,000 entries), and tests with small snapshot
        // intervals really purge, so followers behind the log really get snapshots installed.
        RaftServerConfigKeys.Log.setPurgeGap(properties, (int) Math.max(1, Math.min(1_024, tuning.snapshotEveryEntries())));
        RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, tuning.logMetadataEnabled());
        // Off (raft.log.fsync.before.ack=false): written to the OS before the acknowledgement, the
        // fsync follows in the background (RaftTuning#fsyncBeforeAck says what that risks).
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, !tuning.fsyncBeforeAck());
        // Followers append on the AppendEntries thread, before answering. Ratis 3.3.0's default (a
        // composed append, written later on another thread) lets a vote see the log without a queued
        // entry, and drops a new leader's entry for an index already queued (indices compared, not
        // terms) while acknowledging it: a replica then stayed behind for good on a fresh cluster.
        // docs/OPERATIONS.md, "Raft settings" (follower append); no measurable cost (BENCHMARKS.md).
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(properties, false);
        RaftServerConfigKeys.Log.Appender.setWaitTimeMin(properties, millis(tuning.appenderWaitMinMs()));
        RaftServerConfigKeys.Log.Appender.setRetryPolicy(properties, APPENDER_ERROR_RETRY_POLICY);
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf(tuning.segmentSizeMaxBytes()));
        RaftServerConfigKeys.Log.setPreallocatedSize(properties, SizeInBytes.valueOf(tuning.preallocatedBytes()));
        RaftServerConfigKeys.Log.setWriteBufferSize(properties, SizeInBytes.valueOf(tuning.writeBufferBytes()));
        // One log entry (a whole batch) must fit the write buffer: 4 bytes of length, 4 of checksum.
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(properties,
                SizeInBytes.valueOf(tuning.writeBufferBytes() - 8));
        // A node being added (add-node) is staged until it answers and catches up; Ratis's default
        // gives up after 3 election timeouts without an answer (NOPROGRESS), which a freshly started
        // JVM on a loaded machine missed. Our own catch-up wait has its own limit.
        RaftServerConfigKeys.setStagingTimeout(properties, millis(STAGING_TIMEOUT_MS));
        RaftServerConfigKeys.Read.setOption(properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(properties, tuning.leaderLeaseEnabled());
        RaftServerConfigKeys.Read.setTimeout(properties, millis(tuning.readTimeoutMs()));
        return properties;
    }

    private static TimeDuration millis(long ms) {
        return TimeDuration.valueOf(ms, TimeUnit.MILLISECONDS);
    }
}
