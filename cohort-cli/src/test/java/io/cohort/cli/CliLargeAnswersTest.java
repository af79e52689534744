package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.LocalCluster;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cohort offsets get} of a group whose answer is larger than gRPC's default 4 MiB message
 * limit: 10,000 partitions with 1,000 bytes of metadata each (about 10 MB), against three real
 * nodes in this JVM.
 */
class CliLargeAnswersTest {
    private static final int PARTITIONS_IN_GROUP = 10_000;
    private static final int METADATA_BYTES = 1_000;
    /** Offsets per commit: 500 x ~1 KB stays under the server's 768 KiB per request. */
    private static final int COMMIT_CHUNK = 500;

    @TempDir
    static Path root;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void testOffsetsGetOfAGroupWithTenThousandPartitions() {
        try (CohortClient client = cluster.client("cli-large")) {
            Map<TopicPartition, OffsetAndMetadata> chunk = new TreeMap<>();
            for (int i = 0; i < PARTITIONS_IN_GROUP; i++) {
                String metadata = String.format("%06d", i) + "m".repeat(METADATA_BYTES - 6);
                chunk.put(new TopicPartition("topic", i), new OffsetAndMetadata(1_000L + i, -1, metadata));
                if (chunk.size() == COMMIT_CHUNK) {
                    client.commitOffsets("cli-large", chunk);
                    chunk.clear();
                }
            }
        }

        Cli cli = Cli.run("--bootstrap", cluster.bootstrap(), "offsets", "get", "cli-large");

        assertThat(cli.exit()).as("exit code; stderr: %s", cli.err()).isZero();
        assertThat(cli.err()).isEmpty();
        List<String> lines = cli.out().lines().toList();
        assertThat(lines).hasSize(PARTITIONS_IN_GROUP + 1);
        assertThat(lines.get(1)).matches("topic +0 +1000 +- +000000m{994}");
        assertThat(lines.get(PARTITIONS_IN_GROUP)).matches("topic +9999 +10999 +- +009999m{994}");
    }
}
