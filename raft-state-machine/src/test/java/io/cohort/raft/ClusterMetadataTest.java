package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cluster.properties: the state limits are fixed at creation, and files written before them still start. */
class ClusterMetadataTest {
    private static final List<NodeAddress> PEERS = List.of(NodeAddress.parse("1=127.0.0.1:7001:7101"));

    /** What the build before the state limits wrote for {@link #spec} with Kafka's group defaults (golden bytes). */
    private static final String FILE_WITHOUT_LIMITS = """
            cluster.id=cohort
            format.version=1
            group.initial.rebalance.delay.ms=3000
            group.max.session.timeout.ms=1800000
            group.max.size=2147483647
            group.min.session.timeout.ms=6000
            node.id=1
            offset.metadata.max.bytes=4096
            offsets.partitions=1
            offsets.retention.check.interval.ms=600000
            offsets.retention.ms=604800000
            peers=1=127.0.0.1:7001:7101
            """;

    @TempDir
    Path dataDir;

    private static ClusterSpec spec(StateLimits limits) {
        return new ClusterSpec("cohort", 1, PEERS, GroupConfig.defaults().withLimits(limits));
    }

    @Test
    void testANewDataDirStoresTheStateLimits() throws Exception {
        StateLimits limits = new StateLimits(10, 20, 30, 40L);
        assertThat(ClusterMetadata.writeOrVerify(dataDir, 1, spec(limits))).isTrue();

        String stored = Files.readString(dataDir.resolve(ClusterMetadata.FILE_NAME));
        assertThat(stored).contains("group.max.offsets=10\n", "offsets.partition.max.groups=20\n",
                "offsets.partition.max.offsets=30\n", "offsets.partition.max.metadata.bytes=40\n");
        assertThat(ClusterMetadata.writeOrVerify(dataDir, 1, spec(limits))).isFalse();
        assertThatThrownBy(() -> ClusterMetadata.writeOrVerify(dataDir, 1, spec(limits.withMaxOffsetsPerGroup(11))))
                .isInstanceOf(ClusterMetadata.MismatchException.class)
                .hasMessageContaining("group.max.offsets: stored 10, configured 11");
    }

    @Test
    void testAFileWrittenBeforeTheStateLimitsStartsWithTheDefaults() throws Exception {
        Files.writeString(dataDir.resolve(ClusterMetadata.FILE_NAME), FILE_WITHOUT_LIMITS, StandardCharsets.UTF_8);

        assertThat(ClusterMetadata.writeOrVerify(dataDir, 1, spec(StateLimits.defaults()))).isFalse();
        // A missing key stands for its default, so other values are a mismatch like any other setting.
        assertThatThrownBy(() -> ClusterMetadata.writeOrVerify(dataDir, 1,
                spec(StateLimits.defaults().withMaxMetadataBytesPerPartition(1024))))
                .isInstanceOf(ClusterMetadata.MismatchException.class)
                .hasMessageContaining("offsets.partition.max.metadata.bytes: stored "
                        + StateLimits.DEFAULT_MAX_METADATA_BYTES_PER_PARTITION + ", configured 1024");
    }

    /**
     * What the build before the replication factor (issue 15) wrote for a 5-node cluster (golden
     * bytes): every node held every partition, so the file stands for RF = 5.
     */
    private static final String FIVE_NODE_FILE_WITHOUT_REPLICATION_FACTOR = """
            cluster.id=cohort
            format.version=1
            group.initial.rebalance.delay.ms=3000
            group.max.offsets=100000
            group.max.session.timeout.ms=1800000
            group.max.size=2147483647
            group.min.session.timeout.ms=6000
            node.id=2
            offset.metadata.max.bytes=4096
            offsets.partition.max.groups=50000
            offsets.partition.max.metadata.bytes=33554432
            offsets.partition.max.offsets=500000
            offsets.partitions=6
            offsets.retention.check.interval.ms=600000
            offsets.retention.ms=604800000
            peers=1=127.0.0.1:7001:7101,2=127.0.0.1:7002:7102,3=127.0.0.1:7003:7103,4=127.0.0.1:7004:7104,\
            5=127.0.0.1:7005:7105
            """;

    private static final List<NodeAddress> FIVE_PEERS = java.util.stream.IntStream.rangeClosed(1, 5)
            .mapToObj(id -> NodeAddress.parse(id + "=127.0.0.1:700" + id + ":710" + id)).toList();

    private static ClusterSpec fiveNodes(int replicationFactor, java.util.Map<Integer, String> racks) {
        return new ClusterSpec("cohort", 6, FIVE_PEERS, GroupConfig.defaults(), replicationFactor, racks);
    }

    @Test
    void testAFileWrittenBeforeTheReplicationFactorKeepsEveryPartitionOnEveryNode() throws Exception {
        Files.writeString(dataDir.resolve(ClusterMetadata.FILE_NAME), FIVE_NODE_FILE_WITHOUT_REPLICATION_FACTOR,
                StandardCharsets.UTF_8);

        assertThat(ClusterMetadata.storedReplicationFactor(dataDir)).hasValue(5);
        assertThat(ClusterMetadata.writeOrVerify(dataDir, 2, fiveNodes(5, java.util.Map.of()))).isFalse();
        assertThatThrownBy(() -> ClusterMetadata.writeOrVerify(dataDir, 2, fiveNodes(3, java.util.Map.of())))
                .isInstanceOf(ClusterMetadata.MismatchException.class)
                .hasMessageContaining("offsets.replication.factor: stored 5, configured 3");
        // The old layout: every node a replica, preferred leader (p mod N)-th node.
        ClusterSpec old = fiveNodes(5, java.util.Map.of());
        for (int p = 0; p < 6; p++) {
            assertThat(old.replicas(p)).containsExactlyInAnyOrder(1, 2, 3, 4, 5);
            assertThat(old.preferredLeader(p)).isEqualTo(p % 5 + 1);
        }
    }

    @Test
    void testTheReplicationFactorAndRacksAreFixedAtCreation() throws Exception {
        assertThat(ClusterMetadata.storedReplicationFactor(dataDir)).isEmpty();
        java.util.Map<Integer, String> racks = java.util.Map.of(1, "a", 2, "a", 3, "b", 4, "b", 5, "c");
        assertThat(ClusterMetadata.writeOrVerify(dataDir, 1, fiveNodes(3, racks))).isTrue();

        assertThat(Files.readString(dataDir.resolve(ClusterMetadata.FILE_NAME)))
                .contains("offsets.replication.factor=3\n", "cluster.racks=1:a,2:a,3:b,4:b,5:c\n");
        assertThat(ClusterMetadata.storedReplicationFactor(dataDir)).hasValue(3);
        assertThat(ClusterMetadata.writeOrVerify(dataDir, 1, fiveNodes(3, racks))).isFalse();
        assertThatThrownBy(() -> ClusterMetadata.writeOrVerify(dataDir, 1, fiveNodes(2, racks)))
                .hasMessageContaining("offsets.replication.factor: stored 3, configured 2");
        assertThatThrownBy(() -> ClusterMetadata.writeOrVerify(dataDir, 1, fiveNodes(3, java.util.Map.of())))
                .hasMessageContaining("cluster.racks: stored 1:a,2:a,3:b,4:b,5:c, configured \n".trim());
    }
}
