package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.client.internal.Backoff;
import io.cohort.client.internal.Endpoint;
import io.cohort.client.internal.Partitioner;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Lists the groups of the whole cluster as Kafka's admin client does ({@code listConsumerGroups}):
 * ListGroups is answered by each node for the partitions it leads, so every node is asked, all at
 * once, and the answers are merged. Kafka's admin client retries a node that answers
 * COORDINATOR_LOAD_IN_PROGRESS or COORDINATOR_NOT_AVAILABLE and fails the listing if a node cannot
 * answer; here each answer also names the partitions it covers ({@code partition_indexes}), so the
 * listing is done when every partition was heard from, exactly once:
 * <ul>
 *   <li>a partition's groups are taken from the first answer that covers it, never mixed from two
 *       nodes (two answers may both cover a partition whose leadership moved between them);</li>
 *   <li>a node that is down does not fail the listing once its partitions were answered by the
 *       nodes that took them over;</li>
 *   <li>a partition no answer covered (no leader for a moment, or its leader loading) is asked for
 *       again, every node at once after a backoff, until the budget runs out; then the listing
 *       fails naming the partitions missing and each node's last answer.</li>
 * </ul>
 * Errors other than those and transport failures (UNAVAILABLE, DEADLINE_EXCEEDED) fail at once.
 */
final class ClusterGroupListing {
    /** Starts one node's ListGroups call, reporting to the observer. */
    interface NodeCall {
        void start(Endpoint endpoint, StreamObserver<ListGroupsResponse> observer);
    }

    /** Returns the failure if a retry may mend it, throws otherwise (CohortClient's transport rules). */
    interface TransportFailures {
        RuntimeException retriable(StatusRuntimeException e, Endpoint endpoint);
    }

    /** Sleeps before retry {@code attempt}; false if that would pass the deadline. */
    interface Sleeper {
        boolean sleepBeforeRetry(int attempt, long deadlineNanos);
    }

    private final int partitionCount;
    private final Map<Integer, Endpoint> nodes;
    private final NodeCall call;
    private final TransportFailures transportFailures;
    private final Sleeper sleeper;
    private final Duration budget;

    ClusterGroupListing(int partitionCount, Map<Integer, Endpoint> nodes, NodeCall call,
                        TransportFailures transportFailures, Sleeper sleeper, Duration budget) {
        this.partitionCount = partitionCount;
        this.nodes = new TreeMap<>(nodes);
        this.call = call;
        this.transportFailures = transportFailures;
        this.sleeper = sleeper;
        this.budget = budget;
    }

    /** One node's outcome: its response, or the transport failure. */
    private record Outcome(int nodeId, ListGroupsResponse response, Throwable failure) {
    }

    List<ListGroupsResponse.Group> run() {
        long deadline = System.nanoTime() + budget.toNanos();
        Merge merge = new Merge(partitionCount);
        Map<Integer, String> lastProblem = new TreeMap<>();
        Map<Integer, ErrorCode> lastCode = new TreeMap<>();
        RuntimeException lastTransportFailure = null;
        for (int attempt = 0;; attempt++) {
            BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
            // Cancelling this context cancels the calls still running once every partition is covered.
            Context.CancellableContext round = Context.current().withCancellation();
            try {
                round.run(() -> nodes.forEach((id, endpoint) -> startCall(id, endpoint, outcomes)));
                for (int pending = nodes.size(); pending > 0 && !merge.complete(); pending--) {
                    Outcome outcome = take(outcomes);
                    Endpoint endpoint = nodes.get(outcome.nodeId());
                    if (outcome.failure() != null) {
                        RuntimeException failure = transportFailure(outcome.failure(), endpoint);
                        lastTransportFailure = failure;
                        lastProblem.put(outcome.nodeId(), failure.getMessage());
                        lastCode.remove(outcome.nodeId());
                        continue;
                    }
                    ListGroupsResponse response = outcome.response();
                    if (response.getErrorCode() == ErrorCode.NONE) {
                        merge.add(response);
                        lastProblem.remove(outcome.nodeId());
                        lastCode.remove(outcome.nodeId());
                    } else if (ErrorCodes.isRouting(response.getErrorCode())) {
                        lastProblem.put(outcome.nodeId(), response.getErrorCode() + " " + response.getErrorMessage());
                        lastCode.put(outcome.nodeId(), response.getErrorCode());
                    } else {
                        throw new CohortException(response.getErrorCode(), "listing groups: node " + outcome.nodeId()
                                + " (" + endpoint + ") answered " + response.getErrorCode()
                                + (response.getErrorMessage().isEmpty() ? "" : ": " + response.getErrorMessage()));
                    }
                }
            } finally {
                round.cancel(null);
            }
            if (merge.complete()) {
                return merge.groups();
            }
            if (!sleeper.sleepBeforeRetry(attempt, deadline)) {
                ErrorCode code = lastCode.containsValue(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
                        ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.COORDINATOR_NOT_AVAILABLE;
                throw new CohortException(code, "listing groups: no node answered for partitions " + merge.missing()
                        + " within " + budget.toMillis() + " ms" + describe(lastProblem), lastTransportFailure);
            }
        }
    }

    private void startCall(int nodeId, Endpoint endpoint, BlockingQueue<Outcome> outcomes) {
        try {
            call.start(endpoint, new StreamObserver<>() {
                private ListGroupsResponse response;

                @Override
                public void onNext(ListGroupsResponse value) {
                    response = value;
                }

                @Override
                public void onError(Throwable t) {
                    outcomes.add(new Outcome(nodeId, null, t));
                }

                @Override
                public void onCompleted() {
                    outcomes.add(new Outcome(nodeId, response, null));
                }
            });
        } catch (StatusRuntimeException e) {
            outcomes.add(new Outcome(nodeId, null, e));
        }
    }

    private RuntimeException transportFailure(Throwable failure, Endpoint endpoint) {
        if (failure instanceof StatusRuntimeException e) {
            return transportFailures.retriable(e, endpoint);
        }
        if (failure instanceof io.grpc.StatusException e) {
            return transportFailures.retriable(e.getStatus().asRuntimeException(e.getTrailers()), endpoint);
        }
        throw new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR, "listing groups on " + endpoint + " failed: "
                + failure, failure);
    }

