package io.cohort.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;

/**
 * Snapshot requests to a node's own Ratis replicas (backups, {@link PartitionSnapshotExport}), made
 * from one thread of their own. (A replica's own snapshots need none: {@link PartitionSnapshots}.)
 *
 * <p>Why a thread: {@code snapshotManagementAsync} blocks its caller until Ratis has the division's
 * lock, so it must never run on a Ratis thread (the apply thread, or the one completing an earlier
 * request's reply); made on the thread completing a read barrier when
 * that was Ratis's, a request deadlocked a replica stepping down ({@code ReadCompletionDeadlockTest}).
 */
final class SnapshotRequests {
    /** Where every request is made. */
    static final Executor EXECUTOR = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cohort-snapshot-request");
        thread.setDaemon(true);
        return thread;
    });
    private static final ClientId CLIENT_ID = ClientId.randomId();
    private static final AtomicLong CALL_IDS = new AtomicLong();

    private SnapshotRequests() {
    }

    /**
     * Asks {@code server}'s replica of {@code groupId} for a snapshot unless its latest one covers
     * everything it applied (creation gap 1); call it on {@link #EXECUTOR}. The reply may be an
     * earlier caller's snapshot: Ratis serves one request per replica at a time.
     */
    static CompletableFuture<RaftClientReply> create(RaftServer server, RaftGroupId groupId, long timeoutMs) {
        return server.snapshotManagementAsync(SnapshotManagementRequest.newCreate(CLIENT_ID, server.getId(), groupId,
                CALL_IDS.incrementAndGet(), timeoutMs, 1));
    }
}
