package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ErrorCode;
import io.cohort.cli.Model.ClusterView;
import io.cohort.cli.Model.ConsumerGroupDescription;
import io.cohort.cli.Model.ConsumerMember;
import io.cohort.cli.Model.DescribedGroup;
import io.cohort.cli.Model.GroupCoordinator;
import io.cohort.cli.Model.GroupDeletion;
import io.cohort.cli.Model.GroupDescription;
import io.cohort.cli.Model.GroupListing;
import io.cohort.cli.Model.GroupOffsets;
import io.cohort.cli.Model.Member;
import io.cohort.cli.Model.NodeRow;
import io.cohort.cli.Model.OffsetDeletion;
import io.cohort.cli.Model.PartitionRow;
import io.cohort.cli.Model.Transfer;
import io.cohort.client.Coordinator;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Golden tests of the renderers: fixed values in, the exact text of a file under
 * src/test/resources/golden/ out (table: NAME.txt, JSON: NAME.json).
 *
 * <p>After an intended change of the output, rewrite the files instead of comparing, then review
 * the diff before committing:
 * <pre>
 *   mvn -pl cohort-cli test -Dtest=RenderGoldenTest -Dcohort.golden.update=true
 * </pre>
 */
class RenderGoldenTest {
    /** Where the golden files live, relative to the module directory (surefire's working directory). */
    private static final Path GOLDEN = Path.of("src", "test", "resources", "golden");
    private static final boolean UPDATE = Boolean.getBoolean("cohort.golden.update");

    private static final Coordinator NODE_1 = new Coordinator(0, 1, "127.0.0.1", 7101);
    private static final Coordinator NODE_2 = new Coordinator(1, 2, "127.0.0.1", 7102);
    private static final Coordinator NODE_3 = new Coordinator(2, 3, "127.0.0.1", 7103);

    @Test
    void testGroupsList() {
        List<GroupListing> groups = List.of(new GroupListing("billing", "Empty", ""),
                new GroupListing("connect-sink", "PreparingRebalance", "connect"),
                new GroupListing("orders-app", "Stable", "consumer"));
        assertGolden("groups-list.txt", Render.groupsList(OutputFormat.TABLE, groups));
        assertGolden("groups-list.json", Render.groupsList(OutputFormat.JSON, groups));
    }

    @Test
    void testGroupsListEmpty() {
        assertThat(Render.groupsList(OutputFormat.TABLE, List.of())).isEqualTo("GROUP  STATE  PROTOCOL-TYPE\n");
        assertThat(Render.groupsList(OutputFormat.JSON, List.of())).isEqualTo("{\n  \"groups\": []\n}\n");
    }

    @Test
    void testGroupsDescribe() {
        GroupDescription consumer = new GroupDescription("orders-app", NODE_2, "Stable", "consumer", "range", 7,
                "consumer-1-6f1c", List.of(
                        new Member("consumer-1-6f1c", null, "consumer-1", "/10.0.0.1", 24, List.of(tp("orders", 0),
                                tp("orders", 1), tp("orders", 2), tp("orders", 5), tp("audit", 1))),
                        new Member("consumer-2-91ab", "instance-b", "consumer-2", "/10.0.0.2", 12,
                                List.of(tp("orders", 3), tp("orders", 4))),
                        new Member("consumer-3-0c2d", null, "consumer-3", "", 0, List.of())));
        GroupDescription connect = new GroupDescription("connect-sink", NODE_1, "Stable", "connect", "default", 3,
                "worker-1", List.of(new Member("worker-1", null, "worker", "/10.0.0.9", 17, null)));
        GroupDescription empty = new GroupDescription("billing", NODE_3, "Empty", "", "", 0, "", List.of());
        List<GroupDescription> groups = List.of(consumer, connect, empty);
        assertGolden("groups-describe.txt", Render.groupsDescribe(OutputFormat.TABLE, groups));
        assertGolden("groups-describe.json", Render.groupsDescribe(OutputFormat.JSON, groups));
    }

    @Test
    void testGroupsDescribeOfAConsumerProtocolGroupBesideAClassicOne() {
        ConsumerGroupDescription reconciling = new ConsumerGroupDescription("orders-kip848", NODE_2, "Reconciling", 12,
                12, "uniform", List.of(
                        new ConsumerMember("5b2a7c1e-1111-4a55-9e0b-3c4d5e6f7a81", null, "rack-a", "consumer-1",
                                "/10.0.0.1", 11, "UNREVOKED_PARTITIONS", "consumer", List.of("audit", "orders"), null,
                                List.of(tp("orders", 0), tp("orders", 1), tp("orders", 2), tp("audit", 0)),
                                List.of(tp("orders", 0), tp("orders", 1), tp("audit", 0))),
                        new ConsumerMember("9c0d1e2f-2222-4b66-8f1a-4d5e6f7a8b92", "instance-b", null, "consumer-2",
                                "/10.0.0.2", 12, "UNRELEASED_PARTITIONS", "consumer", List.of(), "orders|audit",
                                List.of(tp("orders", 3)), List.of(tp("orders", 2), tp("orders", 3)))));
        ConsumerGroupDescription empty = new ConsumerGroupDescription("idle-kip848", NODE_1, "Empty", 3, 3, "range",
                List.of());
        GroupDescription classic = new GroupDescription("billing", NODE_3, "Empty", "", "", 0, "", List.of());
        List<DescribedGroup> groups = List.of(reconciling, classic, empty);
        assertGolden("groups-describe-consumer.txt", Render.groupsDescribe(OutputFormat.TABLE, groups));
        assertGolden("groups-describe-consumer.json", Render.groupsDescribe(OutputFormat.JSON, groups));
    }

