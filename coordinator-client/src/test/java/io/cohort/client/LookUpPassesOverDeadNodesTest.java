package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.PartitionStatus;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * After its coordinator dies, a client looks the coordinator up again by asking the nodes in turn;
 * the dead ones are passed over at once, without a backoff wait each, so the look-up reaches a live
 * node as soon as the wait after the failed call is over. The cluster here: five nodes whose ports
 * nothing listens on (node 1, the cached coordinator, among them) and a stand-in node 6 that names
 * itself coordinator. The backoff is 3 s and the call's budget 5.5 s: one wait fits with 2.5 s to
 * spare for the calls themselves (a busy test JVM's first calls load classes and open channels; with
 * 1 s and 2.5 s this test once ran out of budget beside three other test classes), and a look-up
 * that waited again after a dead node would run out of budget before reaching node 6.
 */
class LookUpPassesOverDeadNodesTest {
    private static final int DEAD_NODES = 5;
    private static final int LIVE_NODE = 6;

    private final AtomicInteger findCoordinatorCalls = new AtomicInteger();
    private final AtomicInteger offsetCommitCalls = new AtomicInteger();
    private final List<Integer> deadPorts = new ArrayList<>();
    private Server server;

    @BeforeEach
    void start() throws IOException {
        for (int i = 0; i < DEAD_NODES; i++) {
            try (ServerSocket closedAgain = new ServerSocket(0)) {
                deadPorts.add(closedAgain.getLocalPort());
            }
        }
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new Admin()).addService(new Coordinator()).build().start();
    }

    @AfterEach
    void stop() {
        server.shutdownNow();
    }

    @Test
    void aLookUpAfterTheCoordinatorDiedAsksTheLiveNodeWithoutWaitingOnTheDeadOnes() {
        try (CohortClient client = CohortClient.builder().bootstrap("127.0.0.1:" + server.getPort())
                .apiTimeout(Duration.ofMillis(5_500)).retryBackoff(Duration.ofSeconds(3), Duration.ofSeconds(3))
                .build()) {
            client.commitOffsets("g", Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(7)));
        }
        assertThat(offsetCommitCalls).hasValue(1);
        assertThat(findCoordinatorCalls).hasValue(1);
    }

    /** Nodes 1-5 on the dead ports, node 6 this server; ClusterStatus names node 1 the leader. */
    private final class Admin extends ClusterAdminGrpc.ClusterAdminImplBase {
        @Override
        public void clusterStatus(ClusterStatusRequest request, StreamObserver<ClusterStatusResponse> response) {
            ClusterStatusResponse.Builder status = ClusterStatusResponse.newBuilder().setNodeId(LIVE_NODE)
                    .setPartitionCount(1)
                    .addPartitions(PartitionStatus.newBuilder().setPartitionIndex(0).setLeaderNodeId(1));
            for (int i = 0; i < DEAD_NODES; i++) {
                status.addNodes(NodeStatus.newBuilder().setNodeId(i + 1).setHost("127.0.0.1")
                        .setClientPort(deadPorts.get(i)));
            }
            status.addNodes(NodeStatus.newBuilder().setNodeId(LIVE_NODE).setHost("127.0.0.1")
                    .setClientPort(server.getPort()).setIsSelf(true));
            response.onNext(status.build());
            response.onCompleted();
        }
    }

    /** Names itself every group's coordinator and takes every commit. */
    private final class Coordinator extends GroupCoordinatorGrpc.GroupCoordinatorImplBase {
        @Override
        public void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> response) {
            findCoordinatorCalls.incrementAndGet();
            response.onNext(FindCoordinatorResponse.newBuilder().addCoordinators(FindCoordinatorResponse.Coordinator
                    .newBuilder().setKey(request.getGroupIds(0)).setNodeId(LIVE_NODE).setHost("127.0.0.1")
                    .setPort(server.getPort())).build());
            response.onCompleted();
        }

        @Override
        public void offsetCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> response) {
            offsetCommitCalls.incrementAndGet();
            OffsetCommitResponse.Builder answer = OffsetCommitResponse.newBuilder();
            request.getTopicsList().forEach(topic -> answer.addTopics(OffsetCommitResponse.Topic.newBuilder()
                    .setName(topic.getName()).addAllPartitions(topic.getPartitionsList().stream()
                            .map(p -> OffsetCommitResponse.Partition.newBuilder()
                                    .setPartitionIndex(p.getPartitionIndex()).build()).toList())));
            response.onNext(answer.build());
            response.onCompleted();
        }
    }
}
