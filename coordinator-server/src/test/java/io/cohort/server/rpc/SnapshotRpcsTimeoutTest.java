package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.SaveSnapshotChunk;
import io.cohort.api.v1.SaveSnapshotRequest;
import io.cohort.raft.PartitionSnapshotExport;
import io.cohort.server.auth.RequestAuthorizer;
import io.grpc.stub.ServerCallStreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SaveSnapshot answers within its {@code timeout_ms} even when the image never comes: a Ratis
 * snapshot request taken while the replica lost its leadership once never completed, and the call
 * (and the CLI behind it) hung. Here the export never completes, on a real node.
 */
class SnapshotRpcsTimeoutTest {
    @TempDir
    Path tmp;

    private CoordinatorTestCluster cluster;

    @BeforeEach
    void start() {
        cluster = CoordinatorTestCluster.start(tmp, 1, 1);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    /** The handler with an export that never completes. */
    private SnapshotRpcs exportingNever(CompletableFuture<PartitionSnapshotExport.Export> never) {
        return new SnapshotRpcs(cluster.node(1).raft, RequestAuthorizer.ALLOW_ALL, (node, partition, timeoutMs) -> never);
    }

    private static RecordingCall saveSnapshot(SnapshotRpcs rpcs, int timeoutMs) {
        RecordingCall call = new RecordingCall();
        rpcs.saveSnapshot(SaveSnapshotRequest.newBuilder().setPartitionIndex(0).setTimeoutMs(timeoutMs).build(), call,
                false);
        return call;
    }

    @Test
    void testAnExportThatNeverCompletesIsAnsweredRequestTimedOutWhenTheTimeoutRunsOut() {
        CompletableFuture<PartitionSnapshotExport.Export> never = new CompletableFuture<>();
        try (SnapshotRpcs rpcs = exportingNever(never)) {
            RecordingCall call = saveSnapshot(rpcs, 300);

            await("the call answered").atMost(Duration.ofSeconds(10)).until(call.completed::get);
            assertThat(call.chunks).singleElement().satisfies(chunk -> {
                assertThat(chunk.getInfo().getErrorCode()).isEqualTo(ErrorCode.REQUEST_TIMED_OUT);
                assertThat(chunk.getInfo().getErrorMessage()).contains("partition 0", "300 ms");
            });
            assertThat(call.errors).isEmpty();
            assertThat(never).as("the export, no longer wanted, is cancelled").isCancelled();
        }
    }

    @Test
    void testAClientThatGoesAwayCancelsTheExport() {
        CompletableFuture<PartitionSnapshotExport.Export> never = new CompletableFuture<>();
        try (SnapshotRpcs rpcs = exportingNever(never)) {
            RecordingCall call = saveSnapshot(rpcs, 60_000);
            assertThat(never).isNotDone();
            call.onCancel.run();
            assertThat(never).as("the export, no longer wanted, is cancelled").isCancelled();
            assertThat(call.chunks).isEmpty();
        }
    }

    /** A server call that records what the handler sends. */
    private static final class RecordingCall extends ServerCallStreamObserver<SaveSnapshotChunk> {
        final List<SaveSnapshotChunk> chunks = new CopyOnWriteArrayList<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final AtomicBoolean completed = new AtomicBoolean();
        volatile Runnable onCancel = () -> { };

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void setOnCancelHandler(Runnable onCancelHandler) {
            onCancel = onCancelHandler;
        }

        @Override
        public void setCompression(String compression) {
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setOnReadyHandler(Runnable onReadyHandler) {
        }

        @Override
        public void disableAutoInboundFlowControl() {
        }

        @Override
        public void request(int count) {
        }

        @Override
        public void setMessageCompression(boolean enable) {
        }

        @Override
        public void onNext(SaveSnapshotChunk value) {
            chunks.add(value);
        }

        @Override
        public void onError(Throwable t) {
            errors.add(t);
            completed.set(true);
        }

        @Override
        public void onCompleted() {
            completed.set(true);
        }
    }
}
