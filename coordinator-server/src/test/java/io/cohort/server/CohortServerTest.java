package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.core.command.Command;
import io.cohort.server.tools.StatusAccess;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real single-node server (real Ratis, real gRPC on loopback) and its standard endpoints. */
class CohortServerTest {
    private static final int PARTITIONS = 2;

    @TempDir
    static Path root;

    private static CohortServer server;
    private static ManagedChannel channel;

    @BeforeAll
    static void startNode() throws Exception {
        server = CohortServer.start(TestNodes.config(root, 1, TestNodes.peers(1), PARTITIONS));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.clientPort(),
                InsecureChannelCredentials.create()).build();
        await().atMost(Duration.ofSeconds(60)).until(() -> server.node().isLeaderReady(0)
                && server.node().isLeaderReady(1));
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void testHealthIsServingForTheServerAndEachService() {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS);
        for (String service : List.of("", "cohort.v1.GroupCoordinator", "cohort.v1.ClusterAdmin")) {
            assertThat(health.check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus())
                    .as("health of '%s'", service)
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
    }

    @Test
    void testReflectionListsTheCohortServices() throws Exception {
        CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse response) {
                        answer.complete(response);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
        requests.onCompleted();

        List<String> services = answer.get(30, TimeUnit.SECONDS).getListServicesResponse().getServiceList().stream()
                .map(ServiceResponse::getName).toList();
        assertThat(services).contains("cohort.v1.GroupCoordinator", "cohort.v1.ClusterAdmin", "grpc.health.v1.Health",
                "grpc.reflection.v1.ServerReflection");
    }

    @Test
    void testMetricsEndpointServesRpcRaftGroupAndJvmMetrics() throws Exception {
        FindCoordinatorResponse found = GroupCoordinatorGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds("metrics-group").build());
        assertThat(found.getCoordinators(0).getNodeId()).isEqualTo(1);
        String group = "metrics-group";
        int partition = server.node().partitionFor(group);
        server.node().submit(partition, new Command.OffsetCommit(group, -1, "", null, -1L,
                List.of(new Command.TopicCommit("orders", List.of(new Command.PartitionCommit(0, 42, -1, null),
                        new Command.PartitionCommit(1, 7, -1, null)))),
                Command.OFFSET_COMMIT_LATEST_VERSION)).get(30, TimeUnit.SECONDS);

        // The RPC metric is recorded once the answer is sent, so it may land just after the reply.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(scrape())
                .contains("cohort_rpc_requests_total{error_code=\"NONE\",rpc=\"FindCoordinator\"} 1")
                .contains("cohort_rpc_latency_seconds_count{error_code=\"NONE\",rpc=\"FindCoordinator\"} 1"));
        String metrics = scrape();
        String p = "partition=\"" + partition + "\"";
        assertThat(metrics)
                .contains("cohort_partitions_led 2")
                .contains("cohort_batch_linger_expiries_total{" + p + "}")
                .contains("cohort_raft_undecodable_entries_skipped_total{" + p + "} 0")
                .contains("cohort_raft_port_refused_calls_total 0")
                .contains("cohort_raft_tls_refused_certificates_total{side=\"caller\"} 0")
                .contains("cohort_raft_tls_refused_certificates_total{side=\"peer\"} 0")
                .contains("cohort_partition_leader{partition=\"0\"} 1")
                .contains("cohort_committed_offsets{" + p + "} 2")
                .contains("cohort_groups{" + p + ",state=\"Empty\"} 1")
                .contains("cohort_group_members{" + p + "} 0")
                .contains("cohort_raft_apply_lag_entries{" + p + "} 0")
                .contains("cohort_node_info{cluster_id=\"cohort\",node_id=\"1\",partitions=\"2\"} 1")
                .containsPattern("cohort_connections_open\\{port=\"client\"} [1-9]")
                .containsPattern("cohort_connections_limit\\{port=\"raft\"} 256")
                .containsPattern("cohort_connections_refused_total\\{port=\"client\"} 0")
                .contains("jvm_memory_used_bytes")
                .contains("cohort_apply_delivery_seconds_count")
                .containsPattern("cohort_apply_commands_total\\{" + p + "} [1-9]")
                .containsPattern("cohort_raft_commit_index\\{" + p + "} [1-9]")
                .containsPattern("cohort_raft_applied_index\\{" + p + "} [1-9]")
                .containsPattern("cohort_raft_term\\{" + p + "} [1-9]");
    }

    @Test
    void testStatusToolReportsEveryPartitionLed() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = StatusAccess.run(new PrintStream(out, true), "--bootstrap", "127.0.0.1:" + server.clientPort());

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("node 1  127.0.0.1:" + server.clientPort())
                .contains("up    leads 2: 0,1")
                .contains("partitions: 2, led: 2 (all)");
    }

    @Test
    void testStatusToolExitsTwoWhenNoNodeAnswers() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = StatusAccess.run(new PrintStream(out, true), "--bootstrap", "127.0.0.1:" + io.cohort.testsupport.TestPorts.next());

        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).contains("down  (UNAVAILABLE)").contains("no node answered");
    }

    @Test
    void testServingLineNamesTheBoundPorts() {
        assertThat(server.servingLine()).isEqualTo("COHORT NODE 1 SERVING client=127.0.0.1:" + server.clientPort()
                + " raft=127.0.0.1:" + server.config().self().raftPort() + " metrics=" + server.metricsPort());
        assertThat(ClusterAdminGrpc.SERVICE_NAME).isEqualTo("cohort.v1.ClusterAdmin");
    }

    private static String scrape() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.metricsPort() + "/metrics"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
