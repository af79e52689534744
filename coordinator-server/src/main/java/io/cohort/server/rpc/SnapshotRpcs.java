package io.cohort.server.rpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.cohort.api.v1.SaveSnapshotChunk;
import io.cohort.api.v1.SaveSnapshotInfo;
import io.cohort.api.v1.SaveSnapshotRequest;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.PartitionSnapshotExport;
import io.cohort.raft.ProposalException;
import io.cohort.raft.log.proto.SnapshotHeader;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ClusterAdmin.SaveSnapshot: streams a consistent image of one partition from this node's replica
 * ({@link PartitionSnapshotExport}) for {@code cohort snapshot save}. The stream honours gRPC flow
 * control (a chunk goes out only while the call is ready), so a slow reader never makes the node
 * buffer the whole file; the file is read on a thread of its own, never on a Ratis thread.
 *
 * <p>The bytes are a snapshot file's ({@code SnapshotCodec} format), written for the call.
 *
 * <p>Needs ALTER on the cluster (docs/SECURITY.md, "Backups"): the image holds every group's
 * members and offsets and every ACL, and writing it costs the node a state's worth of disk and CPU.
 */
final class SnapshotRpcs implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotRpcs.class);
    /** The largest data chunk: well under gRPC's 4 MiB default message limit on any client. */
    static final int CHUNK_BYTES = 256 * 1024;
    static final int DEFAULT_TIMEOUT_MS = 30_000;

    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    /** Reads the snapshot files and feeds the streams; one at a time is plenty for backups. */
    private final ExecutorService streamer = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "cohort-snapshot-export");
        thread.setDaemon(true);
        return thread;
    });

    private final Exporter exporter;

    /** Makes a partition's image ({@link PartitionSnapshotExport#export}); a test passes one that never finishes. */
    interface Exporter {
        CompletableFuture<PartitionSnapshotExport.Export> export(CohortRaftNode node, int partition, long timeoutMs);
    }

    SnapshotRpcs(CohortRaftNode node, RequestAuthorizer authorizer) {
        this(node, authorizer, PartitionSnapshotExport::export);
    }

    SnapshotRpcs(CohortRaftNode node, RequestAuthorizer authorizer, Exporter exporter) {
        this.node = node;
        this.authorizer = authorizer;
        this.exporter = exporter;
    }

    void saveSnapshot(SaveSnapshotRequest request, StreamObserver<SaveSnapshotChunk> observer, boolean stopping) {
        ServerCallStreamObserver<SaveSnapshotChunk> call = (ServerCallStreamObserver<SaveSnapshotChunk>) observer;
        int partition = request.getPartitionIndex();
        if (partition < 0 || request.getTimeoutMs() < 0) {
            call.onError(Status.INVALID_ARGUMENT.withDescription("partition_index and timeout_ms must be >= 0; got "
                    + partition + " and " + request.getTimeoutMs()).asRuntimeException());
            return;
        }
        if (!authorizer.allowCluster("SaveSnapshot", AclOperation.ALTER)) {
            refuse(call, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, Principals.principal() + " may not ALTER the cluster");
            return;
        }
        if (stopping) {
            refuse(call, ErrorCode.COORDINATOR_NOT_AVAILABLE, "node " + node.nodeId() + " is shutting down");
            return;
        }
        if (partition >= node.partitions()) {
            refuse(call, ErrorCode.INVALID_REQUEST, "partition " + partition + " does not exist; the cluster has "
                    + node.partitions() + " partitions");
            return;
        }
        if (!node.hosts(partition)) {
            refuse(call, ErrorCode.NOT_COORDINATOR, "node " + node.nodeId() + " holds no replica of partition "
                    + partition + "; its replicas are on nodes " + node.spec().replicas(partition));
            return;
        }
        LOG.info("SaveSnapshot: {} exports partition {}", Principals.principal(), partition);
        Pump pump = new Pump(call, partition);
        // Both handlers may only be set before this method returns.
        call.setOnReadyHandler(() -> streamer.execute(pump::run));
        call.setOnCancelHandler(pump::cancel);
        long timeoutMs = request.getTimeoutMs() == 0 ? DEFAULT_TIMEOUT_MS : request.getTimeoutMs();
        CompletableFuture<PartitionSnapshotExport.Export> exporting = exporter.export(node, partition, timeoutMs);
        pump.exporting(exporting);
        exporting.whenCompleteAsync((export, error) -> {
            if (error != null) {
                pump.fail(error);
            } else {
                pump.start(export);
            }
        }, streamer);
        // The export's own timeout covers its cut, not its read barrier or the image's write (and a
        // snapshot request to Ratis, as exports once made, never completed when the replica lost its
        // leadership: SnapshotRestoreIT, 2026-12-06). The call itself answers REQUEST_TIMED_OUT once
        // timeout_ms has run out without an image, as docs/API.md says; an image that comes later is
        // closed unsent (Pump#start).
        CompletableFuture.delayedExecutor(timeoutMs, TimeUnit.MILLISECONDS, streamer)
                .execute(() -> pump.timeOut(timeoutMs));
    }

    private void refuse(ServerCallStreamObserver<SaveSnapshotChunk> call, ErrorCode code, String message) {
        call.onNext(SaveSnapshotChunk.newBuilder().setInfo(SaveSnapshotInfo.newBuilder()
                .setErrorCode(ErrorTable.toProto(code)).setErrorMessage(message).setNodeId(node.nodeId())).build());
        call.onCompleted();
    }

    @Override
    public void close() {
        streamer.shutdownNow();
    }

    /** One call's stream: the info, then the file's bytes while the call is ready. Runs on {@link #streamer}. */
    private final class Pump {
        private final ServerCallStreamObserver<SaveSnapshotChunk> call;
        private final int partition;
        private PartitionSnapshotExport.Export export;
        /** The image being made; cancelled when the call ends without it (nothing left to write). */
        private CompletableFuture<PartitionSnapshotExport.Export> exporting;
        private long position;
        private boolean done;

        Pump(ServerCallStreamObserver<SaveSnapshotChunk> call, int partition) {
            this.call = call;
            this.partition = partition;
        }

        synchronized void exporting(CompletableFuture<PartitionSnapshotExport.Export> future) {
            exporting = future;
            if (done) {
                future.cancel(false);
            }
        }

        /** The call ended without the image: the export need not write it (a large state takes seconds). */
        private void cancelExport() {
            if (exporting != null && export == null) {
                exporting.cancel(false);
            }
        }

        synchronized void start(PartitionSnapshotExport.Export opened) {
            if (done) {
                closeQuietly(opened);
                return;
            }
            export = opened;
            try {
                call.onNext(SaveSnapshotChunk.newBuilder().setInfo(info(opened)).build());
            } catch (IOException | RuntimeException e) {
                finish(Status.INTERNAL.withDescription("could not read the snapshot of partition " + partition
                        + ": " + e));
                return;
            }
            run();
        }

        synchronized void run() {
            if (done || export == null) {
                return;
            }
            try {
                while (position < export.bytes() && call.isReady()) {
                    ByteBuffer chunk = readAt(position, (int) Math.min(CHUNK_BYTES, export.bytes() - position));
                    position += chunk.remaining();
                    call.onNext(SaveSnapshotChunk.newBuilder().setData(UnsafeByteOperations.unsafeWrap(chunk)).build());
                }
                if (position >= export.bytes()) {
                    LOG.info("SaveSnapshot: partition {} at index {} (term {}, {} bytes) sent", partition,
                            export.appliedIndex(), export.term(), export.bytes());
                    finish(null);
                }
            } catch (IOException | RuntimeException e) {
                finish(Status.INTERNAL.withDescription("could not read the snapshot of partition " + partition
                        + ": " + e));
            }
        }

        /** Fails the call if no image has started streaming; an export that comes later is closed. */
        synchronized void timeOut(long timeoutMs) {
            if (!done && export == null) {
                fail(new TimeoutException("no consistent image within " + timeoutMs + " ms"));
            }
        }

        synchronized void fail(Throwable error) {
            if (done) {
                return;
            }
            Throwable cause = ErrorTable.unwrap(error);
            String text = String.valueOf(cause);
            ErrorCode code;
            if (cause instanceof TimeoutException || text.toLowerCase(Locale.ROOT).contains("timeout")) {
                code = ErrorCode.REQUEST_TIMED_OUT;
            } else if (cause instanceof ProposalException proposal
                    && proposal.kind() == ProposalException.Kind.NOT_LEADER && !node.hosts(partition)) {
                code = ErrorCode.NOT_COORDINATOR;
            } else {
                code = ErrorCode.COORDINATOR_NOT_AVAILABLE;
            }
            LOG.warn("SaveSnapshot: partition {}: no consistent image: {}", partition, text);
            done = true;
            cancelExport();
            refuse(call, code, "partition " + partition + " on node " + node.nodeId() + ": " + text);
        }

        synchronized void cancel() {
            if (!done) {
                done = true;
                cancelExport();
                closeQuietly(export);
            }
        }

        private SaveSnapshotInfo info(PartitionSnapshotExport.Export opened) throws IOException {
            MessageDigest sha256 = sha256();
            for (long at = 0; at < opened.bytes(); ) {
                ByteBuffer chunk = readAt(at, (int) Math.min(1 << 16, opened.bytes() - at));
                at += chunk.remaining();
                sha256.update(chunk);
            }
            SaveSnapshotInfo.Builder info = SaveSnapshotInfo.newBuilder()
                    .setErrorCode(io.cohort.api.v1.ErrorCode.NONE)
                    .setNodeId(node.nodeId())
                    .setPartitionIndex(partition)
                    .setTerm(opened.term())
                    .setAppliedIndex(opened.appliedIndex())
                    .setSnapshotFormatVersion(snapshotFormatVersion())
                    .setSnapshotBytes(opened.bytes())
                    .setSnapshotSha256(HexFormat.of().formatHex(sha256.digest()))
                    .setClusterId(node.spec().clusterId())
                    .setPartitionCount(node.partitions())
                    .setReplicationFactor(node.spec().replicationFactor());
            info.putAllClusterSettings(PartitionSnapshotExport.clusterSettings(node.spec()));
            return info.build();
        }

        /** The format version in the snapshot file's header (its first frame). */
        private int snapshotFormatVersion() throws IOException {
            ByteBuffer head = readAt(0, (int) Math.min(64, export.bytes()));
            return SnapshotHeader.parseFrom(CodedInputStream.newInstance(head).readByteArray()).getFormatVersion();
        }

        private ByteBuffer readAt(long at, int length) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate(length);
            while (buffer.hasRemaining()) {
                if (export == null) {
                    throw new IllegalStateException("no export");
                }
                if (export.channel().read(buffer, at + buffer.position()) < 0) {
                    throw new EOFException("the snapshot file " + export.file() + " ended early");
                }
            }
            return buffer.flip();
        }

        private void finish(Status error) {
            done = true;
            closeQuietly(export);
            if (error == null) {
                call.onCompleted();
            } else {
                LOG.warn("SaveSnapshot: partition {}: {}", partition, error.getDescription());
                call.onError(error.asRuntimeException());
            }
        }
    }

    private static void closeQuietly(PartitionSnapshotExport.Export export) {
        if (export == null) {
            return;
        }
        try {
            export.close();
        } catch (IOException e) {
            LOG.debug("closing {}: {}", export.file(), e.toString());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
    }
}
