package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.HostReplicaRequest;
import io.cohort.api.v1.MembershipChangeResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A HostReplica to a node being added that answers UNAVAILABLE until it holds the ACLs is asked
 * again until it answers, within the call's deadline; any other failure is the caller's at once.
 * A stand-in node on in-process gRPC answers the first calls with {@code refusal}.
 */
class UntilLoadedTest {
    private final AtomicInteger calls = new AtomicInteger();
    private Server server;
    private ManagedChannel channel;

    @AfterEach
    void stop() {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (server != null) {
            server.shutdownNow();
        }
    }

    private ClusterAdminGrpc.ClusterAdminFutureStub standIn(int refusals, Status refusal) throws Exception {
        String name = "until-loaded-" + System.nanoTime();
        server = InProcessServerBuilder.forName(name).addService(new ClusterAdminGrpc.ClusterAdminImplBase() {
            @Override
            public void hostReplica(HostReplicaRequest request, StreamObserver<MembershipChangeResponse> observer) {
                if (calls.incrementAndGet() <= refusals) {
                    observer.onError(refusal.asRuntimeException());
                    return;
                }
                observer.onNext(MembershipChangeResponse.newBuilder().addSteps("created").build());
                observer.onCompleted();
            }
        }).build().start();
        channel = InProcessChannelBuilder.forName(name).build();
        return ClusterAdminGrpc.newFutureStub(channel);
    }

    private CompletableFuture<MembershipChangeResponse> hostReplica(ClusterAdminGrpc.ClusterAdminFutureStub stub,
                                                                    long withinMs) {
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(withinMs);
        return UntilLoaded.call(() -> ListenableFutures.toCompletable(stub.withDeadlineAfter(withinMs,
                TimeUnit.MILLISECONDS).hostReplica(HostReplicaRequest.newBuilder().setPartitionIndex(1).build())),
                deadlineNanos);
    }

    @Test
    void aNodeStillLoadingItsAclsIsAskedAgainUntilItAnswers() throws Exception {
        ClusterAdminGrpc.ClusterAdminFutureStub stub = standIn(3,
                Status.UNAVAILABLE.withDescription("node 4 is still applying partition 0's log"));
        assertThat(hostReplica(stub, 30_000).get(30, TimeUnit.SECONDS).getStepsList()).containsExactly("created");
        assertThat(calls).hasValue(4);
    }

    @Test
    void anotherFailureIsNotRetried() throws Exception {
        ClusterAdminGrpc.ClusterAdminFutureStub stub = standIn(1, Status.PERMISSION_DENIED);
        assertThatThrownBy(() -> hostReplica(stub, 30_000).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        assertThat(calls).hasValue(1);
    }

    @Test
    void aNodeThatNeverLoadsFailsOnceTheDeadlineIsNear() throws Exception {
        ClusterAdminGrpc.ClusterAdminFutureStub stub = standIn(Integer.MAX_VALUE, Status.UNAVAILABLE);
        assertThatThrownBy(() -> hostReplica(stub, 1_000).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        assertThat(calls.get()).as("asked again while time was left").isGreaterThan(1);
    }
}
