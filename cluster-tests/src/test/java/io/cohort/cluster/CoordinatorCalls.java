package io.cohort.cluster;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc.GroupCoordinatorBlockingStub;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Calls a group's coordinator the way a client must (docs/API.md, "Finding the coordinator"):
 * FindCoordinator on any running node, call the node it names, and on NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE or a transport failure find the coordinator again and resend; on
 * COORDINATOR_LOAD_IN_PROGRESS resend to the same node. Retries back off from 50 ms to 500 ms and
 * give up after a fixed budget. Every attempt goes to the {@link History}.
 */
final class CoordinatorCalls {
    /** Answers after which the same request may succeed on the (re-found) coordinator. */
    static final Set<ErrorCode> ROUTING_ERRORS = EnumSet.of(ErrorCode.NOT_COORDINATOR,
            ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    /** gRPC statuses after which the request is resent through another node (the outcome of a write is unknown). */
    private static final Set<Status.Code> TRANSPORT_RETRIABLE = EnumSet.of(Status.Code.UNAVAILABLE,
            Status.Code.DEADLINE_EXCEEDED, Status.Code.CANCELLED);
    private static final Duration FIND_DEADLINE = Duration.ofSeconds(2);
    private static final long FIRST_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 500;

    private final ProcessCluster cluster;
    private final History history;
    private final Duration budget;

    /** A response and the node that gave it. */
    record Served<R>(int nodeId, R response) {
    }

    CoordinatorCalls(ProcessCluster cluster, History history, Duration budget) {
        this.cluster = cluster;
        this.history = history;
        this.budget = budget;
    }

    /** FindCoordinator for one group, asked of node {@code askedNodeId}, without retries. */
    FindCoordinatorResponse.Coordinator findOn(int askedNodeId, String groupId) {
        FindCoordinatorResponse response = cluster.coordinator(askedNodeId)
                .withDeadlineAfter(FIND_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds(groupId).build());
        if (response.getCoordinatorsCount() != 1 || !response.getCoordinators(0).getKey().equals(groupId)) {
            throw new AssertionError("FindCoordinator(" + groupId + ") on node " + askedNodeId
                    + " did not answer exactly that key: " + response);
        }
        FindCoordinatorResponse.Coordinator coordinator = response.getCoordinators(0);
        if (coordinator.getErrorCode() == ErrorCode.NONE) {
            checkEndpoint(askedNodeId, coordinator);
        }
        return coordinator;
    }

    /** The node and its client port must be the ones the harness gave that node id. */
    private void checkEndpoint(int askedNodeId, FindCoordinatorResponse.Coordinator coordinator) {
        int nodeId = coordinator.getNodeId();
        if (!cluster.nodeIds().contains(nodeId) || coordinator.getPort() != cluster.clientPort(nodeId)
                || !coordinator.getHost().equals("127.0.0.1")) {
            throw new AssertionError("node " + askedNodeId + " named coordinator " + nodeId + " at "
                    + coordinator.getHost() + ":" + coordinator.getPort() + ", but that node serves clients on 127.0.0.1:"
                    + (cluster.nodeIds().contains(nodeId) ? cluster.clientPort(nodeId) : "(no such node)"));
        }
    }

    /**
     * The coordinator of {@code groupId} as the first running node that knows a leader says, or -1 if
     * none does right now.
     */
    int locate(String groupId) {
        for (int askedNodeId : cluster.runningNodeIds()) {
            try {
                FindCoordinatorResponse.Coordinator coordinator = findOn(askedNodeId, groupId);
                history.record("FindCoordinator(" + groupId + ") on node " + askedNodeId + " -> "
                        + coordinator.getErrorCode() + " node " + coordinator.getNodeId());
                if (coordinator.getErrorCode() == ErrorCode.NONE) {
                    return coordinator.getNodeId();
                }
            } catch (StatusRuntimeException e) {
                history.record("FindCoordinator(" + groupId + ") on node " + askedNodeId + " -> " + e.getStatus());
                if (!TRANSPORT_RETRIABLE.contains(e.getStatus().getCode())) {
                    throw e;
                }
            }
        }
        return -1;
    }

    /**
     * Sends one group request to the group's coordinator, re-finding it and resending as a client
     * would, until the answer is not a routing error.
     *
     * @param what        the request, for the history (e.g. "Heartbeat m1")
     * @param callTimeout the gRPC deadline of each attempt (long polls need more than their timeout)
     * @param rpc         sends the request on the given stub
     * @param errorOf     the response's group-level error code
     * @return the first answer that is not a routing error, and the node that gave it
     * @throws AssertionError if none came within the budget
     */
    <R> Served<R> call(String groupId, String what, Duration callTimeout,
                       Function<GroupCoordinatorBlockingStub, R> rpc, Function<R, ErrorCode> errorOf) {
        long deadlineNanos = System.nanoTime() + budget.toNanos();
        long backoffMs = FIRST_BACKOFF_MS;
        int coordinator = -1;
        String lastOutcome = "no coordinator found";
        for (int attempt = 1; ; attempt++) {
            if (coordinator < 0) {
                coordinator = locate(groupId);
            }
            if (coordinator >= 0) {
                try {
                    R response = rpc.apply(cluster.coordinator(coordinator)
                            .withDeadlineAfter(callTimeout.toMillis(), TimeUnit.MILLISECONDS));
                    ErrorCode error = errorOf.apply(response);
                    history.record(what + " [" + groupId + "] attempt " + attempt + " on node " + coordinator + " -> "
                            + error);
                    if (!ROUTING_ERRORS.contains(error)) {
                        return new Served<>(coordinator, response);
                    }
                    lastOutcome = error + " from node " + coordinator;
                    if (error != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
                        coordinator = -1;
                    }
                } catch (StatusRuntimeException e) {
                    history.record(what + " [" + groupId + "] attempt " + attempt + " on node " + coordinator + " -> "
                            + e.getStatus());
                    if (!TRANSPORT_RETRIABLE.contains(e.getStatus().getCode())) {
                        throw e;
                    }
                    lastOutcome = e.getStatus() + " from node " + coordinator;
                    coordinator = -1;
                }
            }
            if (System.nanoTime() + backoffMs * 1_000_000 > deadlineNanos) {
                throw new AssertionError(what + " [" + groupId + "] got no answer but routing errors within " + budget
                        + " (" + attempt + " attempts); last: " + lastOutcome + "; running nodes "
                        + cluster.runningNodeIds() + "; history in " + history.file());
            }
            sleepMs(backoffMs);
            backoffMs = Math.min(2 * backoffMs, MAX_BACKOFF_MS);
        }
    }

    /** {@link #call} for the responses whose error lives in each partition (OffsetCommit). */
    static <T> ErrorCode firstError(List<T> items, Function<T, ErrorCode> errorOf) {
        return items.stream().map(errorOf).filter(e -> e != ErrorCode.NONE).findFirst().orElse(ErrorCode.NONE);
    }

    private static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while backing off", e);
        }
    }
}
