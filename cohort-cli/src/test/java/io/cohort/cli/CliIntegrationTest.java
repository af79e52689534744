package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.cli.Model.GroupCoordinator;
import io.cohort.client.CohortClient;
import io.cohort.client.Coordinator;
import io.cohort.client.GroupMember;
import io.cohort.client.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI, run in-process, against three real nodes in this JVM. Each test uses its own groups. */
class CliIntegrationTest {
    private static final int PARTITIONS = 3;

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortClient client;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, PARTITIONS);
        client = cluster.client("cli-test");
        awaitPreferredLeaders();
    }

    /**
     * The nodes move each partition to its preferred leader (node p mod 3 + 1) a few seconds after
     * an election; wait for that (best effort), so that leaders mostly stay put while the tests
     * compare the CLI's answers with them. The tests that do so retry anyway ({@link #eventually}).
     */
    private static void awaitPreferredLeaders() {
        try {
            cluster.awaitPreferredLeaders();
        } catch (ConditionTimeoutException e) {
            // A slow machine: carry on, the leader-dependent assertions retry.
        }
    }

    private static int preferredLeader(int partition) {
        return partition % 3 + 1;
    }

    /** The node leading {@code partition}, waiting out an election (the test JVM shares a busy machine). */
    private static int readyLeaderOf(int partition) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf(partition), leader -> leader > 0);
    }

    /**
     * Retries {@code assertion} for a while: what the CLI reports about leaders can change under it
     * when an election happens (rare, but seen on a loaded machine with 300 ms election timeouts).
     */
    private static void eventually(Runnable assertion) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(assertion::run);
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

    /** {@code cohort --bootstrap <the test cluster> ARGS...}. */
    private static Cli cohort(String... args) {
        return Cli.against(cluster.bootstrap(), args);
    }

    private static Cli succeeds(String... args) {
        Cli cli = cohort(args);
        assertThat(cli.exit()).as("%s", cli).isZero();
        assertThat(cli.err()).as("%s", cli).isEmpty();
        return cli;
    }

    @Test
    void testOffsetsSetOnANewGroupThenGetListAndDescribe() {
        Cli set = succeeds("offsets", "set", "cli-new", "orders:1=7", "orders:0=42", "audit:0=3");
        String table = """
                TOPIC   PARTITION  OFFSET  LEADER-EPOCH  METADATA
                audit   0          3       -             -
                orders  0          42      -             -
                orders  1          7       -             -
                """;
        assertThat(set.out()).isEqualTo(table);
        assertThat(succeeds("offsets", "get", "cli-new").out()).isEqualTo(table);
        assertThat(succeeds("offsets", "get", "cli-new", "--topic", "audit").out()).isEqualTo("""
                TOPIC  PARTITION  OFFSET  LEADER-EPOCH  METADATA
                audit  0          3       -             -
                """);
        assertThat(succeeds("--output", "json", "offsets", "get", "cli-new", "--topic", "orders").out()).isEqualTo("""
                {
                  "group_id": "cli-new",
                  "offsets": [
                    {
                      "topic": "orders",
                      "partition": 0,
                      "offset": 42,
                      "leader_epoch": null,
                      "metadata": ""
                    },
                    {
                      "topic": "orders",
                      "partition": 1,
                      "offset": 7,
                      "leader_epoch": null,
                      "metadata": ""
                    }
                  ]
                }
                """);

        // ListGroups may trail the commit slightly (it reads the nodes' replicas).
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(succeeds("groups", "list").out().lines()).anyMatch(l -> l.matches("cli-new +Empty +-")));
        assertThat(succeeds("groups", "list", "--state", "empty", "--output", "json").out())
                .contains("\"group_id\": \"cli-new\",\n      \"state\": \"Empty\",\n      \"protocol_type\": \"\"");
        assertThat(succeeds("groups", "list", "--state", "Stable").out()).doesNotContain("cli-new");

        int partition = client.partitionFor("cli-new");
        eventually(() -> {
            int leader = readyLeaderOf(partition);
            assertThat(succeeds("groups", "describe", "cli-new").out().lines()).contains("group:          cli-new",
                    "coordinator:    " + leader + " (" + cluster.endpoint(leader) + ")", "state:          Empty",
                    "protocol-type:  -", "generation:     0", "leader:         -", "members:        0");
        });
        assertThat(succeeds("groups", "describe", "cli-new", "--output", "json").out())
                .contains("\"state\": \"Empty\"", "\"generation_id\": 0", "\"members\": []");
    }

    @Test
    void testAGroupWithALiveMember() {
        String group = "cli-live";
        try (GroupMember member = GroupMember.builder(client, group).subscribe(List.of("t"))
                .topicMetadata(Map.of("t", 3)).build()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> !member.poll(Duration.ofMillis(200)).isEmpty());

            Cli refused = cohort("offsets", "set", group, "t:0=5");
            assertThat(refused.exit()).as("%s", refused).isEqualTo(1);
            assertThat(refused.out()).isEmpty();
            assertThat(refused.err()).isEqualTo("cohort: group 'cli-live' is Stable with 1 member; offsets can be set "
                    + "only on an Empty or unknown group: stop its consumers first\n");

            Cli describe = succeeds("groups", "describe", group);
            assertThat(describe.out().lines()).contains("state:          Stable", "protocol-type:  consumer",
                    "protocol:       range", "generation:     1", "leader:         " + member.memberId(),
                    "members:        1");
            assertThat(describe.out().lines()).anyMatch(l -> l.matches(
                    "\\Q" + member.memberId() + "\\E +- +cli-test +\\S+ +t:0-2"));

            Cli describeWithUnknown = cohort("groups", "describe", "cli-no-such-group", group);
            assertThat(describeWithUnknown.exit()).as("%s", describeWithUnknown).isEqualTo(1);
            assertThat(describeWithUnknown.err()).startsWith("cohort: group 'cli-no-such-group' does not exist\n");
            assertThat(describeWithUnknown.out()).contains("group:          cli-live");

            Cli delete = cohort("groups", "delete", group);
            assertThat(delete.exit()).as("%s", delete).isEqualTo(1);
            assertThat(delete.out()).contains("cli-live  NON_EMPTY_GROUP: stop its members first");
            assertThat(delete.err()).startsWith("cohort: deleting group 'cli-live': NON_EMPTY_GROUP (68): ")
                    .contains("hint: stop its members first");

            // The member subscribes to t: its offsets cannot be deleted.
            Cli deleteOffsets = cohort("offsets", "delete", group, "--topic", "t", "--partition", "0");
            assertThat(deleteOffsets.exit()).as("%s", deleteOffsets).isEqualTo(1);
            assertThat(deleteOffsets.out()).contains("t      0          GROUP_SUBSCRIBED_TO_TOPIC");
            assertThat(deleteOffsets.err()).contains("GROUP_SUBSCRIBED_TO_TOPIC (86)", "hint: ");
        }
    }

    @Test
    void testGroupsDeleteAndOffsetsDelete() {
        succeeds("offsets", "set", "cli-del", "a:0=1", "a:1=2", "b:0=3");
        // Without --partition: every committed offset of the topic.
        assertThat(succeeds("offsets", "delete", "cli-del", "--topic", "a").out()).isEqualTo("""
                TOPIC  PARTITION  RESULT
                a      0          deleted
                a      1          deleted
                """);
        assertThat(succeeds("offsets", "get", "cli-del", "--output", "json").out()).contains("\"topic\": \"b\"")
                .doesNotContain("\"topic\": \"a\"");
        Cli nothing = cohort("offsets", "delete", "cli-del", "--topic", "a");
        assertThat(nothing.exit()).as("%s", nothing).isZero();
        assertThat(nothing.err()).contains("nothing to delete");

        assertThat(succeeds("groups", "delete", "cli-del", "--output", "json").out()).isEqualTo("""
                {
                  "groups": [
                    {
                      "group_id": "cli-del",
                      "deleted": true,
                      "error_code": "NONE"
                    }
                  ]
                }
                """);
        Cli again = cohort("groups", "delete", "cli-del");
        assertThat(again.exit()).as("%s", again).isEqualTo(1);
        assertThat(again.out()).contains("cli-del  GROUP_ID_NOT_FOUND");
        assertThat(again.err()).startsWith("cohort: deleting group 'cli-del': GROUP_ID_NOT_FOUND (69)");
    }

    @Test
    void testFindCoordinatorNamesTheLeader() {
        eventually(() -> {
            List<GroupCoordinator> expected = new ArrayList<>();
            for (String group : List.of("find-a", "find-b", "find-c")) {
                int partition = client.partitionFor(group);
                int leader = readyLeaderOf(partition);
                String[] endpoint = cluster.endpoint(leader).split(":");
                expected.add(new GroupCoordinator(group, new Coordinator(partition, leader, endpoint[0],
                        Integer.parseInt(endpoint[1]))));
            }
            assertThat(succeeds("find-coordinator", "find-a", "find-b", "find-c").out())
                    .isEqualTo(Render.findCoordinator(OutputFormat.TABLE, expected));
            assertThat(succeeds("find-coordinator", "find-a", "find-b", "find-c", "--output", "json").out())
                    .isEqualTo(Render.findCoordinator(OutputFormat.JSON, expected));
        });
    }

    @Test
    void testClusterStatus() {
        eventually(CliIntegrationTest::assertClusterStatus);
    }

    /** Exit code 0 needs a ready leader for every partition: retried while an election runs. */
    private static void assertClusterStatus() {
        Cli status = succeeds("cluster", "status");
        List<String> lines = status.out().lines().toList();
        assertThat(lines.get(0)).matches("NODE +CLIENT +RAFT-PORT +ROLE +STATUS");
        for (int id = 1; id <= 3; id++) {
            assertThat(lines.get(id)).matches(id + " +\\Q" + cluster.endpoint(id) + "\\E +\\d+ +voter +up");
        }
        assertThat(lines).contains("");
        assertThat(lines.get(5))
                .matches("PARTITION +LEADER +PREFERRED +TERM +COMMIT-INDEX +N1-APPLIED +N2-APPLIED +N3-APPLIED");
        assertThat(lines).hasSize(6 + PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            // The balancer is on (the default): no leader is marked as keeping its partition.
            assertThat(lines.get(6 + p)).matches(p + " +[123] +[123] +\\d+ +\\d+ +\\d+ +\\d+ +\\d+");
        }
        assertThat(succeeds("cluster", "status", "--output", "json").out()).startsWith("{\n  \"healthy\": true,");
    }

    @Test
    void testTransferLeaderMovesAPartition() {
        int partition = 1;
        int from = readyLeaderOf(partition);
        int to = from % 3 + 1;
        Cli moved = succeeds("cluster", "transfer-leader", "--partition", Integer.toString(partition),
                "--to", Integer.toString(to));
        // (The previous leader is as some node saw it just before: the one the test saw, barring an election.)
        assertThat(moved.out()).matches("PARTITION  PREVIOUS-LEADER  LEADER\n" + partition + " +\\S+ +" + to + "\n");
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.leaderOf(partition) == to);

        // Back to its preferred leader, where the nodes would move it a few seconds later anyway.
        int preferred = preferredLeader(partition);
        Cli back = succeeds("cluster", "transfer-leader", "--partition", Integer.toString(partition),
                "--to", Integer.toString(preferred), "--output", "json");
        assertThat(back.out()).endsWith("  \"leader\": " + preferred + "\n}\n");

        Cli unknownNode = cohort("cluster", "transfer-leader", "--partition", "0", "--to", "9", "--wait", "2");
        assertThat(unknownNode.exit()).as("%s", unknownNode).isEqualTo(1);
        assertThat(unknownNode.err()).startsWith("cohort: moving the leadership of partition 0 to node 9: "
                + "INVALID_REQUEST (42): ");
    }

    @Test
    void testUnreachableClusterFailsWithAHint() {
        Cli cli = Cli.run("--bootstrap", "127.0.0.1:1", "--timeout", "1", "groups", "list");
        assertThat(cli.exit()).as("%s", cli).isEqualTo(1);
        assertThat(cli.out()).isEmpty();
        List<String> lines = cli.err().lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("cohort: connecting to 127.0.0.1:1: COORDINATOR_NOT_AVAILABLE (15): ");
        assertThat(lines.get(1)).isEqualTo("hint: " + CliFailure.UNREACHABLE_HINT);

        Cli verbose = Cli.run("--bootstrap", "127.0.0.1:1", "--timeout", "1", "--verbose", "cluster", "status");
        assertThat(verbose.exit()).as("%s", verbose).isEqualTo(1);
        assertThat(verbose.err()).contains("hint: " + CliFailure.UNREACHABLE_HINT, "\tat ");
    }

    @Test
    void testMalformedArgumentIsAUsageError() {
        Cli cli = cohort("offsets", "set", "cli-bad", "orders:x=5");
        assertThat(cli.exit()).as("%s", cli).isEqualTo(2);
        assertThat(cli.err()).contains("expected TOPIC:PARTITION=OFFSET");
        assertThat(succeeds("offsets", "get", "cli-bad").out()).isEqualTo(
                "TOPIC  PARTITION  OFFSET  LEADER-EPOCH  METADATA\n");
    }
}
