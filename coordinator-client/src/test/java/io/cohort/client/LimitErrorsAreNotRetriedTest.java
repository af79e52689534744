package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call that hits a limit fails at once with the limit named, it is not retried: a node that
 * answers RESOURCE_EXHAUSTED or INVALID_ARGUMENT would answer the same again. The node here is a
 * stand-in gRPC server on loopback that counts the calls it gets; the real-size case (an answer
 * over gRPC's default 4 MiB) is {@code LargeAnswersTest}.
 */
class LimitErrorsAreNotRetriedTest {
    private final AtomicInteger offsetFetchCalls = new AtomicInteger();
    private final AtomicInteger offsetCommitCalls = new AtomicInteger();
    private final AtomicInteger describeCalls = new AtomicInteger();
    private Server server;
    private CohortClient client;

    @BeforeEach
    void start() throws IOException {
        server = StandInNode.serve(StandInNode.admin(() -> server.getPort()), new RefusingCoordinator());
        // A budget of seconds and a short backoff: a retrying client would make many calls.
        client = StandInNode.client(server, Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void testResourceExhaustedIsNotRetriedAndNamesTheLimit() {
        assertThatThrownBy(() -> client.fetchOffsets("g"))
                .isInstanceOfSatisfying(CohortException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.MESSAGE_TOO_LARGE))
                .hasMessageContaining("RESOURCE_EXHAUSTED")
                .hasMessageContaining("offsets per group limit 100000 reached");
        assertThat(offsetFetchCalls).hasValue(1);
    }

    @Test
    void testInvalidArgumentIsNotRetried() {
        assertThatThrownBy(() -> client.commitOffsets("g",
                Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1, -1, ""))))
                .isInstanceOfSatisfying(CohortException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST))
                .hasMessageContaining("the request has 900000 bytes");
        assertThat(offsetCommitCalls).hasValue(1);
    }

    /** gRPC's own limit, met on the client's side: an answer larger than maxInboundMessageBytes. */
    @Test
    void testAnAnswerOverTheClientsLimitIsNotRetriedAndNamesTheLimit() {
        try (CohortClient small = StandInNode.client(server, Duration.ofSeconds(5)).maxInboundMessageBytes(4 << 20)
                .build()) {
            assertThatThrownBy(() -> small.describeGroup("g"))
                    .isInstanceOfSatisfying(CohortException.class,
                            e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.MESSAGE_TOO_LARGE))
                    .hasMessageContaining("exceeds maximum size")
                    .hasMessageContaining("this client takes answers of up to 4194304 bytes");
        }
        assertThat(describeCalls).hasValue(1);
    }

    /** Names the one node as every group's coordinator, and refuses every other call as a node does when a limit is hit. */
    private final class RefusingCoordinator extends StandInNode.Coordinator {
        RefusingCoordinator() {
            super(() -> server.getPort());
        }

        @Override
        public void offsetFetch(OffsetFetchRequest request, StreamObserver<OffsetFetchResponse> response) {
            offsetFetchCalls.incrementAndGet();
            response.onError(Status.RESOURCE_EXHAUSTED.withDescription("offsets per group limit 100000 reached")
                    .asRuntimeException());
        }

        @Override
        public void offsetCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> response) {
            offsetCommitCalls.incrementAndGet();
            response.onError(Status.INVALID_ARGUMENT.withDescription("the request has 900000 bytes; at most 786432")
                    .asRuntimeException());
        }

        /** An answer of 5 MiB: over gRPC's default limit of 4 MiB. */
        @Override
        public void describeGroups(DescribeGroupsRequest request, StreamObserver<DescribeGroupsResponse> response) {
            describeCalls.incrementAndGet();
            response.onNext(DescribeGroupsResponse.newBuilder().addGroups(DescribeGroupsResponse.Group.newBuilder()
                    .setGroupId("g").setProtocolType("x".repeat(5 << 20))).build());
            response.onCompleted();
        }
    }
}
