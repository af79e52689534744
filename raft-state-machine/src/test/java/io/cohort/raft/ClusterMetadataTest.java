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
}
