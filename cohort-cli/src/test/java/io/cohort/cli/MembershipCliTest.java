package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.LocalCluster;
import io.cohort.server.CohortServer;
import io.cohort.server.CohortServerMain;
import io.cohort.testsupport.TestPorts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cohort cluster add-node | members | remove-node} against three real nodes in this JVM and
 * a fourth started the way an operator starts one ({@code cohort-server --join}, through
 * CohortServerMain): what the operator types and reads. The membership rules themselves are
 * MembershipChangeTest's; the run across SIGKILLs and separate JVMs is MembershipChangeIT's.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipCliTest {
    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortServer joiner;
    private static final int RAFT_PORT = TestPorts.next();
    private static final int CLIENT_PORT = TestPorts.next();

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root.resolve("cluster"), 3, 1);
    }

    @AfterAll
    static void stopCluster() {
        if (joiner != null) {
            joiner.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Cli cohort(String... args) {
        return Cli.against(cluster.bootstrap(), args);
    }

    @Test
    @Order(0)
    void testAJoiningNodeNamingAnotherReplicationFactorThanTheClustersIsRefused() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(new String[] {
                "--node-id", "6", "--peers", "6=127.0.0.1:" + TestPorts.next() + ":" + TestPorts.next(),
                "--data-dir", root.resolve("node-6/data").toString(), "--log-dir", root.resolve("node-6/logs").toString(),
                "--metrics-port", "0", "--set", "offsets.replication.factor=2", "--join", cluster.endpoint(1)},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(launch.exitCode()).as("%s", out).isNotZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("offsets.replication.factor '2'")
                .contains("has 3; leave it out on a joining node");
    }

    @Test
    @Order(1)
    void testAddNodeCatchesTheJoiningNodeUpAndPromotesIt() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(new String[] {
                "--node-id", "4", "--peers", "4=127.0.0.1:" + RAFT_PORT + ":" + CLIENT_PORT,
                "--data-dir", root.resolve("node-4/data").toString(), "--log-dir", root.resolve("node-4/logs").toString(),
                "--metrics-port", "0", "--set", "offsets.replication.factor=3", "--join", cluster.endpoint(1)},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));
        // It names the cluster's replication factor, as a node started with the others' settings does.
        assertThat(launch.exitCode()).as("%s", out).isZero();
        joiner = launch.server();

        Cli add = cohort("cluster", "add-node", "--id", "4", "--raft", "127.0.0.1:" + RAFT_PORT,
                "--client", "127.0.0.1:" + CLIENT_PORT, "--wait", "120");

        assertThat(add.exit()).as("%s", add).isZero();
        assertThat(add.out()).contains("partition 0: node 4 caught up and promoted to voter")
                .contains("members: 1 2 3 4");

        Cli again = cohort("cluster", "add-node", "--id", "4", "--raft", "127.0.0.1:" + RAFT_PORT,
                "--client", "127.0.0.1:" + CLIENT_PORT);
        assertThat(again.exit()).as("%s", again).isZero();
        assertThat(again.out()).as("re-running a finished add is a no-op").contains("already a voter");
    }

    @Test
    @Order(2)
    void testMembersListsTheVotersAndEachReplicasCatchUp() {
        // The node asked answers from its own replica of partition 0's configuration: a follower the
        // change committed without may append the new configuration a little later.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() -> {
            Cli members = cohort("cluster", "members");
            assertThat(members.exit()).as("%s", members).isZero();
            assertThat(members.out()).contains("node 4  voter  raft 127.0.0.1:" + RAFT_PORT + "  client 127.0.0.1:"
                    + CLIENT_PORT);
            assertThat(members.out().lines().filter(l -> l.matches("  node \\d  voter .*"))).hasSize(4);
            assertThat(members.out()).containsPattern("partition 0  node 4  voter  match index \\d+  lag \\d+");
        });

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() -> {
            Cli status = cohort("cluster", "status");
            assertThat(status.exit()).as("%s", status).isZero();
            assertThat(status.out()).containsPattern("(?m)^4 +127\\.0\\.0\\.1:" + CLIENT_PORT + " +" + RAFT_PORT
                    + " +voter +up$");
        });
    }

    @Test
    @Order(3)
    void testAMalformedOrConflictingChangeIsRefusedWithTheReason() {
        Cli taken = cohort("cluster", "add-node", "--id", "5", "--raft", "127.0.0.1:" + RAFT_PORT,
                "--client", "127.0.0.1:1");
        assertThat(taken.exit()).as("%s", taken).isNotZero();
        assertThat(taken.err()).contains("Raft address 127.0.0.1:" + RAFT_PORT + " belongs to member 4");

        Cli badId = cohort("cluster", "add-node", "--id", "0", "--raft", "127.0.0.1:1", "--client", "127.0.0.1:2");
        assertThat(badId.exit()).as("%s", badId).isEqualTo(2);
        assertThat(badId.err()).contains("--id").contains("must be > 0");
    }

    @Test
    @Order(4)
    void testRemoveNodeTakesItOutAndItSaysItWasRemoved() {
        Cli remove = cohort("cluster", "remove-node", "--id", "4");

        assertThat(remove.exit()).as("%s", remove).isZero();
        assertThat(remove.out()).contains("partition 0: node 4 removed").contains("members: 1 2 3");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> joiner.node().removedFromCluster());

        Cli again = cohort("cluster", "remove-node", "--id", "4");
        assertThat(again.exit()).as("%s", again).isZero();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(cohort("cluster", "members").out().lines().filter(l -> l.matches("  node \\d  voter .*")))
                        .hasSize(3));
    }
}
