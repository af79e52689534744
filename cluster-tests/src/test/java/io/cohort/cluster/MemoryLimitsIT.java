package io.cohort.cluster;

import static io.cohort.cluster.CoordinatorCalls.firstError;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13's "no resource bounds" scenario against the default limits: one client commits offsets
 * with 4 KB of metadata each for up to ~120,000 partitions (~480 MB) to a 3-node cluster of
 * {@code -Xmx512m} JVMs with one offsets partition. Before the limits the leader ran out of heap and
 * the cluster did not come back from a restart.
 *
 * <p>Now the commits must be refused with INVALID_COMMIT_OFFSET_SIZE naming
 * {@code offsets.partition.max.metadata.bytes} long before the heap fills; every node must stay up
 * and keep accepting commits that do not grow the partition's state; and after SIGKILL of every node
 * and a restart the cluster must serve every acknowledged offset again.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MemoryLimitsIT {
    private static final int NODES = 3;
    private static final String GROUP = "flood";
    private static final String TOPIC = "wide-topic";
    /** The scenario: ~120k partitions with 4 KB metadata (~480 MB). */
    private static final int SCENARIO_PARTITIONS = 120_000;
    /** offset.metadata.max.bytes is 4096: the largest metadata a single offset may carry. */
    private static final int METADATA_CHARS = 4_000;
    /** ~720 KB per request: under the server's 768 KiB request limit, so ~670 requests for the scenario. */
    private static final int PARTITIONS_PER_REQUEST = 180;
    /** OffsetFetch answers must stay under gRPC's 4 MiB message limit: 500 x 4 KB = 2 MB. */
    private static final int PARTITIONS_PER_FETCH = 500;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration SETTLE_BOUND = Duration.ofSeconds(60);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void aClientFloodingOnePartitionIsRefusedAndTheClusterKeepsAndRestoresWhatItAccepted() {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(NODES).partitions(1));
        History history = new History(cluster.runDir().resolve("history.log"));
        CoordinatorCalls calls = new CoordinatorCalls(cluster, history, Duration.ofSeconds(60));
        cluster.awaitStableLeaders(SETTLE_BOUND);
        String metadata = "m".repeat(METADATA_CHARS);

        Map<Integer, Long> acknowledged = new TreeMap<>();
        OffsetCommitResponse refused = null;
        for (int first = 0; first < SCENARIO_PARTITIONS && refused == null; first += PARTITIONS_PER_REQUEST) {
            OffsetCommitRequest request = commit(first, PARTITIONS_PER_REQUEST, first + 1L, metadata);
            OffsetCommitResponse response = calls.call(GROUP, "OffsetCommit from " + first, CALL_TIMEOUT,
                    stub -> stub.offsetCommit(request), MemoryLimitsIT::errorOf).response();
            ErrorCode error = errorOf(response);
            if (error == ErrorCode.NONE) {
                for (int p = first; p < first + PARTITIONS_PER_REQUEST; p++) {
                    acknowledged.put(p, first + 1L);
                }
            } else {
                refused = response;
            }
        }
        history.record("acknowledged " + acknowledged.size() + " offsets before the first refusal");
        assertThat(refused).as("a commit was refused before %d partitions", SCENARIO_PARTITIONS).isNotNull();
        // The whole request is refused, every partition with the same code, and the message names the limit.
        refused.getTopicsList().forEach(topic -> topic.getPartitionsList().forEach(partition ->
                assertThat(partition.getErrorCode()).isEqualTo(ErrorCode.INVALID_COMMIT_OFFSET_SIZE)));
        assertThat(refused.getErrorMessage()).contains("offsets.partition.max.metadata.bytes");
        assertThat(acknowledged).as("offsets accepted before the limit").isNotEmpty();

        for (int nodeId : cluster.nodeIds()) {
            history.record("node " + nodeId + " heap in use after the refusal: " + heapUsedMb(cluster, nodeId) + " MB");
        }

        // Nothing of the refused request was applied, every node is up, and commits that do not
        // grow the state (new offsets of already-committed partitions) are still accepted.
        for (int nodeId : cluster.nodeIds()) {
            assertThat(cluster.isRunning(nodeId)).as("node %d running", nodeId).isTrue();
            assertThat(health(cluster, nodeId)).as("health of node %d", nodeId)
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
        int firstRefused = acknowledged.size();
        assertThat(fetch(calls, firstRefused, PARTITIONS_PER_REQUEST).values())
                .as("offsets of the refused request").containsOnly(-1L);
        OffsetCommitRequest update = commit(0, PARTITIONS_PER_REQUEST, 1_000_000L, metadata);
        assertThat(errorOf(calls.call(GROUP, "OffsetCommit update", CALL_TIMEOUT,
                stub -> stub.offsetCommit(update), MemoryLimitsIT::errorOf).response())).isEqualTo(ErrorCode.NONE);
        for (int p = 0; p < PARTITIONS_PER_REQUEST; p++) {
            acknowledged.put(p, 1_000_000L);
        }

        // A full restart on the data the cluster accepted: every node killed, all started again.
        for (int nodeId : cluster.nodeIds()) {
            cluster.kill(nodeId);
        }
        history.record("SIGKILLed every node; starting all again");
        cluster.startAll();
        cluster.awaitStableLeaders(SETTLE_BOUND);
        assertThat(fetch(calls, 0, acknowledged.size())).as("acknowledged offsets after a full restart")
                .isEqualTo(acknowledged);
        System.out.println(getClass().getSimpleName() + ": " + acknowledged.size()
                + " offsets of 4 KB metadata accepted, then refused: " + refused.getErrorMessage()
                + "; heap in use after the restart by node: " + cluster.nodeIds().stream()
                .map(id -> id + "=" + heapUsedMb(cluster, id) + " MB").toList());
    }

    private static OffsetCommitRequest commit(int firstPartition, int count, long offset, String metadata) {
        OffsetCommitRequest.Topic.Builder topic = OffsetCommitRequest.Topic.newBuilder().setName(TOPIC);
        for (int p = firstPartition; p < firstPartition + count; p++) {
            topic.addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(p)
                    .setCommittedOffset(offset).setCommittedMetadata(metadata));
        }
        return OffsetCommitRequest.newBuilder().setGroupId(GROUP).setGenerationIdOrMemberEpoch(-1)
                .addTopics(topic).build();
    }

    private static ErrorCode errorOf(OffsetCommitResponse response) {
        return firstError(response.getTopicsList().stream().flatMap(t -> t.getPartitionsList().stream()).toList(),
                OffsetCommitResponse.Partition::getErrorCode);
    }

    /** The committed offsets of partitions [first, first + count), in pages that fit a gRPC message. */
    private static Map<Integer, Long> fetch(CoordinatorCalls calls, int first, int count) {
        Map<Integer, Long> offsets = new TreeMap<>();
        for (int from = first; from < first + count; from += PARTITIONS_PER_FETCH) {
            OffsetFetchRequest.Topic.Builder topic = OffsetFetchRequest.Topic.newBuilder().setName(TOPIC);
            for (int p = from; p < Math.min(from + PARTITIONS_PER_FETCH, first + count); p++) {
                topic.addPartitionIndexes(p);
            }
            OffsetFetchRequest request = OffsetFetchRequest.newBuilder()
                    .addGroups(OffsetFetchRequest.Group.newBuilder().setGroupId(GROUP).addTopics(topic)).build();
            OffsetFetchResponse.Group group = calls.call(GROUP, "OffsetFetch from " + from, CALL_TIMEOUT,
                    stub -> stub.offsetFetch(request), r -> r.getGroups(0).getErrorCode()).response().getGroups(0);
            assertThat(group.getErrorCode()).as(group.getErrorMessage()).isEqualTo(ErrorCode.NONE);
            for (OffsetFetchResponse.Topic fetched : group.getTopicsList()) {
                for (OffsetFetchResponse.Partition partition : fetched.getPartitionsList()) {
                    offsets.put(partition.getPartitionIndex(), partition.getCommittedOffset());
                }
            }
        }
        return offsets;
    }

    /**
     * The node's {@code jvm_memory_used_bytes{area="heap"}} from /metrics, in MB: garbage included,
     * so an upper bound of what the state takes; reported, not asserted.
     */
    private static long heapUsedMb(ProcessCluster cluster, int nodeId) {
        HttpRequest request = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + cluster.metricsPort(nodeId) + "/metrics")).build();
        try {
            String body = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
            String line = body.lines().filter(l -> l.startsWith("jvm_memory_used_bytes{area=\"heap\"}")).findFirst()
                    .orElseThrow(() -> new AssertionError("no heap metric on node " + nodeId));
            return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) >> 20;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HealthCheckResponse.ServingStatus health(ProcessCluster cluster, int nodeId) {
        return HealthGrpc.newBlockingStub(cluster.channel(nodeId)).withDeadlineAfter(5, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    }
}
