package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.client.Bootstrap;
import io.cohort.client.LocalCluster;
import io.cohort.testsupport.TestPorts;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's path for a new user: the CLI finds the cluster without --bootstrap when a node is
 * down, says "cannot reach" and "overloaded or slow" apart, and prints no java.util.logging stack
 * traces. Some runs start the CLI as its own JVM (as scripts/cohort does), for the environment and
 * for what reaches the process's stderr.
 */
class CliNewcomerTest {
    @TempDir
    static Path root;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, 2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void testTheDefaultBootstrapIsEveryNodeOfTheLocalCluster() {
        assumeTrue(System.getenv(Bootstrap.ENV) == null, "COHORT_BOOTSTRAP is set in this environment");
        CommandLine cmd = CohortCli.commandLine();
        cmd.parseArgs("groups", "list");

        assertThat(((CohortCli) cmd.getCommand()).bootstrap())
                .containsExactly("127.0.0.1:7101", "127.0.0.1:7102", "127.0.0.1:7103");
    }

    @Test
    void testWithoutBootstrapTheCliUsesCohortBootstrapAndGetsPastADownFirstNode() throws Exception {
        cluster.stopNode(1);
        try {
            String everyNode = cluster.bootstrap();
            Run set = cohortProcess(everyNode, "offsets", "set", "newcomer", "orders:0=42");
            assertThat(set.exit()).as("%s", set).isZero();

            Run get = cohortProcess(everyNode, "offsets", "get", "newcomer", "--output", "json");
            assertThat(get.exit()).as("%s", get).isZero();
            assertThat(get.out()).contains("\"offset\": 42");
            assertThat(get.err()).isEmpty();
        } finally {
            cluster.startNode(1);
            cluster.awaitLeaders();
        }
    }

    @Test
    void testNoNodeListeningSaysTheClusterCannotBeReached() {
        Cli cli = Cli.run("--bootstrap", "127.0.0.1:" + TestPorts.next(), "--timeout", "1", "groups", "list");

        assertThat(cli.exit()).as("%s", cli).isEqualTo(1);
        List<String> lines = cli.err().lines().toList();
        assertThat(lines.get(0)).contains("cannot reach any node");
        assertThat(lines.get(1)).isEqualTo("hint: " + CliFailure.UNREACHABLE_HINT);
    }

    @Test
    void testANodeThatAcceptsButDoesNotAnswerSaysTheClusterIsSlow() throws IOException {
        int port = TestPorts.next();
        List<StreamObserver<ClusterStatusResponse>> neverAnswered = new ArrayList<>();
        // A node that is up (the connection and HTTP/2 handshake succeed) but too busy to answer.
        Server stalled = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
                .addService(new ClusterAdminGrpc.ClusterAdminImplBase() {
                    @Override
                    public void clusterStatus(ClusterStatusRequest request,
                                              StreamObserver<ClusterStatusResponse> observer) {
                        synchronized (neverAnswered) {
                            neverAnswered.add(observer);
                        }
                    }
                }).build().start();
        try {
            Cli cli = Cli.run("--bootstrap", "127.0.0.1:" + port, "--timeout", "2", "groups", "list");

            assertThat(cli.exit()).as("%s", cli).isEqualTo(1);
            List<String> lines = cli.err().lines().toList();
            assertThat(lines.get(0)).contains("overloaded or slow").doesNotContain("cannot reach");
            assertThat(lines.get(1)).isEqualTo("hint: " + CliFailure.SLOW_HINT);
        } finally {
            stalled.shutdownNow();
        }
    }

    @Test
    void testAnUnknownHostPrintsTwoLinesAndNoJavaUtilLoggingTrace() throws Exception {
        Run run = cohortProcess(null, "--bootstrap", "no-such-host.invalid:7101", "--timeout", "2", "groups", "list");

        assertThat(run.exit()).as("%s", run).isEqualTo(1);
        assertThat(run.err().lines().toList()).as("%s", run).hasSize(2).satisfies(lines -> {
            assertThat(lines.get(0)).startsWith("cohort: connecting to no-such-host.invalid:7101: ")
                    .contains("cannot reach any node");
            assertThat(lines.get(1)).isEqualTo("hint: " + CliFailure.UNREACHABLE_HINT);
        });
        assertThat(run.err()).doesNotContain("\tat ", "io.grpc", "WARNING", "SEVERE");
    }

    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
        }
    }

    /** The CLI as its own JVM, with COHORT_BOOTSTRAP set to {@code bootstrapEnv} (or unset if null). */
    private static Run cohortProcess(String bootstrapEnv, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m", "-cp", System.getProperty("java.class.path"), CohortCli.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove(Bootstrap.ENV);
        if (bootstrapEnv != null) {
            builder.environment().put(Bootstrap.ENV, bootstrapEnv);
        }
        Path out = root.resolve("cli-" + System.nanoTime() + ".out");
        Path err = root.resolve("cli-" + System.nanoTime() + ".err");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the CLI did not exit within 120 s: " + command);
        }
        return new Run(process.exitValue(), java.nio.file.Files.readString(out, StandardCharsets.UTF_8),
                java.nio.file.Files.readString(err, StandardCharsets.UTF_8));
    }
}
