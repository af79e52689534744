package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ErrorCode;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.GroupMember;
import io.cohort.client.LocalCluster;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cohort offsets reset} (kafka-consumer-groups.sh --reset-offsets) against a real node. Each test its own group. */
class OffsetsResetCliTest {
    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortClient client;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root.resolve("cluster"), 1, 2);
        client = cluster.client("reset-test");
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

    private static Cli cohort(String... args) {
        return Cli.against(cluster.bootstrap(), args);
    }

    private static Cli succeeds(String... args) {
        Cli cli = cohort(args);
        assertThat(cli.exit()).as("%s", cli).isZero();
        return cli;
    }

    private static Map<TopicPartition, Long> committed(String group) {
        Map<TopicPartition, Long> offsets = new java.util.TreeMap<>();
        client.fetchOffsets(group).forEach((tp, o) -> offsets.put(tp, o.offset()));
        return offsets;
    }

    @Test
    void testDryRunIsTheDefaultPrintsThePlanAndShiftByStopsAtZero() {
        succeeds("offsets", "set", "reset-dry", "orders:0=10", "orders:1=20", "audit:0=5");

        Cli plan = succeeds("offsets", "reset", "--group", "reset-dry", "--topic", "orders", "--shift-by", "-15");

        assertThat(plan.out()).isEqualTo("""
                GROUP      TOPIC   PARTITION  CURRENT-OFFSET  NEW-OFFSET
                reset-dry  orders  0          10              0
                reset-dry  orders  1          20              5
                """);
        assertThat(plan.err()).contains("dry run").contains("--execute");
        assertThat(committed("reset-dry")).containsEntry(new TopicPartition("orders", 0), 10L)
                .containsEntry(new TopicPartition("orders", 1), 20L);
    }

    @Test
    void testExecuteCommitsAndExportedCsvReadsBackWithFromFile() throws Exception {
        succeeds("offsets", "set", "reset-csv", "orders:0=10", "orders:1=20", "audit:0=5");

        Cli export = succeeds("offsets", "reset", "--group", "reset-csv", "--all-topics", "--to-current", "--export");
        assertThat(export.out()).isEqualTo("audit,0,5\norders,0,10\norders,1,20\n");
        Path csv = root.resolve("reset-csv.csv");
        Files.writeString(csv, export.out());

        Cli executed = succeeds("offsets", "reset", "--group", "reset-csv", "--topic", "orders:0,1", "--topic", "audit",
                "--to-offset", "99", "--execute");
        assertThat(executed.out()).contains("reset-csv  orders  1          20              99");
        assertThat(committed("reset-csv")).containsOnly(Map.entry(new TopicPartition("audit", 0), 99L),
                Map.entry(new TopicPartition("orders", 0), 99L), Map.entry(new TopicPartition("orders", 1), 99L));

        Cli restored = succeeds("offsets", "reset", "--group", "reset-csv", "--from-file", csv.toString(), "--execute");
        assertThat(restored.out()).contains("reset-csv  audit   0          99              5");
        assertThat(committed("reset-csv")).containsOnly(Map.entry(new TopicPartition("audit", 0), 5L),
                Map.entry(new TopicPartition("orders", 0), 10L), Map.entry(new TopicPartition("orders", 1), 20L));

        // Kafka's multi-group CSV form is read too, for this group's lines.
        Path grouped = root.resolve("grouped.csv");
        Files.writeString(grouped, "reset-csv,orders,1,7\n");
        succeeds("offsets", "reset", "--group", "reset-csv", "--from-file", grouped.toString(), "--execute");
        assertThat(committed("reset-csv")).containsEntry(new TopicPartition("orders", 1), 7L);
    }

    @Test
    void testRefusedOnAnActiveGroupWithKafkasReasonAndTheCoordinatorRefusesTheCommitToo() {
        String group = "reset-live";
        succeeds("offsets", "set", group, "t:0=3");
        try (GroupMember member = GroupMember.builder(client, group).subscribe(List.of("t"))
                .topicMetadata(Map.of("t", 2)).build()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> !member.poll(Duration.ofMillis(200)).isEmpty());

            for (String mode : List.of("--dry-run", "--execute")) {
                Cli refused = cohort("offsets", "reset", "--group", group, "--all-topics", "--to-offset", "0", mode);
                assertThat(refused.exit()).as("%s", refused).isEqualTo(1);
                assertThat(refused.out()).isEmpty();
                assertThat(refused.err()).startsWith("cohort: Assignments can only be reset if the group 'reset-live'"
                        + " is inactive, but the current state is Stable.\n");
            }
            // The commit the tool sends (generation -1, no member id) is refused by the coordinator while
            // the group has members, as Kafka's is: a consumer joining after the check is not overwritten.
            assertThatThrownBy(() -> client.commitOffsets(group, Map.of(new TopicPartition("t", 0),
                    new OffsetAndMetadata(0))))
                    .isInstanceOf(CohortException.class)
                    .satisfies(e -> assertThat(((CohortException) e).errorCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID));
        }
        assertThat(committed(group)).containsEntry(new TopicPartition("t", 0), 3L);
    }

    @Test
    void testOptionsThatNeedTopicLogsAreRefusedAndHelpSaysWhy() {
        for (String option : List.of("--to-earliest", "--to-latest")) {
            Cli refused = cohort("offsets", "reset", "--group", "g", "--all-topics", option);
            assertThat(refused.exit()).as("%s", refused).isEqualTo(2);
            assertThat(refused.err()).contains(option + " needs the topic's log");
        }
        Cli datetime = cohort("offsets", "reset", "--group", "g", "--all-topics", "--to-datetime", "2026-01-01T00:00:00.000");
        assertThat(datetime.exit()).isEqualTo(2);
        assertThat(datetime.err()).contains("--to-datetime needs the topic's log");

        Cli help = cohort("offsets", "reset", "--help");
        assertThat(help.out()).contains("cannot clamp").contains("--to-earliest").contains("--to-datetime")
                .contains("--export").contains("--from-file");
    }

    @Test
    void testShiftOfAPartitionWithoutCommittedOffsetAndBadScopesFail() {
        succeeds("offsets", "set", "reset-scope", "orders:0=4");

        Cli noOffset = cohort("offsets", "reset", "--group", "reset-scope", "--topic", "orders:0,1", "--shift-by", "1");
        assertThat(noOffset.exit()).isEqualTo(1);
        assertThat(noOffset.err()).contains("orders:1").contains("no committed offset");

        Cli noScope = cohort("offsets", "reset", "--group", "reset-scope", "--to-offset", "1");
        assertThat(noScope.exit()).isEqualTo(2);
        Cli twoSpecs = cohort("offsets", "reset", "--group", "reset-scope", "--all-topics", "--to-offset", "1",
                "--shift-by", "2");
        assertThat(twoSpecs.exit()).isEqualTo(2);
        assertThat(committed("reset-scope")).containsOnly(Map.entry(new TopicPartition("orders", 0), 4L));
    }
}
