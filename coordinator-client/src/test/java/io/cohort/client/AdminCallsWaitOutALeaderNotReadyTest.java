package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.api.v1.TransferLeadershipResponse;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster-state change (ACLs, membership, a leadership transfer) sent to a partition's leader
 * that answers COORDINATOR_LOAD_IN_PROGRESS (just elected and not ready, or handing the partition
 * over; nothing was proposed) is asked again within the client's budget, as Kafka's admin client
 * retries that retriable error; an error that is not about routing stays final. The node is a
 * stand-in gRPC server on loopback that leads partition 0, so the answers can be scripted.
 */
class AdminCallsWaitOutALeaderNotReadyTest {
    private final AtomicInteger createAclsCalls = new AtomicInteger();
    private final AtomicInteger transferCalls = new AtomicInteger();
    /** How many calls of each kind are answered COORDINATOR_LOAD_IN_PROGRESS before one succeeds. */
    private volatile int notReadyAnswers = 2;
    private volatile ErrorCode finalAnswer = ErrorCode.NONE;
    private Server server;
    private CohortClient client;

    @BeforeEach
    void start() throws IOException {
        server = StandInNode.serve(new HandingOverAdmin());
        client = StandInNode.client(server, Duration.ofSeconds(30)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void testCreateAclsIsAskedAgainUntilTheLeaderIsReady() {
        CreateAclsResponse response = client.createAcls(List.of(AclBinding.getDefaultInstance()));

        assertThat(response.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(createAclsCalls).hasValue(3);
    }

    @Test
    void testATransferIsAskedAgainUntilTheLeaderIsReady() {
        client.transferLeadership(0, 1, Duration.ofSeconds(5));

        assertThat(transferCalls).hasValue(3);
    }

    @Test
    void testAnErrorThatIsNotAboutRoutingIsNotAskedAgain() {
        notReadyAnswers = 0;
        finalAnswer = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;

        assertThatThrownBy(() -> client.createAcls(List.of(AclBinding.getDefaultInstance())))
                .isInstanceOfSatisfying(CohortException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED));
        assertThat(createAclsCalls).hasValue(1);
    }

    /** Leads partition 0 of a one-node cluster; not ready for the first {@link #notReadyAnswers} calls of each kind. */
    private final class HandingOverAdmin extends ClusterAdminGrpc.ClusterAdminImplBase {
        private final ClusterAdminGrpc.ClusterAdminImplBase routing = StandInNode.admin(() -> server.getPort());

        @Override
        public void clusterStatus(ClusterStatusRequest request, StreamObserver<ClusterStatusResponse> response) {
            routing.clusterStatus(request, response);
        }

        @Override
        public void createAcls(CreateAclsRequest request, StreamObserver<CreateAclsResponse> response) {
            ErrorCode code = answer(createAclsCalls.incrementAndGet());
            response.onNext(CreateAclsResponse.newBuilder().setErrorCode(code).setErrorMessage(message(code)).build());
            response.onCompleted();
        }

        @Override
        public void transferLeadership(TransferLeadershipRequest request,
                                       StreamObserver<TransferLeadershipResponse> response) {
            ErrorCode code = answer(transferCalls.incrementAndGet());
            response.onNext(TransferLeadershipResponse.newBuilder().setErrorCode(code).setErrorMessage(message(code))
                    .build());
            response.onCompleted();
        }

        private ErrorCode answer(int call) {
            return call <= notReadyAnswers ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : finalAnswer;
        }

        private String message(ErrorCode code) {
            return code == ErrorCode.NONE ? "" : "node 1: " + code;
        }
    }
}
