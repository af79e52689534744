package io.cohort.raft;

import io.cohort.raft.log.SnapshotCodec;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consistent image of one partition for a backup, read from this node's replica (leader or
 * follower): the replica's state at one applied index, in the snapshot format ({@code SnapshotCodec})
 * the node loads at start, written to a file of its own that disappears when the export is closed.
 *
 * <p>How it is made consistent with what clients were told:
 * <ol>
 *   <li>a linearizable read ({@link CohortRaftNode#readAnyReplica}) records the replica's applied
 *       index once everything committed before the call is applied here: every commit
 *       acknowledged before the call is at or below that index ({@code barrierIndex});</li>
 *   <li>the replica's state is cut between two entries after that
 *       ({@link PartitionStateMachine#cutBetweenEntries}), so at an index at or above the barrier;</li>
 *   <li>the cut's records are encoded and written on {@link #IMAGE_WRITER}, beside the apply thread.</li>
 * </ol>
 *
 * <p>Why not a snapshot of the replica, as before 2026-12-07: Ratis writes a snapshot it is asked
 * for on the apply thread, so every entry of the partition waited for the whole write (about 1.4 s
 * per million offsets on a quiet machine), and on the leader every commit did. The cut costs the
 * apply thread a reference per group; the image is not the replica's snapshot (no log is purged up
 * to it, no restart loads it), only the bytes of one.
 */
public final class PartitionSnapshotExport {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionSnapshotExport.class);
    /**
     * Where images are cut (beside apply, when no entry is in flight) and written: a thread of their
     * own, not a read-completion or gRPC thread (a cut of a large state takes tens of milliseconds),
     * and not the replicas' snapshot writer, whose own snapshots (and a stop's, which waits for
     * the write in flight on the apply thread) must not queue behind a backup.
     */
    private static final Executor IMAGE_WRITER = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cohort-backup-image-writer");
        thread.setDaemon(true);
        return thread;
    });
    /**
     * The directory of the images while they are written and read, under the node's data dir: not
     * in a replica's {@code sm/}, which Ratis replaces whole when it installs a snapshot.
     */
    static final String IMAGE_DIRECTORY = "backup-images";

    private PartitionSnapshotExport() {
    }

    /**
     * An open snapshot file of one partition; the caller reads its {@code bytes} bytes from
     * {@code channel} (positional reads) and closes it. {@code file} is where it was written: the
     * file is deleted when the channel closes (on Linux, at once: only the open channel holds it).
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
     * (NOT_LEADER if the node holds no replica; otherwise the read barrier's failure), an
     * {@link IOException} if the image could not be written, or a timeout if the replica took no
     * cut within {@code timeoutMs} (it stopped applying). Cancel the future when the image is no
     * longer wanted (the call timed out or went away): an image not yet written is not written, and
     * one written meanwhile is deleted.
     */
    public static CompletableFuture<Export> export(CohortRaftNode node, int partition, long timeoutMs) {
        return export(node, partition, timeoutMs, IMAGE_WRITER);
    }

    /** {@link #export}, the image written on {@code writer} (a test holds it). */
    static CompletableFuture<Export> export(CohortRaftNode node, int partition, long timeoutMs, Executor writer) {
        PartitionStateMachine stateMachine;
        try {
            stateMachine = node.stateMachine(partition);
        } catch (ProposalException e) {
            return CompletableFuture.failedFuture(e);
        }
        Path directory = node.dataDir().resolve(IMAGE_DIRECTORY);
        // Completed by the write below, or by the caller's cancel: an image for a call that gave up
        // (its timeout, its client gone) costs neither the write of a large state nor its disk space.
        CompletableFuture<Export> result = new CompletableFuture<>();
        node.readAnyReplica(partition, shard -> stateMachine.lastAppliedIndex())
                .thenComposeAsync(barrierIndex -> stateMachine.cutBetweenEntries(timeoutMs)
                        .thenAcceptAsync(cut -> {
                            if (result.isDone()) {
                                LOG.info("partition {}: backup image not written: the export was cancelled",
                                        partition);
                                return;
                            }
                            Export export;
                            try {
                                export = write(stateMachine, directory, cut, barrierIndex);
                            } catch (IOException e) {
                                throw new CompletionException(e);
                            }
                            if (!result.complete(export)) {
                                closeQuietly(export);
                            }
                        }, writer), IMAGE_WRITER)
                .whenComplete((written, error) -> {
                    if (error != null) {
                        result.completeExceptionally(error);
                    }
                });
        return result;
    }

    private static void closeQuietly(Export export) {
        try {
            export.close();
        } catch (IOException e) {
            LOG.warn("partition {}: could not close the cancelled backup image {}: {}", export.partition(),
                    export.file(), e.toString());
        }
    }

    /**
     * Writes the image of {@code cut} to a file in {@code directory} (on the data disk, which has room
     * for the replicas' own snapshots) and opens it for reading; the file is deleted when the channel
     * closes (on Linux at once: the open channel holds it), or when the node next starts.
     */
    private static Export write(PartitionStateMachine stateMachine, Path directory, PartitionStateMachine.CutAt cut,
                                long barrierIndex) throws IOException {
        int partition = stateMachine.partition();
        // Nothing applied yet (a new replica): the empty state, at the index of the first entry.
        TermIndex at = cut.at() == null || cut.at().getIndex() < 0 ? TermIndex.valueOf(0, 0) : cut.at();
        if (at.getIndex() < barrierIndex) {
            throw new IllegalStateException("partition " + partition + ": the cut at " + at
                    + " is older than the read barrier at index " + barrierIndex);
        }
        long startNanos = System.nanoTime();
        Directories.createPrivate(directory);
        Path temp = Files.createTempFile(directory, "partition-" + partition + "-", ".tmp");
        FileChannel channel = null;
        boolean opened = false;
        try {
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
                SnapshotCodec.write(out, partition, at.getTerm(), at.getIndex(), cut.cut().records());
            }
            channel = FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.DELETE_ON_CLOSE);
            long bytes = channel.size();
            LOG.info("partition {}: backup image at (t:{}, i:{}) ({} groups, {} offsets, {} bytes) written in {} ms"
                            + " beside the apply thread", partition, at.getTerm(), at.getIndex(), cut.cut().groupCount(),
                    cut.cut().offsetCount(), bytes, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            Export export = new Export(partition, at.getTerm(), at.getIndex(), barrierIndex, bytes, temp, channel);
            opened = true;
            return export;
        } finally {
            if (!opened) {
                // A half-written image must not hold on to the space it took (out of memory included).
                if (channel != null) {
                    try {
                        channel.close();
                    } catch (IOException ignored) {
                        // deleting it below is what matters
                    }
                }
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException e) {
                    LOG.warn("partition {}: could not delete the unfinished backup image {}: {}", partition, temp,
                            e.toString());
                }
            }
        }
    }

    /**
     * Deletes the images a node process left when it died while writing or streaming them; at the
     * node's start, before any export.
     */
    static void deleteLeftImages(Path dataDir) throws IOException {
        Directories.deleteRecursively(dataDir.resolve(IMAGE_DIRECTORY));
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
