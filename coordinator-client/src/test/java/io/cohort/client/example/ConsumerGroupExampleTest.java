package io.cohort.client.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.LocalCluster;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The documented example runs as shown and its commits are fetched back. */
class ConsumerGroupExampleTest {
    @TempDir
    Path root;

    @Test
    void testTheExampleOwnsEveryPartitionAndCommitsIt() {
        try (LocalCluster cluster = LocalCluster.start(root, 1, 1)) {
            String bootstrap = cluster.bootstrap();
            Map<TopicPartition, OffsetAndMetadata> committed = ConsumerGroupExample.run(bootstrap, "example-test",
                    Duration.ofSeconds(3));

            assertThat(committed).hasSize(12);
            try (CohortClient client = CohortClient.builder().bootstrap(bootstrap).build()) {
                assertThat(client.fetchOffsets("example-test")).isEqualTo(committed);
            }
        }
    }
}
