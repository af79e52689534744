package io.cohort.raft;

import io.cohort.raft.log.SnapshotCodec;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;

/**
 * A consistent image of one partition for a backup, read from this node's replica (leader or
 * follower): the snapshot file Ratis's own snapshot path writes, so the image is exactly the
 * replica's state at one applied index (taken on the apply thread, like every snapshot), in the
 * snapshot format ({@code SnapshotCodec}) the node loads at start.
 *
 * <p>How it is made consistent with what clients were told:
 * <ol>
 *   <li>a linearizable read ({@link CohortRaftNode#readAnyReplica}) records the replica's applied
 *       index once everything committed before the call is applied here: every commit
 *       acknowledged before the call is at or below that index ({@code barrierIndex});</li>
 *   <li>Ratis is asked for a snapshot with creation gap 1 (take one unless the latest already
 *       covers the applied index);</li>
 *   <li>the latest snapshot file is opened and accepted only if its index is at least
 *       {@code barrierIndex}. An open file stays readable if the retention policy deletes it.</li>
 * </ol>
 * Ratis serves one snapshot request per replica at a time and may answer a caller with an earlier
 * caller's snapshot; step 3's check catches that, and {@link #export} retries once.
 */
public final class PartitionSnapshotExport {
    /** Where the snapshot requests are made: {@link SnapshotRequests#EXECUTOR}, never a Ratis thread. */
    private static final Executor SNAPSHOT_REQUESTS = SnapshotRequests.EXECUTOR;

    private PartitionSnapshotExport() {
    }

    /**
     * An open snapshot file of one partition; the caller reads its {@code bytes} bytes from
     * {@code channel} (positional reads) and closes it.
     */
    public record Export(int partition, long term, long appliedIndex, long barrierIndex, long bytes, Path file,
                         FileChannel channel) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /**
     * Exports {@code partition} from {@code node}'s replica. Fails with {@link ProposalException}
     * (NOT_LEADER if the node holds no replica; otherwise the read barrier's failure), or an
     * {@link IOException} if Ratis could not take the snapshot.
     */
    public static CompletableFuture<Export> export(CohortRaftNode node, int partition, long timeoutMs) {
        PartitionStateMachine stateMachine;
        try {
            stateMachine = node.stateMachine(partition);
        } catch (ProposalException e) {
            return CompletableFuture.failedFuture(e);
        }
        return node.readAnyReplica(partition, shard -> stateMachine.getLastAppliedTermIndex())
                .thenComposeAsync(barrier -> snapshotAtLeast(node, stateMachine, barrier, timeoutMs)
                        .thenComposeAsync(export -> export != null ? CompletableFuture.completedFuture(export)
                                // Another caller's snapshot, taken before our barrier: ask once more.
                                : snapshotAtLeast(node, stateMachine, barrier, timeoutMs), SNAPSHOT_REQUESTS)
                        .thenApply(export -> {
                            if (export == null) {
                                throw new IllegalStateException("partition " + partition + ": Ratis returned"
                                        + " snapshots older than the read barrier at " + barrier + " twice");
                            }
                            return export;
                        }), SNAPSHOT_REQUESTS);
    }

    private static CompletableFuture<Export> snapshotAtLeast(CohortRaftNode node, PartitionStateMachine stateMachine,
                                                             TermIndex barrier, long timeoutMs) {
        int partition = stateMachine.partition();
        CompletableFuture<RaftClientReply> reply = SnapshotRequests.create(node.raftServer(),
                node.spec().raftGroupId(partition), timeoutMs);
        return reply.thenApply(r -> {
            if (!r.isSuccess()) {
                throw new IllegalStateException(new IOException("partition " + partition + ": Ratis could not take"
                        + " a snapshot: " + r.getException(), r.getException()));
            }
            try {
                return openLatest(stateMachine, barrier);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The latest snapshot, opened, if it covers {@code barrier}; null if it is older. */
    private static Export openLatest(PartitionStateMachine stateMachine, TermIndex barrier) throws IOException {
        long barrierIndex = barrier == null ? -1 : barrier.getIndex();
        for (int attempt = 0; ; attempt++) {
            SingleFileSnapshotInfo latest = stateMachine.getStateMachineStorage().getLatestSnapshot();
            if (latest == null && barrierIndex <= 0) {
                return emptyAtStart(stateMachine, barrier);
            }
            if (latest == null) {
                throw new IOException("partition " + stateMachine.partition() + " has no snapshot at or after index "
                        + barrierIndex);
            }
            if (latest.getIndex() < barrierIndex) {
                return null;
            }
            Path file = latest.getFile().getPath();
            try {
                FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                return new Export(stateMachine.partition(), latest.getTerm(), latest.getIndex(), barrierIndex,
                        channel.size(), file, channel);
            } catch (NoSuchFileException e) {
                // Retention deleted it after two newer snapshots; the newer ones cover the barrier too.
                if (attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    /**
     * A partition that has applied only its first entry (index 0, the first leader's configuration:
     * no command) has an empty state, and Ratis takes no snapshot of it (its creation-gap check
     * counts from index 0). Its image is an empty snapshot at that index, written to a temp file
     * that disappears when closed.
     */
    private static Export emptyAtStart(PartitionStateMachine stateMachine, TermIndex barrier) throws IOException {
        long term = barrier == null ? 0 : barrier.getTerm();
        long index = barrier == null ? 0 : Math.max(0, barrier.getIndex());
        if (stateMachine.lastAppliedIndex() > index || !stateMachine.shard().snapshot().isEmpty()) {
            throw new IOException("partition " + stateMachine.partition() + " applied entries while its first"
                    + " image was taken; retry");
        }
        Path temp = Files.createTempFile("cohort-empty-snapshot-", ".tmp");
        FileChannel channel = FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.DELETE_ON_CLOSE);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        SnapshotCodec.write(bytes, stateMachine.partition(), term, index, java.util.List.of());
        channel.write(java.nio.ByteBuffer.wrap(bytes.toByteArray()), 0);
        return new Export(stateMachine.partition(), term, index, index, channel.size(), temp, channel);
    }

    /**
     * The cluster's stored settings as {@code cluster.properties} holds them, without
     * {@code node.id}: what a backup records so a restore can write the same file.
     */
    public static Map<String, String> clusterSettings(ClusterSpec spec) {
        Properties properties = ClusterMetadata.toProperties(0, spec);
        Map<String, String> settings = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            settings.put(key, properties.getProperty(key));
        }
        settings.remove("node.id");
        return settings;
    }
}
