package io.cohort.server.rpc;

import io.cohort.raft.CohortRaftNode;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.server.metrics.RpcMetrics;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.grpc.stub.StreamObserver;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * What every group RPC of {@link GroupCoordinatorService} serves with: the node, the parked calls
 * and their responder, the RPC metrics, the authorizer, and whether the node is stopping. The
 * service builds one and hands it to the classes it delegates to, so that a new collaborator is
 * added in one place.
 *
 * @param stopping whether the node is shutting down (every group call is then COORDINATOR_NOT_AVAILABLE)
 */
record RpcContext(CohortRaftNode node, ParkedCalls parked, RpcMetrics metrics, RequestAuthorizer authorizer,
                  BooleanSupplier stopping) {

    /** A call of {@code rpc} started now, answered through {@code onFailure} when it fails. */
    <T> Serving<T> serving(String rpc, StreamObserver<T> observer, Function<Failure, T> onFailure,
                           Function<T, String> errorOf) {
        return new Serving<>(RpcCall.start(rpc, observer, metrics), onFailure, errorOf, node, parked);
    }

    boolean isStopping() {
        return stopping.getAsBoolean();
    }
}