    @Test
    void testGroupsDelete() {
        List<GroupDeletion> results = List.of(new GroupDeletion("billing", ErrorCode.NONE),
                new GroupDeletion("orders-app", ErrorCode.NON_EMPTY_GROUP),
                new GroupDeletion("ghost", ErrorCode.GROUP_ID_NOT_FOUND));
        assertGolden("groups-delete.txt", Render.groupsDelete(OutputFormat.TABLE, results));
        assertGolden("groups-delete.json", Render.groupsDelete(OutputFormat.JSON, results));
    }

    @Test
    void testOffsetsGet() {
        TreeMap<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        offsets.put(tp("orders", 1), new OffsetAndMetadata(7, 5, "checkpoint"));
        offsets.put(tp("orders", 0), new OffsetAndMetadata(42));
        offsets.put(tp("audit", 0), new OffsetAndMetadata(0, -1, "a \"quoted\"\tvalue"));
        offsets.put(tp("orders", 10), new OffsetAndMetadata(1_000_000_000_000L));
        GroupOffsets group = new GroupOffsets("orders-app", offsets);
        assertGolden("offsets-get.txt", Render.offsets(OutputFormat.TABLE, group));
        assertGolden("offsets-get.json", Render.offsets(OutputFormat.JSON, group));
    }

    @Test
    void testOffsetsDelete() {
        TreeMap<TopicPartition, ErrorCode> results = new TreeMap<>();
        results.put(tp("orders", 0), ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
        results.put(tp("audit", 0), ErrorCode.NONE);
        results.put(tp("audit", 1), ErrorCode.NONE);
        OffsetDeletion deletion = new OffsetDeletion("orders-app", results);
        assertGolden("offsets-delete.txt", Render.offsetsDelete(OutputFormat.TABLE, deletion));
        assertGolden("offsets-delete.json", Render.offsetsDelete(OutputFormat.JSON, deletion));
    }

    @Test
    void testFindCoordinator() {
        List<GroupCoordinator> rows = List.of(new GroupCoordinator("orders-app", NODE_2),
                new GroupCoordinator("billing", NODE_3),
                new GroupCoordinator("v6-group", new Coordinator(0, 1, "::1", 7101)));
        assertGolden("find-coordinator.txt", Render.findCoordinator(OutputFormat.TABLE, rows));
        assertGolden("find-coordinator.json", Render.findCoordinator(OutputFormat.JSON, rows));
    }

    /**
     * Node 3 is down: partition 2, which it led, has no leader yet; node 1 has just won partition 3;
     * node 2 keeps partition 1 (auto.leader.rebalance.enable=false) although node 3 is its preferred
     * leader.
     */
    @Test
    void testClusterStatusWithOneNodeDown() {
        ClusterView view = new ClusterView(
                List.of(new NodeRow(1, "127.0.0.1:7101", 7201, "voter", true, null),
                        new NodeRow(2, "127.0.0.1:7102", 7202, "voter", true, null),
                        new NodeRow(3, "127.0.0.1:7103", 7203, "listener", false, "UNAVAILABLE")),
                List.of(new PartitionRow(0, 1, true, 3, 120, Map.of(1, 120L, 2, 118L), 1, false),
                        new PartitionRow(1, 2, true, 2, 57, Map.of(1, 57L, 2, 57L), 3, true),
                        new PartitionRow(2, null, false, 4, 33, Map.of(1, 33L, 2, 33L), 3, false),
                        new PartitionRow(3, 1, false, 5, 1_024, Map.of(1, 1_023L, 2, 1_024L))));
        assertThat(view.healthy()).isFalse();
        assertThat(view.partitionsWithoutReadyLeader()).containsExactly(2, 3);
        assertGolden("cluster-status.txt", Render.clusterStatus(OutputFormat.TABLE, view));
        assertGolden("cluster-status.json", Render.clusterStatus(OutputFormat.JSON, view));
    }

    @Test
    void testTransferLeader() {
        assertGolden("transfer-leader.txt", Render.transfer(OutputFormat.TABLE, new Transfer(0, 1, 2)));
        assertGolden("transfer-leader.json", Render.transfer(OutputFormat.JSON, new Transfer(0, null, 2)));
    }

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    private static void assertGolden(String name, String actual) {
        Path file = GOLDEN.resolve(name);
        try {
            if (UPDATE) {
                Files.createDirectories(GOLDEN);
                Files.writeString(file, actual, StandardCharsets.UTF_8);
                return;
            }
            assertThat(file).as("golden file %s (create it with -Dcohort.golden.update=true)", file).exists();
            assertThat(actual).as("output vs. %s (after an intended change, rerun with -Dcohort.golden.update=true)",
                    file).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
