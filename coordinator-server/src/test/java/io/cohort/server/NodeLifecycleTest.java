package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting, refusing to start and stopping real nodes in this JVM. */
class NodeLifecycleTest {
    @TempDir
    Path root;

    @Test
    void testMainRefusesToStartOnClusterMetadataMismatch() {
        String peers = TestNodes.peers(1);
        Launched first = launch(TestNodes.args(root, 1, peers, 2));
        assertThat(first.launch.exitCode()).isZero();
        assertThat(first.out).startsWith("COHORT NODE 1 SERVING client=127.0.0.1:");
        first.launch.server().close();

        Launched refused = launch(TestNodes.args(root, 1, peers, 3));

        assertThat(refused.launch.server()).isNull();
        assertThat(refused.launch.exitCode()).isEqualTo(CohortServerMain.EXIT_METADATA_MISMATCH);
        assertThat(refused.err).startsWith("cohort-server: node 1 refuses to start: Data dir ")
                .contains("offsets.partitions: stored 2, configured 3")
                .doesNotContain("\n" + "\tat ");
        assertThat(refused.err.strip().lines()).hasSize(1);
        assertThat(refused.out).isEmpty();

        // The refusal left nothing bound or locked: the node starts again with its stored settings.
        Launched again = launch(TestNodes.args(root, 1, peers, 2));
        assertThat(again.launch.exitCode()).isZero();
        again.launch.server().close();
    }

    @Test
    void testMainReportsAPortInUseWithExitCode1() throws Exception {
        String peers = TestNodes.peers(1);
        int clientPort = Integer.parseInt(peers.substring(peers.lastIndexOf(':') + 1));
        try (java.net.ServerSocket taken = new java.net.ServerSocket(clientPort, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            assertThat(taken.isBound()).isTrue();
            Launched failed = launch(TestNodes.args(root, 1, peers, 1));

            assertThat(failed.launch.exitCode()).isEqualTo(CohortServerMain.EXIT_START_FAILED);
            assertThat(failed.err).startsWith("cohort-server: node 1 failed to start: cannot serve clients on "
                    + "127.0.0.1:" + clientPort);
        }
    }

    @Test
    void testStoppingALeaderLeavesEveryPartitionLedByTheOthers() throws Exception {
        int partitions = 3;
        String peers = TestNodes.peers(3);
        List<CohortServer> servers = new ArrayList<>();
        try {
            for (int id = 1; id <= 3; id++) {
                servers.add(CohortServer.start(TestNodes.config(root, id, peers, partitions)));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> readyLeaders(servers, partitions) == partitions);
            CohortServer stopping = servers.get(0);
            // Node 1 is partition 0's preferred leader: once the leaders settled, it leads partition 0.
            await().atMost(Duration.ofSeconds(60)).until(() -> stopping.node().isLeaderReady(0));
            List<Integer> led = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                if (stopping.node().isLeader(p)) {
                    led.add(p);
                }
            }
            assertThat(led).isNotEmpty();

            long startNanos = System.nanoTime();
            stopping.close();
            long stopMs = (System.nanoTime() - startNanos) / 1_000_000;

            List<CohortServer> others = servers.subList(1, 3);
            await().atMost(Duration.ofSeconds(30)).until(() -> readyLeaders(others, partitions) == partitions);
            long ledAgainMs = (System.nanoTime() - startNanos) / 1_000_000;
            System.out.printf("stop took %d ms, all partitions led again after %d ms; hand-offs: %s%n", stopMs,
                    ledAgainMs, stopping.handoffs());
            assertThat(stopping.handoffs()).extracting(LeadershipHandoff.Outcome::partition)
                    .containsExactlyElementsOf(led);
            // With equal Raft priorities every caught-up peer may take over: the hand-off succeeds.
            assertThat(stopping.handoffs()).allSatisfy(outcome ->
                    assertThat(outcome.handedOff()).as(outcome.detail()).isTrue());
        } finally {
            for (CohortServer server : servers) {
                server.close();
            }
        }
    }

    private static int readyLeaders(List<CohortServer> servers, int partitions) {
        int led = 0;
        for (int p = 0; p < partitions; p++) {
            for (CohortServer server : servers) {
                if (server.node().isLeaderReady(p)) {
                    led++;
                    break;
                }
            }
        }
        return led;
    }

    private record Launched(CohortServerMain.Launch launch, String out, String err) {
    }

    private static Launched launch(String[] args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(args, new PrintStream(out, true),
                new PrintStream(err, true));
        return new Launched(launch, out.toString(), err.toString());
    }
}
