package io.cohort.client;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.NodeEndpoint;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.client.internal.Backoff;
import io.cohort.client.internal.Endpoint;
import io.cohort.client.internal.Partitioner;
import io.cohort.client.internal.TlsDiagnosis;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a {@link CohortClient}'s calls go, and what happens when they do not get through: the
 * cluster's shape (nodes and partition count, learned from a bootstrap node with ClusterStatus), one
 * coordinator per offsets partition (FindCoordinator, corrected by the {@code leader_hint} of
 * NOT_COORDINATOR answers), the gRPC channels ({@link NodeChannels}), and the retry loops: a group call re-routed and resent on routing errors and transport failures until
 * its budget runs out ({@link #groupCall}), a node-independent call tried on each node in turn
 * ({@link #anyNodeCall}). {@link CohortClient} (the calls themselves) explains the retry rules.
 */
final class ClusterRouter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRouter.class);

    private final List<Endpoint> bootstrap;
    private final Duration requestTimeout;
    private final Duration apiTimeout;
    private final Backoff backoff;
    private final TlsDiagnosis.ClientTls tls;
    private final NodeChannels channels;

    private final ConcurrentMap<Integer, Coordinator> coordinatorByPartition = new ConcurrentHashMap<>();
    private final AtomicInteger nextNode = new AtomicInteger();
    private final Object topologyLock = new Object();
    private volatile Topology topology;

    /** What the client knows of the cluster's shape. */
    record Topology(int partitionCount, Map<Integer, Endpoint> nodes) {
    }

    /** What a response says about routing. */
    record Routing(ErrorCode code, NodeEndpoint hint) {
    }

    @FunctionalInterface
    interface StubCall<R> {
        R call(GroupCoordinatorGrpc.GroupCoordinatorBlockingStub stub);
    }

    /** {@code bearerToken} may be null (no token); {@code tls} disabled: plaintext. */
    ClusterRouter(List<Endpoint> bootstrap, String clientId, Duration requestTimeout, Duration apiTimeout,
                  Backoff backoff, int maxInboundMessageBytes, TlsDiagnosis.ClientTls tls, String bearerToken) {
        this.bootstrap = List.copyOf(bootstrap);
        this.requestTimeout = requestTimeout;
        this.apiTimeout = apiTimeout;
        this.backoff = backoff;
        this.tls = tls;
        this.channels = new NodeChannels(clientId, maxInboundMessageBytes, tls, bearerToken);
    }

    /** The number of offsets partitions, learned from the cluster on first use. */
    int partitionCount() {
        return topology().partitionCount();
    }

    /** The offsets partition of {@code groupId}. */
    int partitionFor(String groupId) {
        return Partitioner.partitionFor(groupId, partitionCount());
    }

    /** Finds the coordinator of {@code groupId} within the client's budget; caches it. */
    Coordinator findCoordinator(String groupId) {
        return lookUpCoordinator(groupId, deadlineAfter(apiTimeout), null);
    }

    /** The cached coordinator of {@code groupId}, if any. */
    Optional<Coordinator> cachedCoordinator(String groupId) {
        return Optional.ofNullable(coordinatorByPartition.get(partitionFor(groupId)));
    }

    /** Forgets {@code partition}'s coordinator: the next call finds it again. */
    void forgetCoordinator(int partition) {
        coordinatorByPartition.remove(partition);
    }

    /** Node {@code nodeId}'s client endpoint; INVALID_REQUEST if the cluster has no such node. */
    Endpoint nodeEndpoint(int nodeId) {
        Endpoint endpoint = topology().nodes().get(nodeId);
        if (endpoint == null) {
            throw new CohortException(ErrorCode.INVALID_REQUEST, "no node " + nodeId + " in the cluster; nodes are "
                    + topology().nodes().keySet());
        }
        return endpoint;
    }

    @Override
    public void close() {
        channels.close();
    }

    /**
     * Sends a group call to the group's coordinator, re-routing and retrying routing errors and
     * transport failures until {@code budget} runs out.
     */
    <R> R groupCall(String groupId, Duration attemptTimeout, Duration budget, StubCall<R> call,
            Function<R, Routing> routing) {
        return answeredGroupCall(groupId, attemptTimeout, budget, call, routing, false).response();
    }

    /**
     * A group call's answer, and the first of its attempts that failed without an answer (a
     * deadline, a connection closed or refused), or null. Such an attempt may have reached the
     * coordinator and been applied, whatever the answer to a later attempt says: a write whose
     * answer is a refusal is then "may have been applied", not "not applied".
     */
    record Answered<R>(R response, StatusRuntimeException unansweredAttempt) {
    }

    /**
     * As {@link #groupCall}, with the first unanswered attempt beside the answer; for a {@code write},
     * a definite failure thrown after one carries it as its cause ({@link #afterUnansweredAttempt}).
     */
    <R> Answered<R> answeredGroupCall(String groupId, Duration attemptTimeout, Duration budget, StubCall<R> call,
            Function<R, Routing> routing, boolean write) {
        long deadline = deadlineAfter(budget);
        StatusRuntimeException unanswered = null;
        int partition = partitionFor(groupId);
        R lastResponse = null;
        RuntimeException lastFailure = null;
        int hintsFollowed = 0;
        // A coordinator the last attempt could not reach: the look-up asks the other nodes first.
        Endpoint unreachable = null;
        Backoff.Schedule retries = backoff.schedule();
        while (true) {
            checkOpen();
            Coordinator coordinator = coordinatorByPartition.get(partition);
            if (coordinator == null) {
                try {
                    coordinator = lookUpCoordinator(groupId, deadline, unreachable);
                } catch (CohortException e) {
                    if (lastResponse != null) {
                        return new Answered<>(lastResponse, unanswered);
                    }
                    throw write ? afterUnansweredAttempt(e, unanswered) : e;
                }
            }
            try {
                R response = call.call(GroupCoordinatorGrpc.newBlockingStub(channel(endpointOf(coordinator)))
                        .withDeadlineAfter(attemptTimeout.toMillis(), TimeUnit.MILLISECONDS));
                Routing route = routing.apply(response);
                if (!ErrorCodes.isRouting(route.code())) {
                    return new Answered<>(response, unanswered);
                }
                lastResponse = response;
                lastFailure = null;
                if (route.code() == ErrorCode.NOT_COORDINATOR && route.hint() != null && route.hint().getNodeId() >= 0
                        && route.hint().getNodeId() != coordinator.nodeId()) {
                    // The answering node names the leader: go there, no FindCoordinator. At once the
                    // first times; after that with backoff, in case two nodes name each other during
                    // an election.
                    Coordinator hinted = new Coordinator(partition, route.hint().getNodeId(), route.hint().getHost(),
                            route.hint().getPort());
                    coordinatorByPartition.put(partition, hinted);
                    LOG.debug("group {}: {} is not the coordinator, the hint names {}", groupId, coordinator, hinted);
                    if (++hintsFollowed <= 2) {
                        continue;
                    }
                } else if (route.code() != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
                    coordinatorByPartition.remove(partition, coordinator);
                }
            } catch (StatusRuntimeException e) {
                lastFailure = retriableTransportFailure(e, coordinator, endpointOf(coordinator));
                coordinatorByPartition.remove(partition, coordinator);
                unreachable = endpointOf(coordinator);
                if (unanswered == null) {
                    unanswered = e;
                }
            }
            if (!sleepUnlessPastDeadline(retries.nextDelayMs(lastFailure == null), deadline)) {
                if (lastFailure == null && lastResponse != null) {
                    return new Answered<>(lastResponse, unanswered);
                }
                throw new CohortException(ErrorCode.COORDINATOR_NOT_AVAILABLE, "no coordinator of group '" + groupId
                        + "' answered within " + budget.toMillis() + " ms", lastFailure);
            }
        }
    }

    /**
     * {@code failure}, a definite answer to a call, or the same with {@code unanswered} as its cause
     * and said in its message when an earlier attempt of the call got no answer and so may have been
     * applied (see {@link Answered}). Kafka's client reports such a failure as it is; the cause lets a
     * caller that must know (a checker of what was applied, an application deciding whether to
     * retry a write) tell "refused" from "refused this time, maybe applied before".
     */
    static CohortException afterUnansweredAttempt(CohortException failure, StatusRuntimeException unanswered) {
        if (unanswered == null || failure.getCause() != null) {
            return failure;
        }
        String message = failure.getMessage() + "; an earlier attempt got no answer ("
                + unanswered.getStatus().getCode() + ") and may have been applied";
        CohortException withCause = failure instanceof CommitFailedException
                ? new CommitFailedException(failure.errorCode(), message, unanswered, false)
                : new CohortException(failure.errorCode(), message, unanswered, false);
        withCause.setStackTrace(failure.getStackTrace());
        return withCause;
    }

    /**
     * Returns the failure if the gRPC status is worth a retry; throws the right exception if not,
     * among them a TLS mismatch with {@code endpoint}, which no retry mends.
     */
    RuntimeException retriableTransportFailure(StatusRuntimeException e, Object target, Endpoint endpoint) {
        Status.Code code = e.getStatus().getCode();
        String tlsProblem = TlsDiagnosis.explain(e, endpoint, tls);
        if (tlsProblem != null) {
            throw new TransportSecurityException(tlsProblem, e);
        }
        switch (code) {
            case UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED -> {
                LOG.debug("{} failed with {}; retrying", target, code);
                return e;
            }
            // A limit was hit (an answer larger than maxInboundMessageBytes, a request larger than
            // the server takes, a server-side limit): the same call would hit it again.
            case RESOURCE_EXHAUSTED -> throw new CohortException(ErrorCode.MESSAGE_TOO_LARGE, target
                    + " refused the call, a limit was hit (RESOURCE_EXHAUSTED): " + e.getStatus().getDescription()
                    + (isMessageSizeLimit(e) ? " (this client takes answers of up to " + channels.maxInboundMessageBytes()
                    + " bytes, CohortClient.Builder.maxInboundMessageBytes)" : ""), e);
            case CANCELLED -> {
                if (channels.isClosed()) {
                    throw new IllegalStateException("the client is closed", e);
                }
                return e;
            }
            case UNKNOWN -> {
                // Over TLS, a call written to a connection the node just dropped (killed, restarting)
                // fails as UNKNOWN "channel closed" (grpc-netty maps the ClosedChannelException from
                // the TLS handler so) where plaintext reports UNAVAILABLE: the same transport failure.
                if (closedConnection(e)) {
                    LOG.debug("{} failed with {} (connection closed); retrying", target, code);
                    return e;
                }
                throw new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR,
                        target + " failed with gRPC status " + code + ": " + e.getStatus().getDescription(), e);
            }
            case INVALID_ARGUMENT -> throw new CohortException(ErrorCode.INVALID_REQUEST,
                    e.getStatus().getDescription(), e);
            default -> throw new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR,
                    target + " failed with gRPC status " + code + ": " + e.getStatus().getDescription(), e);
        }
    }

    /** True if gRPC refused a message for its size (its description names the limit and the size). */
    private static boolean isMessageSizeLimit(StatusRuntimeException e) {
        String description = e.getStatus().getDescription();
        return description != null && description.contains("exceeds maximum size");
    }

    private static boolean closedConnection(StatusRuntimeException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.nio.channels.ClosedChannelException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Asks nodes in turn for the group's coordinator until one is known; caches it. A node that
     * cannot be reached is passed over for the others at once, without a wait: after a coordinator's
     * death the next node in turn is often the dead one ({@code unreachable}, when the caller just
     * failed to reach it, is passed over from the start), and waiting out a backoff on it delays the
     * look-up past the election. The wait comes once every known node has failed, or after an answer.
     */
    private Coordinator lookUpCoordinator(String groupId, long deadline, Endpoint unreachable) {
        int partition = partitionFor(groupId);
        FindCoordinatorRequest request = FindCoordinatorRequest.newBuilder().addGroupIds(groupId).build();
        RuntimeException lastFailure = null;
        String lastError = "";
        Backoff.Schedule retries = backoff.schedule();
        Set<Endpoint> failedSinceWait = new java.util.HashSet<>();
        if (unreachable != null) {
            failedSinceWait.add(unreachable);
        }
        while (true) {
            checkOpen();
            Endpoint endpoint = nextEndpointOutside(failedSinceWait);
            boolean routingAnswer = false;
            try {
                FindCoordinatorResponse.Coordinator found = GroupCoordinatorGrpc.newBlockingStub(channel(endpoint))
                        .withDeadlineAfter(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                        .findCoordinator(request).getCoordinators(0);
                if (found.getErrorCode() == ErrorCode.NONE) {
                    Coordinator coordinator = new Coordinator(partition, found.getNodeId(), found.getHost(),
                            found.getPort());
                    coordinatorByPartition.put(partition, coordinator);
                    return coordinator;
                }
                if (found.getErrorCode() == ErrorCode.GROUP_AUTHORIZATION_FAILED) {
                    // Not a routing problem another node or a retry mends: the caller lacks an ACL.
                    throw new CohortException(ErrorCode.GROUP_AUTHORIZATION_FAILED, found.getErrorMessage());
                }
                lastError = found.getErrorCode() + " from " + endpoint + ": " + found.getErrorMessage();
                routingAnswer = true;
            } catch (StatusRuntimeException e) {
                lastFailure = retriableTransportFailure(e, endpoint, endpoint);
                lastError = e.getStatus().getCode() + " from " + endpoint;
                failedSinceWait.add(endpoint);
                if (!failedSinceWait.containsAll(knownEndpoints()) && System.nanoTime() < deadline) {
                    continue; // another node may answer: ask it now
                }
            }
            if (!sleepUnlessPastDeadline(retries.nextDelayMs(routingAnswer), deadline)) {
                throw new CohortException(ErrorCode.COORDINATOR_NOT_AVAILABLE, "no coordinator known for group '"
                        + groupId + "' (partition " + partition + "); last answer: " + lastError, lastFailure);
            }
            failedSinceWait.clear();
        }
    }

    /** Tries nodes in turn until {@code call} returns non-null or the budget runs out. */
    <R> R anyNodeCall(Function<Endpoint, R> call, String what) {
        return callUntilAnswered(failedLast -> nextEndpoint(), call, "no node answered " + what);
    }

    /**
     * As {@link #anyNodeCall}, but each attempt goes to the node the client knows to lead
     * {@code partition}: for calls only that node carries out (ACL, topic and membership changes
     * are partition 0's log entries; a leadership transfer is its partition's leader's). Another node
     * forwards such a call with the caller's bearer token, but not a caller known by its client
     * certificate: the leader would see the forwarding node's principal, so that node answers
     * NOT_COORDINATOR naming the leader instead. A null result (such a routing answer) or a failed
     * attempt makes the client ask a node for the partition's leader again before the next attempt.
     */
    <R> R partitionLeaderCall(int partition, Function<Endpoint, R> call, String what) {
        return callUntilAnswered(failedLast -> {
            if (failedLast != null) {
                forgetCoordinator(partition);
            }
            return leaderEndpoint(partition, failedLast);
        }, call, "no leader of partition " + partition + " carried out " + what);
    }

    /**
     * Calls {@code call} on {@code next.apply(the endpoint of the last failed attempt, or null)}
     * until it returns non-null, backing off between attempts, within the client's budget.
     */
    private <R> R callUntilAnswered(java.util.function.UnaryOperator<Endpoint> next, Function<Endpoint, R> call,
                                    String failure) {
        long deadline = deadlineAfter(apiTimeout);
        RuntimeException lastFailure = null;
        Endpoint failedLast = null;
        for (int attempt = 0;; attempt++) {
            checkOpen();
            Endpoint endpoint = next.apply(failedLast);
            try {
                R result = call.apply(endpoint);
                if (result != null) {
                    return result;
                }
            } catch (StatusRuntimeException e) {
                lastFailure = retriableTransportFailure(e, endpoint, endpoint);
            }
            failedLast = endpoint;
            if (!sleepBeforeRetry(attempt, deadline)) {
                throw new CohortException(ErrorCode.COORDINATOR_NOT_AVAILABLE, failure + " within "
                        + apiTimeout.toMillis() + " ms (tried " + knownEndpoints() + ")", lastFailure);
            }
        }
    }

    /**
     * The client port of {@code partition}'s leader as far as the client knows it, learned from a node
     * other than {@code avoid} if not known; else the next node in turn.
     */
    private Endpoint leaderEndpoint(int partition, Endpoint avoid) {
        Topology shape = topology();
        Coordinator known = coordinatorByPartition.get(partition);
        if (known == null) {
            Endpoint asked = nextEndpointOutside(avoid == null ? Set.of() : Set.of(avoid));
            try {
                ClusterStatusResponse status = ClusterAdminGrpc.newBlockingStub(channel(asked))
                        .withDeadlineAfter(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                        .clusterStatus(ClusterStatusRequest.newBuilder().setRoutingOnly(true).build());
                for (PartitionStatus p : status.getPartitionsList()) {
                    Endpoint leader = shape.nodes().get(p.getLeaderNodeId());
                    if (p.getPartitionIndex() == partition && leader != null) {
                        known = new Coordinator(partition, p.getLeaderNodeId(), leader.host(), leader.port());
                        coordinatorByPartition.put(partition, known);
                    }
                }
            } catch (StatusRuntimeException e) {
                LOG.debug("{} did not say who leads partition {}: {}", asked, partition, e.getStatus());
            }
            if (known == null) {
                return asked;
            }
        }
        return endpointOf(known);
    }

    Topology topology() {
        Topology known = topology;
        if (known != null) {
            return known;
        }
        synchronized (topologyLock) {
            if (topology == null) {
                topology = discover();
            }
            return topology;
        }
    }

    /** Asks bootstrap nodes in turn for the cluster's shape. */
    private Topology discover() {
        long deadline = deadlineAfter(apiTimeout);
        ClusterStatusRequest request = ClusterStatusRequest.getDefaultInstance();
        RuntimeException lastFailure = null;
        RuntimeException slowFailure = null;
        for (int attempt = 0;; attempt++) {
            checkOpen();
            Endpoint endpoint = bootstrap.get(Math.floorMod(attempt, bootstrap.size()));
            try {
                ClusterStatusResponse status = ClusterAdminGrpc.newBlockingStub(channel(endpoint))
                        .withDeadlineAfter(requestTimeout.toMillis(), TimeUnit.MILLISECONDS).clusterStatus(request);
                Map<Integer, Endpoint> nodes = new TreeMap<>();
                for (NodeStatus node : status.getNodesList()) {
                    nodes.put(node.getNodeId(), new Endpoint(node.getHost(), node.getClientPort()));
                }
                for (PartitionStatus p : status.getPartitionsList()) {
                    Endpoint leader = nodes.get(p.getLeaderNodeId());
                    if (leader != null) {
                        coordinatorByPartition.putIfAbsent(p.getPartitionIndex(), new Coordinator(p.getPartitionIndex(),
                                p.getLeaderNodeId(), leader.host(), leader.port()));
                    }
                }
                LOG.debug("cluster of {} nodes and {} partitions, learned from {}", nodes.size(),
                        status.getPartitionCount(), endpoint);
                return new Topology(status.getPartitionCount(), Map.copyOf(nodes));
            } catch (StatusRuntimeException e) {
                lastFailure = retriableTransportFailure(e, endpoint, endpoint);
                if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
                    slowFailure = e;
                }
            }
            if (!sleepBeforeRetry(attempt, deadline)) {
                throw discoveryFailure(slowFailure, lastFailure);
            }
        }
    }

    /**
     * Why no bootstrap node answered, in two distinct cases. Every attempt failed at once (connection
     * refused, unknown host): nothing serves there, the cause is UNAVAILABLE. Some attempt ran into
     * its deadline instead: something accepted the connection (or at least did not refuse it) but did
     * not answer in time, as an overloaded node or one starved of CPU does; the cause is that
     * DEADLINE_EXCEEDED.
     */
    private CohortException discoveryFailure(RuntimeException slowFailure, RuntimeException lastFailure) {
        if (slowFailure != null) {
            return new CohortException(ErrorCode.COORDINATOR_NOT_AVAILABLE, "the cluster is overloaded or slow: no "
                    + "bootstrap node answered within " + apiTimeout.toMillis() + " ms, and not every attempt was "
                    + "refused: a call ran out of time waiting (tried " + bootstrap + ")", slowFailure);
        }
        RuntimeException cause = lastFailure;
        if (lastFailure instanceof StatusRuntimeException e && e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
            cause = Status.UNAVAILABLE.withDescription("no connection: " + e.getStatus()).withCause(e)
                    .asRuntimeException();
        }
        return new CohortException(ErrorCode.COORDINATOR_NOT_AVAILABLE, "cannot reach any node: every attempt on "
                + bootstrap + " was refused or could not resolve the host, for " + apiTimeout.toMillis()
                + " ms; is the cluster running?", cause);
    }

    /** The next endpoint in turn that is not in {@code passOver}; the next in turn if all are. */
    private Endpoint nextEndpointOutside(Set<Endpoint> passOver) {
        List<Endpoint> endpoints = knownEndpoints();
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint endpoint = nextEndpoint();
            if (!passOver.contains(endpoint)) {
                return endpoint;
            }
        }
        return nextEndpoint();
    }

    private Endpoint nextEndpoint() {
        List<Endpoint> endpoints = knownEndpoints();
        return endpoints.get(Math.floorMod(nextNode.getAndIncrement(), endpoints.size()));
    }

    private List<Endpoint> knownEndpoints() {
        Set<Endpoint> endpoints = new LinkedHashSet<>();
        Topology known = topology;
        if (known != null) {
            endpoints.addAll(known.nodes().values());
        }
        endpoints.addAll(bootstrap);
        return List.copyOf(endpoints);
    }

    private static Endpoint endpointOf(Coordinator coordinator) {
        return new Endpoint(coordinator.host(), coordinator.port());
    }

    /** The channel to {@code endpoint} ({@link NodeChannels#channel}). */
    ManagedChannel channel(Endpoint endpoint) {
        return channels.channel(endpoint);
    }

    /** Sleeps before retry {@code attempt}; false (without sleeping) if that would pass the deadline. */
    boolean sleepBeforeRetry(int attempt, long deadlineNanos) {
        return sleepUnlessPastDeadline(backoff.delayMs(attempt), deadlineNanos);
    }

    /** Sleeps {@code delayMs} unless that passes the deadline; false then (and no sleep). */
    private boolean sleepUnlessPastDeadline(long delayMs, long deadlineNanos) {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs) >= deadlineNanos) {
            return false;
        }
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        }
        return true;
    }

    private static long deadlineAfter(Duration budget) {
        return System.nanoTime() + budget.toNanos();
    }

    void checkOpen() {
        if (channels.isClosed()) {
            throw new IllegalStateException("the client is closed");
        }
    }
}
