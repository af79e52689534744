package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group whose answer is larger than gRPC's default message limit (4 MiB) reads back whole:
 * 10,000 partitions with 1,000 bytes of metadata each are about 10 MB in one OffsetFetch answer.
 * The commits go in requests under the server's request limit (768 KiB); the read is one call.
 */
class LargeAnswersTest {
    static final int PARTITIONS_IN_GROUP = 10_000;
    static final int METADATA_BYTES = 1_000;
    /** Offsets per commit: 500 x ~1 KB stays under the server's 768 KiB per request. */
    private static final int COMMIT_CHUNK = 500;

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortClient client;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, 1);
        client = cluster.client("large-answers");
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
    void testOffsetsOfAGroupWithTenThousandPartitionsReadBack() {
        Map<TopicPartition, OffsetAndMetadata> committed = commitLargeGroup(client, "large-group");

        Map<TopicPartition, OffsetAndMetadata> fetched = client.fetchOffsets("large-group");

        assertThat(fetched).hasSize(PARTITIONS_IN_GROUP);
        assertThat(fetched).isEqualTo(committed);
    }

    /** Commits offsets of {@value #PARTITIONS_IN_GROUP} partitions, each with metadata; returns them. */
    public static Map<TopicPartition, OffsetAndMetadata> commitLargeGroup(CohortClient client, String groupId) {
        Map<TopicPartition, OffsetAndMetadata> all = new TreeMap<>();
        Map<TopicPartition, OffsetAndMetadata> chunk = new TreeMap<>();
        for (int i = 0; i < PARTITIONS_IN_GROUP; i++) {
            String metadata = String.format("%06d", i) + "m".repeat(METADATA_BYTES - 6);
            TopicPartition tp = new TopicPartition("topic-" + (i % 10), i / 10);
            OffsetAndMetadata offset = new OffsetAndMetadata(1_000L + i, -1, metadata);
            chunk.put(tp, offset);
            all.put(tp, offset);
            if (chunk.size() == COMMIT_CHUNK) {
                client.commitOffsets(groupId, chunk);
                chunk.clear();
            }
        }
        if (!chunk.isEmpty()) {
            client.commitOffsets(groupId, chunk);
        }
        return all;
    }
}
