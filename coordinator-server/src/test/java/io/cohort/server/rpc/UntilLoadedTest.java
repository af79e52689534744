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
import io.cohort.server.auth.AclsNotLoadedException;
import java.util.List;
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
    /** What a node still loading its ACLs answers (AclsNotLoadedException, through ThrownStatus). */
    private static final Status NOT_LOADED = Status.UNAVAILABLE.withDescription(AclsNotLoadedException.DESCRIPTION);

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
        ClusterAdminGrpc.ClusterAdminFutureStub stub = standIn(3, NOT_LOADED);
        assertThat(hostReplica(stub, 30_000).get(30, TimeUnit.SECONDS).getStepsList()).containsExactly("created");
        assertThat(calls).hasValue(4);
    }

    @Test
    void anotherFailureIsNotRetried() throws Exception {
        for (Status other : List.of(Status.PERMISSION_DENIED, Status.UNAVAILABLE.withDescription("node 4 is shutting"
                + " down"))) {
            calls.set(0);
            stop();
            ClusterAdminGrpc.ClusterAdminFutureStub stub = standIn(1, other);
            assertThatThrownBy(() -> hostReplica(stub, 30_000).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(other.getCode()));
            assertThat(calls).as("%s", other).hasValue(1);
        }
    }

    @Test
    void aNodeThatNeverLoadsFailsOnceTheDeadlineIsNear() throws Exception {
        ClusterAdminGrpc.ClusterAdminFutureStub stub = standIn(Integer.MAX_VALUE, NOT_LOADED);
        long startNanos = System.nanoTime();
        assertThatThrownBy(() -> hostReplica(stub, 1_000).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(AclsNotLoadedException.isNotLoaded(e.getStatus())).isTrue());
        // Asked again every 100 ms until less than that was left of the second: about nine times.
        assertThat(calls.get()).as("asked again while time was left").isGreaterThanOrEqualTo(5);
        assertThat(System.nanoTime() - startNanos).as("gave up near the deadline, not at once")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(800));
    }
}
