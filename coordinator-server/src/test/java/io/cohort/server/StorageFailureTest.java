package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13, "disk full": a single real node (real Ratis, real gRPC) whose data dir is a 24 MiB tmpfs
 * (mounting needs root, as in CI; without it the test fails saying so). Once the tmpfs is full, a
 * commit must be answered at once with COORDINATOR_NOT_AVAILABLE (or, once the node has stopped,
 * UNAVAILABLE): before the fix it hung until the client's deadline, because Ratis never times out a
 * write and a single node cannot commit without its own log. The node must also report the failure
 * (cohort_storage_failed 1) and stop.
 */
class StorageFailureTest {
    private static final long DISK_BYTES = 24L << 20;
    /** The client deadline of the report: the commit must be answered long before it. */
    private static final long CLIENT_DEADLINE_S = 20;
    private static final String METADATA = "m".repeat(2_000);

    @TempDir
    Path root;

    private Path mountPoint;
    private CohortServer server;
    private ManagedChannel channel;

    @AfterEach
    void cleanUp() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        if (mountPoint != null) {
            run("umount", "-l", mountPoint.toString());
        }
    }

    /** Snapshots rarely: the first write that meets the full disk is a Raft log write (notifyLogFailed). */
    @Test
    void testALogWriteFailureAnswersCommitsAtOnceAndStopsTheNode() throws Exception {
        runOutOfDisk(1_000_000);
        assertThat(server.storageFailure()).hasValueSatisfying(what -> assertThat(what).contains("the log of"));
    }

    /** Snapshots every 50 entries: a snapshot write meets the full disk first. */
    @Test
    void testASnapshotWriteFailureAnswersCommitsAtOnceAndStopsTheNode() throws Exception {
        runOutOfDisk(50);
        assertThat(server.storageFailure()).hasValueSatisfying(what -> assertThat(what).contains("the snapshot of"));
    }

    private void runOutOfDisk(long snapshotEveryEntries) throws Exception {
        Map<String, String> settings = TestNodes.settings(root, 1, TestNodes.peers(1), 1);
        Path dataDir = Path.of(settings.get(ServerConfig.DATA_DIR));
        Files.createDirectories(dataDir);
        String mountError = run("mount", "-t", "tmpfs", "-o", "size=" + DISK_BYTES, "tmpfs", dataDir.toString());
        assertThat(mountError).as("mounting a tmpfs (this test needs root, as CI has)").isNull();
        mountPoint = dataDir;
        settings.put(ServerConfig.SNAPSHOT_EVERY_ENTRIES, Long.toString(snapshotEveryEntries));
        server = CohortServer.start(ServerConfig.of(settings));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.clientPort(),
                InsecureChannelCredentials.create()).build();
        await().atMost(Duration.ofSeconds(60)).until(() -> server.node().isLeaderReady(0));
        assertThat(commit(1).getTopics(0).getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.NONE);

        fill(dataDir);
        List<Object> answers = new java.util.ArrayList<>();
        for (long offset = 2; offset < 20_000 && server.storageFailure().isEmpty(); offset++) {
            try {
                ErrorCode error = commit(offset).getTopics(0).getPartitions(0).getErrorCode();
                if (error != ErrorCode.NONE) {
                    answers.add(error);
                }
            } catch (StatusRuntimeException e) {
                answers.add(e.getStatus().getCode());
                break;
            }
        }
        assertThat(server.storageFailure()).as("the node noticed its storage failed").isPresent();
        // Prompt, retriable answers, never a hang to the deadline. In the moment between Ratis failing
        // its log (it stops being leader-ready) and the node noticing, a commit may also be told
        // COORDINATOR_LOAD_IN_PROGRESS (retry shortly); once noticed, COORDINATOR_NOT_AVAILABLE.
        assertThat(answers).as("answers to commits after the disk filled").doesNotContain(Status.Code.DEADLINE_EXCEEDED)
                .allMatch(a -> a == ErrorCode.COORDINATOR_NOT_AVAILABLE || a == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
                        || a == Status.Code.UNAVAILABLE);
        assertThat(storageFailedGauge()).isEqualTo(1.0);
        // The orderly stop runs by itself; CohortServerMain then exits with 74.
        server.awaitTermination();
        try {
            OffsetCommitResponse late = commit(20_001);
            assertThat(late.getTopics(0).getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        }
    }

    private OffsetCommitResponse commit(long offset) {
        return GroupCoordinatorGrpc.newBlockingStub(channel).withDeadlineAfter(CLIENT_DEADLINE_S, TimeUnit.SECONDS)
                .offsetCommit(OffsetCommitRequest.newBuilder().setGroupId("disk-full").setGenerationIdOrMemberEpoch(-1)
                        .addTopics(OffsetCommitRequest.Topic.newBuilder().setName("t")
                                .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(0)
                                        .setCommittedOffset(offset).setCommittedMetadata(METADATA)))
                        .build());
    }

    private double storageFailedGauge() {
        for (MetricSnapshot snapshot : server.metricsRegistry().scrape()) {
            if (snapshot.getMetadata().getName().equals("cohort_storage_failed")) {
                return ((GaugeSnapshot) snapshot).getDataPoints().get(0).getValue();
            }
        }
        throw new AssertionError("no cohort_storage_failed metric");
    }

    /** Writes a filler file into {@code dir} until the tmpfs has no space left. */
    private static void fill(Path dir) {
        byte[] block = new byte[64 << 10];
        try (OutputStream out = Files.newOutputStream(dir.resolve("disk-filler"))) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            // No space left on device: the point.
        }
    }

    /** Runs a command; null if it succeeded, else what went wrong. */
    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return process.waitFor() == 0 ? null : String.join(" ", command) + " exited " + process.exitValue() + ": "
                + output;
    }
}