    private String describe(Map<Integer, String> lastProblem) {
        if (lastProblem.isEmpty()) {
            return "; every node answered, none leads the missing partitions yet (an election in progress?)";
        }
        StringBuilder text = new StringBuilder("; last answers:");
        lastProblem.forEach((id, problem) -> text.append(" node ").append(id).append(" (").append(nodes.get(id))
                .append("): ").append(problem).append(';'));
        return text.substring(0, text.length() - 1);
    }

    private static Outcome take(BlockingQueue<Outcome> outcomes) {
        try {
            // Every call carries a deadline, so an outcome always comes; the bound is a safety net.
            Outcome outcome = outcomes.poll(10, TimeUnit.MINUTES);
            if (outcome == null) {
                throw new IllegalStateException("a ListGroups call neither answered nor failed within 10 minutes");
            }
            return outcome;
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        }
    }

    /**
     * The answers merged partition by partition: a partition's groups come from the first NONE answer
     * that covers it; later answers covering it again are ignored for it.
     */
    static final class Merge {
        private final int partitionCount;
        private final Map<Integer, List<ListGroupsResponse.Group>> groupsByPartition = new TreeMap<>();

        Merge(int partitionCount) {
            this.partitionCount = partitionCount;
        }

        void add(ListGroupsResponse answer) {
            Map<Integer, List<ListGroupsResponse.Group>> fresh = new TreeMap<>();
            for (int partition : answer.getPartitionIndexesList()) {
                if (partition >= 0 && partition < partitionCount && !groupsByPartition.containsKey(partition)) {
                    fresh.put(partition, new ArrayList<>());
                }
            }
            // A node of a release before partition_indexes answers for every partition from its own
            // replicas (all of them: those releases put every partition on every node) and names none.
            // Groups without partitions can only come from such a node: this release names the partitions
            // of every group it lists. Its view then covers every partition not heard from yet.
            if (answer.getPartitionIndexesCount() == 0 && answer.getGroupsCount() > 0) {
                for (int partition = 0; partition < partitionCount; partition++) {
                    if (!groupsByPartition.containsKey(partition)) {
                        fresh.put(partition, new ArrayList<>());
                    }
                }
            }
            for (ListGroupsResponse.Group group : answer.getGroupsList()) {
                List<ListGroupsResponse.Group> partitionGroups =
                        fresh.get(Partitioner.partitionFor(group.getGroupId(), partitionCount));
                if (partitionGroups != null) {
                    partitionGroups.add(group);
                }
            }
            groupsByPartition.putAll(fresh);
        }

        boolean complete() {
            return groupsByPartition.size() == partitionCount;
        }

        SortedSet<Integer> missing() {
            SortedSet<Integer> missing = new TreeSet<>();
            for (int p = 0; p < partitionCount; p++) {
                if (!groupsByPartition.containsKey(p)) {
                    missing.add(p);
                }
            }
            return missing;
        }

        /** Every group heard of, sorted by group id. */
        List<ListGroupsResponse.Group> groups() {
            List<ListGroupsResponse.Group> all = new ArrayList<>();
            groupsByPartition.values().forEach(all::addAll);
            all.sort(Comparator.comparing(ListGroupsResponse.Group::getGroupId));
            return List.copyOf(all);
        }
    }
}
