package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.LocalCluster;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cohort topics create|alter|delete|list} against a real node. */
class TopicsCliTest {
    @TempDir
    static Path root;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root.resolve("cluster"), 1, 2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Cli cohort(String... args) {
        return Cli.against(cluster.bootstrap(), args);
    }

    @Test
    void testCreateAlterListDelete() {
        Cli created = cohort("topics", "create", "orders", "--partitions", "2", "--racks", "r0a,r0b;r1a");
        assertThat(created.exit()).as(created.toString()).isZero();
        assertThat(created.out()).startsWith("NAME    TOPIC_ID").contains("orders").contains("r0a,r0b;r1a");
        String topicId = created.out().lines().skip(1).findFirst().orElseThrow().split("\\s+")[1];
        assertThat(topicId).hasSize(36);

        Cli altered = cohort("topics", "alter", "orders", "--partitions", "4");
        assertThat(altered.exit()).as(altered.toString()).isZero();
        assertThat(altered.out()).contains(topicId).contains(" 4 ");

        assertThat(cohort("topics", "create", "audit", "--partitions", "1").exit()).isZero();
        Cli listed = cohort("--output", "json", "topics", "list");
        assertThat(listed.exit()).as(listed.toString()).isZero();
        assertThat(listed.out()).contains("\"topics\": [").contains("\"name\": \"audit\"")
                .contains("\"topic_id\": \"" + topicId + "\"").contains("\"partition_count\": 4");
        assertThat(listed.out().indexOf("audit")).isLessThan(listed.out().indexOf("orders"));

        Cli deleted = cohort("topics", "delete", "audit");
        assertThat(deleted.exit()).as(deleted.toString()).isZero();
        Cli table = cohort("topics", "list", "orders", "audit");
        assertThat(table.out().lines().toList()).as(table.toString()).hasSize(2);
        assertThat(table.out()).contains("orders").doesNotContain("audit");
    }

    @Test
    void testRefusedTopicsPrintTheKafkaErrorAndExitOne() {
        assertThat(cohort("topics", "create", "payments", "--partitions", "3").exit()).isZero();
        for (List<String> args : List.of(List.of("topics", "create", "payments", "--partitions", "3"),
                List.of("topics", "alter", "payments", "--partitions", "2"),
                List.of("topics", "delete", "no-such-topic"),
                List.of("topics", "create", "bad/name", "--partitions", "1"),
                List.of("topics", "create", "racks", "--partitions", "2", "--racks", "a"))) {
            Cli refused = cohort(args.toArray(String[]::new));
            assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).as(args.toString()).containsPattern(
                    "TOPIC_ALREADY_EXISTS|INVALID_PARTITIONS|UNKNOWN_TOPIC_OR_PARTITION|INVALID_TOPIC_EXCEPTION|"
                            + "INVALID_REQUEST");
        }
        assertThat(cohort("topics", "create", "payments", "--partitions", "3").err())
                .contains("TOPIC_ALREADY_EXISTS (36)");
    }

    @Test
    void testUsageErrors() {
        assertThat(cohort("topics", "create", "x").exit()).isEqualTo(2);
        assertThat(cohort("topics").exit()).isEqualTo(2);
        assertThat(cohort("topics", "delete").exit()).isEqualTo(2);
    }
}
