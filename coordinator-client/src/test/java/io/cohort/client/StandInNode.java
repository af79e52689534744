package io.cohort.client;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * The routing half of a stand-in node for client tests (a gRPC server on loopback that answers as
 * a cluster of one node leading its one partition): ClusterStatus, and FindCoordinator naming the
 * node for every group. The test's own GroupCoordinator service answers the rest.
 */
final class StandInNode {
    private StandInNode() {
    }

    /** A gRPC server on a free loopback port with {@code services}, started. */
    static Server serve(BindableService... services) throws IOException {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
        for (BindableService service : services) {
            builder.addService(service);
        }
        return builder.build().start();
    }

    /**
     * A client of the stand-in on {@code server} with a budget of {@code apiTimeout} and a 1-5 ms
     * backoff, so that a client that retries makes many calls in a test's time.
     */
    static CohortClient.Builder client(Server server, Duration apiTimeout) {
        return CohortClient.builder().bootstrap("127.0.0.1:" + server.getPort()).apiTimeout(apiTimeout)
                .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5));
    }

    /** ClusterStatus of a one-node, one-partition cluster whose node listens on {@code port}. */
    static ClusterAdminGrpc.ClusterAdminImplBase admin(IntSupplier port) {
        return new ClusterAdminGrpc.ClusterAdminImplBase() {
            @Override
            public void clusterStatus(ClusterStatusRequest request, StreamObserver<ClusterStatusResponse> response) {
                response.onNext(ClusterStatusResponse.newBuilder().setNodeId(1).setPartitionCount(1)
                        .addNodes(NodeStatus.newBuilder().setNodeId(1).setHost("127.0.0.1")
                                .setClientPort(port.getAsInt()).setIsSelf(true))
                        .addPartitions(PartitionStatus.newBuilder().setPartitionIndex(0).setLeaderNodeId(1)
                                .setLeaderReady(true))
                        .build());
                response.onCompleted();
            }
        };
    }

    /**
     * The stand-in's GroupCoordinator service: FindCoordinator names the node on {@code port} as
     * every group's coordinator; a test overrides the calls it answers.
     */
    abstract static class Coordinator extends GroupCoordinatorGrpc.GroupCoordinatorImplBase {
        private final IntSupplier port;

        Coordinator(IntSupplier port) {
            this.port = port;
        }

        @Override
        public void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> response) {
            StandInNode.findCoordinator(request, response, port.getAsInt());
        }
    }

    /** Answers FindCoordinator naming the node on {@code port} as the group's coordinator. */
    private static void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> response,
                                int port) {
        response.onNext(FindCoordinatorResponse.newBuilder().addCoordinators(FindCoordinatorResponse.Coordinator
                .newBuilder().setKey(request.getGroupIds(0)).setNodeId(1).setHost("127.0.0.1").setPort(port))
                .build());
        response.onCompleted();
    }
}
