package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A commit whose first attempt got no answer (the node died or stalled mid-call: it may have
 * applied it) and whose retry was refused is reported with that first attempt as the cause, so that
 * a caller can tell "refused" from "refused this time, maybe applied before" (found by the chaos
 * checker, which took such a commit for one never applied). The node is a stand-in gRPC server on
 * loopback: the first OffsetCommit it gets is never answered, the next ones are refused with
 * GROUP_AUTHORIZATION_FAILED.
 */
class UnansweredAttemptTest {
    private final AtomicInteger commitCalls = new AtomicInteger();
    private Server server;
    private CohortClient client;
    private boolean answerTheFirst;

    private void start(boolean answerFirst) throws IOException {
        this.answerTheFirst = answerFirst;
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(StandInNode.admin(() -> server.getPort())).addService(new Coordinator()).build().start();
        client = CohortClient.builder().bootstrap("127.0.0.1:" + server.getPort()).apiTimeout(Duration.ofSeconds(10))
                .requestTimeout(Duration.ofMillis(300)).retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
                .build();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
            server.shutdownNow();
        }
    }

    @Test
    void aRefusalAfterAnUnansweredAttemptCarriesThatAttempt() throws IOException {
        start(false);
        assertThatThrownBy(() -> client.commitOffsets("g",
                Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(7, -1, ""))))
                .isInstanceOfSatisfying(CohortException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(ErrorCode.GROUP_AUTHORIZATION_FAILED);
                    assertThat(e.getCause()).isInstanceOfSatisfying(StatusRuntimeException.class,
                            cause -> assertThat(cause.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
                })
                .hasMessageStartingWith("GROUP_AUTHORIZATION_FAILED (30): committing t:0 for group 'g'")
                .hasMessageContaining("an earlier attempt got no answer (DEADLINE_EXCEEDED) and may have been applied");
        assertThat(commitCalls).hasValue(2);
    }

    @Test
    void aRefusalOfEveryAttemptHasNoCause() throws IOException {
        start(true);
        assertThatThrownBy(() -> client.commitOffsets("g",
                Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(7, -1, ""))))
                .isInstanceOfSatisfying(CohortException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(ErrorCode.GROUP_AUTHORIZATION_FAILED);
                    assertThat(e.getCause()).isNull();
                })
                .hasMessageNotContaining("may have been applied");
        assertThat(commitCalls).hasValue(1);
    }

    @Test
    void aCommitFailedExceptionKeepsItsTypeWithTheCause() {
        StatusRuntimeException unanswered = Status.UNAVAILABLE.withDescription("connection closed")
                .asRuntimeException();
        CohortException failure = ClusterRouter.afterUnansweredAttempt(
                new CommitFailedException(ErrorCode.ILLEGAL_GENERATION, "commit of generation 3"), unanswered);
        assertThat(failure).isInstanceOf(CommitFailedException.class).hasCause(unanswered)
                .hasMessage("ILLEGAL_GENERATION (22): commit of generation 3; an earlier attempt got no answer "
                        + "(UNAVAILABLE) and may have been applied");
        assertThat(((CommitFailedException) failure).errorCode()).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
    }

    private final class Coordinator extends StandInNode.Coordinator {
        Coordinator() {
            super(() -> server.getPort());
        }

        @Override
        public void offsetCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> response) {
            if (commitCalls.incrementAndGet() == 1 && !answerTheFirst) {
                return; // never answered: the client's attempt times out, as with a node killed mid-call
            }
            OffsetCommitResponse.Builder out = OffsetCommitResponse.newBuilder();
            for (OffsetCommitRequest.Topic topic : request.getTopicsList()) {
                OffsetCommitResponse.Topic.Builder t = OffsetCommitResponse.Topic.newBuilder().setName(topic.getName());
                for (OffsetCommitRequest.Partition p : topic.getPartitionsList()) {
                    t.addPartitions(OffsetCommitResponse.Partition.newBuilder().setPartitionIndex(p.getPartitionIndex())
                            .setErrorCode(ErrorCode.GROUP_AUTHORIZATION_FAILED));
                }
                out.addTopics(t);
            }
            response.onNext(out.setErrorMessage("User:ANONYMOUS may not READ group 'g'").build());
            response.onCompleted();
        }
    }
}
