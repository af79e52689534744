package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.client.internal.Partitioner;
import io.cohort.core.PartitionFunction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CohortClient against three real nodes in this JVM. */
class CohortClientTest {
    private static final int PARTITIONS = 3;

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortClient client;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, PARTITIONS);
        client = cluster.client("client-test");
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void testLearnsTheClusterShapeFromOneBootstrapNode() {
        try (CohortClient one = CohortClient.builder().bootstrap(cluster.endpoint(2)).build()) {
            assertThat(one.partitionCount()).isEqualTo(PARTITIONS);
            assertThat(one.nodes()).containsOnlyKeys(1, 2, 3);
            assertThat(one.nodes().get(1)).isEqualTo(cluster.endpoint(1));
        }
    }

    @Test
    void testPartitionFunctionIsTheServers() {
        Random random = new Random(7);
        List<String> ids = new ArrayList<>(List.of("", "a", "orders", "polygenelubricants", "GydZG_"));
        for (int i = 0; i < 2_000; i++) {
            byte[] bytes = new byte[random.nextInt(12)];
            random.nextBytes(bytes);
            ids.add(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        for (String id : ids) {
            for (int partitions : new int[] {1, 3, 7, 50}) {
                assertThat(Partitioner.partitionFor(id, partitions)).as("'%s' over %d", id, partitions)
                        .isEqualTo(PartitionFunction.partitionFor(id, partitions));
            }
        }
    }

    @Test
    void testFindCoordinatorNamesTheLeaderOfTheGroupsPartition() {
        for (String group : List.of("find-a", "find-b", "find-c", "find-d")) {
            Coordinator coordinator = client.findCoordinator(group);
            assertThat(coordinator.partition()).isEqualTo(client.partitionFor(group));
            assertThat(coordinator.nodeId()).isEqualTo(cluster.leaderOf(coordinator.partition()));
            assertThat(coordinator.host() + ":" + coordinator.port()).isEqualTo(cluster.endpoint(coordinator.nodeId()));
        }
    }

    @Test
    void testAdminCommitsAreFetchedBack() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        offsets.put(new TopicPartition("orders", 0), new OffsetAndMetadata(42));
        offsets.put(new TopicPartition("orders", 3), new OffsetAndMetadata(7, 5, "meta"));
        offsets.put(new TopicPartition("audit", 1), new OffsetAndMetadata(0));
        client.commitOffsets("admin-commit", offsets);

        assertThat(client.fetchOffsets("admin-commit")).isEqualTo(offsets);
        assertThat(client.fetchOffsets("admin-commit", List.of(new TopicPartition("orders", 3),
                new TopicPartition("orders", 9)))).containsOnlyKeys(new TopicPartition("orders", 3));
        assertThat(client.fetchOffsets("never-committed")).isEmpty();
    }

    @Test
    void testGroupAdministration() {
        client.commitOffsets("admin-groups", Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1),
                new TopicPartition("u", 0), new OffsetAndMetadata(2)));
        assertThat(client.describeGroup("admin-groups")).hasValueSatisfying(g -> {
            assertThat(g.getGroupState()).isEqualTo("Empty");
            assertThat(g.getMembersList()).isEmpty();
        });
        assertThat(client.describeGroup("admin-missing")).isEmpty();
        assertThat(client.listGroups(List.of("Empty"))).anySatisfy(g ->
                assertThat(g.getGroupId()).isEqualTo("admin-groups"));
        assertThat(client.listGroups(List.of("Stable"))).noneSatisfy(g ->
                assertThat(g.getGroupId()).isEqualTo("admin-groups"));

        assertThat(client.deleteOffsets("admin-groups", List.of(new TopicPartition("t", 0))))
                .containsEntry(new TopicPartition("t", 0), ErrorCode.NONE);
        assertThat(client.fetchOffsets("admin-groups")).containsOnlyKeys(new TopicPartition("u", 0));

        assertThat(client.deleteGroups(List.of("admin-groups", "admin-missing", "admin-groups")))
                .containsExactly(Map.entry("admin-groups", ErrorCode.NONE),
                        Map.entry("admin-missing", ErrorCode.GROUP_ID_NOT_FOUND));
        assertThat(client.fetchOffsets("admin-groups")).isEmpty();
        assertThatThrownBy(() -> client.deleteOffsets("admin-groups", List.of(new TopicPartition("u", 0))))
                .isInstanceOfSatisfying(CohortException.class, e ->
                        assertThat(e.errorCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND));
    }

    /**
     * ListGroups is answered by each node for the partitions it leads (as Kafka's); the client asks
     * every node and merges, so it lists the groups of partitions led by different nodes, with the
     * state and type filters applied on every node.
     */
    @Test
    void testListGroupsMergesThePartitionsOfEveryNodeWithFilters() {
        List<String> groups = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            String group = groupIn(p, "fan-out");
            client.commitOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1)));
            groups.add(group);
        }
        // The preferred leaders spread the partitions over the nodes (one each here).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                java.util.stream.IntStream.range(0, PARTITIONS).map(cluster::leaderOf).filter(id -> id > 0)
                        .distinct().count() == PARTITIONS);
        int leaderOfFirst = cluster.leaderOf(0);
        io.grpc.ManagedChannel channel = io.grpc.ManagedChannelBuilder.forTarget(cluster.endpoint(leaderOfFirst))
                .usePlaintext().build();
        try {
            io.cohort.api.v1.ListGroupsResponse oneNode = io.cohort.api.v1.GroupCoordinatorGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS)
                    .listGroups(io.cohort.api.v1.ListGroupsRequest.getDefaultInstance());
            assertThat(oneNode.getPartitionIndexesList()).containsExactly(0);
            assertThat(oneNode.getGroupsList()).extracting(io.cohort.api.v1.ListGroupsResponse.Group::getGroupId)
                    .contains(groups.get(0)).doesNotContain(groups.get(1), groups.get(2));
        } finally {
            channel.shutdownNow();
        }

        assertThat(listedIds(client.listGroups(List.of()))).containsAll(groups);
        assertThat(listedIds(client.listGroups(List.of("empty"), List.of("CLASSIC")))).containsAll(groups);
        assertThat(listedIds(client.listGroups(List.of("Stable"), List.of()))).doesNotContainAnyElementsOf(groups);
        assertThat(client.listGroups(List.of(), List.of("consumer"))).isEmpty();
        List<String> all = listedIds(client.listGroups(List.of()));
        assertThat(all).isSorted().doesNotHaveDuplicates();
    }

    private static List<String> listedIds(List<io.cohort.api.v1.ListGroupsResponse.Group> groups) {
        return groups.stream().map(io.cohort.api.v1.ListGroupsResponse.Group::getGroupId).toList();
    }

    private static String groupIn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String group = prefix + "-" + i;
            if (Partitioner.partitionFor(group, PARTITIONS) == partition) {
                return group;
            }
        }
    }

    @Test
    void testFollowsTheLeaderHintAfterLeadershipMoves() {
        String group = "hint-group";
        client.commitOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1)));
        Coordinator before = client.cachedCoordinator(group).orElseThrow();
        int target = before.nodeId() % 3 + 1;

        // Move leadership behind the client's back (another client), so its cache is stale.
        try (CohortClient admin = cluster.client("admin")) {
            admin.transferLeadership(before.partition(), target, Duration.ofSeconds(20));
        }
        client.commitOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(2)));

        assertThat(client.cachedCoordinator(group)).hasValueSatisfying(c -> assertThat(c.nodeId()).isEqualTo(target));
        assertThat(client.fetchOffsets(group)).containsEntry(new TopicPartition("t", 0), new OffsetAndMetadata(2));
    }

    @Test
    void testConcurrentCommitsFromManyThreadsAreAllAcknowledgedAndFetched() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String group = "concurrent-" + t;
                done.add(pool.submit(() -> {
                    for (int offset = 1; offset <= 20; offset++) {
                        client.commitOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(offset)));
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int t = 0; t < 8; t++) {
            assertThat(client.fetchOffsets("concurrent-" + t)).containsEntry(new TopicPartition("t", 0),
                    new OffsetAndMetadata(20));
        }
    }

    @Test
    void testMalformedRequestFailsAtOnceWithInvalidRequest() {
        OffsetCommitRequest bad = OffsetCommitRequest.newBuilder().setGroupId("bad").setGenerationIdOrMemberEpoch(-1)
                .addTopics(OffsetCommitRequest.Topic.newBuilder().setName("t").addPartitions(
                        OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(-1).setCommittedOffset(1)))
                .build();
        assertThatThrownBy(() -> client.offsetCommit(bad, Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(CohortException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(e.getMessage()).contains("partition");
                });
    }

    @Test
    void testAnUnreachableClusterFailsWithAnExplanation() {
        try (CohortClient nowhere = CohortClient.builder().bootstrap("127.0.0.1:1").apiTimeout(Duration.ofMillis(500))
                .build()) {
            assertThatThrownBy(nowhere::partitionCount).isInstanceOfSatisfying(CohortException.class, e -> {
                assertThat(e.errorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
                assertThat(e.getMessage()).contains("127.0.0.1:1").contains("is the cluster running?");
                assertThat(e.retriable()).isTrue();
            });
        }
    }

    @Test
    void testTransferToAMissingNodeIsRefused() {
        assertThatThrownBy(() -> client.transferLeadership(0, 9, Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(CohortException.class, e ->
                        assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST));
    }

    @Test
    void testBuilderRejectsBadSettings() {
        // No bootstrap is not an error: the default (Bootstrap.defaultEndpoints()) applies; nothing connects yet.
        CohortClient.builder().build().close();
        assertThatThrownBy(() -> CohortClient.builder().bootstrap("nohost")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> CohortClient.builder().requestTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
