package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.core.StateLimits;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node that runs out of heap anyway (here: a small heap with the state limits lifted) must exit,
 * not limp on with dead threads as it did before: nodes run with -XX:+ExitOnOutOfMemoryError, and
 * CohortServerMain halts on an OutOfMemoryError that reaches a thread's end.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OutOfMemoryExitIT {
    private static final int PARTITIONS_PER_REQUEST = 180;
    /** Far more than a 96 MiB heap holds at 4 KB each. */
    private static final int MAX_PARTITIONS = 100_000;

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void aNodeThatRunsOutOfHeapExits() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(1).partitions(1).jvmArgs("-Xmx96m")
                .set(StateLimits.MAX_OFFSETS_PER_GROUP, Integer.MAX_VALUE)
                .set(StateLimits.MAX_OFFSETS_PER_PARTITION, Integer.MAX_VALUE)
                .set(StateLimits.MAX_METADATA_BYTES_PER_PARTITION, Long.MAX_VALUE));
        cluster.awaitStableLeaders(Duration.ofSeconds(60));
        String metadata = "m".repeat(4_000);
        int answered = 0;
        for (int first = 0; first < MAX_PARTITIONS && cluster.isRunning(1); first += PARTITIONS_PER_REQUEST) {
            OffsetCommitRequest.Topic.Builder topic = OffsetCommitRequest.Topic.newBuilder().setName("t");
            for (int p = first; p < first + PARTITIONS_PER_REQUEST; p++) {
                topic.addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(p)
                        .setCommittedOffset(1).setCommittedMetadata(metadata));
            }
            try {
                cluster.coordinator(1).withDeadlineAfter(10, TimeUnit.SECONDS).offsetCommit(OffsetCommitRequest
                        .newBuilder().setGroupId("g").setGenerationIdOrMemberEpoch(-1).addTopics(topic).build());
                answered++;
            } catch (StatusRuntimeException e) {
                // The node is failing: wait below for it to exit.
                break;
            }
        }
        await("node 1 exits after running out of heap (" + answered + " commits answered)")
                .atMost(Duration.ofSeconds(90)).until(() -> !cluster.isRunning(1));
        // HotSpot prints its line to stdout; CohortServerMain's handler prints the same words to stderr.
        String output = Files.readString(cluster.nodeDir(1).resolve("stdout.1.log"))
                + Files.readString(cluster.nodeDir(1).resolve("stderr.1.log"));
        assertThat(output).contains("Terminating due to java.lang.OutOfMemoryError");
    }
}
