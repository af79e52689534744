package io.cohort.client;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.LeaveGroupResponse;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.client.ClusterRouter.Routing;
import io.cohort.client.ClusterRouter.StubCall;
import io.cohort.client.internal.Backoff;
import io.cohort.client.internal.Endpoint;
import io.cohort.client.internal.TlsDiagnosis;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A thread-safe connection to a Cohort cluster: finds each group's coordinator, sends the group
 * protocol's calls there, and retries what Kafka's client retries.
 *
 * <p>Routing. On first use the client asks a bootstrap node for the cluster's shape (ClusterStatus:
 * the nodes and the partition count), then keeps one coordinator per offsets partition, learned
 * with FindCoordinator and corrected by the {@code leader_hint} of NOT_COORDINATOR answers. A group's
 * partition is computed locally exactly as the server does.
 *
 * <p>Retries. A call that meets a routing error (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
 * COORDINATOR_LOAD_IN_PROGRESS) or a transport failure (gRPC UNAVAILABLE, DEADLINE_EXCEEDED,
 * ABORTED) is sent again, after re-finding the coordinator where needed, with
 * exponential backoff and jitter, until the call's budget ({@link Builder#apiTimeout}) runs out;
 * the first routing errors of a call are retried at the initial backoff without growth, since
 * the move they report (a leader transfer, an election) ends within about a second
 * ({@link Backoff#schedule()}).
 * Every group call may be resent: the coordinator's answer to a resent JoinGroup or SyncGroup is
 * the same as to the first, a resent commit writes the same values again. (A caller that commits
 * the same group concurrently from several threads must order its commits itself; GroupMember sends
 * its commits one at a time.) Other protocol errors are returned in the response (low-level calls)
 * or thrown as {@link CohortException} (high-level calls); malformed requests fail at once with
 * INVALID_REQUEST and the server's explanation, and a call that hits a size limit (gRPC
 * RESOURCE_EXHAUSTED) fails at once with MESSAGE_TOO_LARGE naming the limit. The routing and the
 * retry loops live in {@link ClusterRouter}; this class holds the calls.
 */
public final class CohortClient implements AutoCloseable {
    /**
     * The largest answer a client takes by default: 256 MiB. OffsetFetch of a whole group and
     * DescribeGroups answer in one message; the largest a node can produce is bounded by what it
     * holds for one group (docs/OPERATIONS.md, "Message sizes"): 10,000 partitions with 4 KB of
     * metadata each are about 41 MB.
     */
    public static final int DEFAULT_MAX_INBOUND_MESSAGE_BYTES = 256 << 20;
    private final String clientId;
    private final Duration requestTimeout;
    private final Duration apiTimeout;
    private final Backoff backoff;
    /** The cluster's shape, the coordinators, the channels and the retry loops. */
    private final ClusterRouter router;
    /** The consumer protocol's calls (KIP-848), kept apart from the classic ones. */
    private final ConsumerGroupCalls consumerGroups = new ConsumerGroupCalls(this);
    /** ACLs, topics, group settings, membership and leadership: sent to partition 0's leader or any node. */
    private final ClusterAdminCalls admin;
    private final GroupAdminCalls groups;

    private CohortClient(Builder builder) {
        this.clientId = builder.clientId;
        this.requestTimeout = builder.requestTimeout;
        this.apiTimeout = builder.apiTimeout;
        this.backoff = new Backoff(builder.retryBackoff.toMillis(), builder.retryBackoffMax.toMillis());
        this.router = new ClusterRouter(builder.bootstrap, builder.clientId, requestTimeout, apiTimeout, backoff,
                builder.maxInboundMessageBytes, new TlsDiagnosis.ClientTls(builder.caCert, builder.cert, builder.key),
                builder.bearerToken);
        this.admin = new ClusterAdminCalls(router, requestTimeout);
        this.groups = new GroupAdminCalls(router, requestTimeout, apiTimeout);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The client id sent in JoinGroup, used by the coordinator to mint member ids. */
    public String clientId() {
        return clientId;
    }

    /** The deadline of one attempt of a call that does not long-poll. */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** The retry backoff, shared with GroupMember's rejoin loop. */
    Backoff backoff() {
        return backoff;
    }

        /** How long a call may keep retrying before it gives up. */
    public Duration apiTimeout() {
        return apiTimeout;
    }

    // ---------------------------------------------------------------------------------------------
    // Routing

    /** The number of offsets partitions, learned from the cluster on first use. */
    public int partitionCount() {
        return router.partitionCount();
    }

    /** The offsets partition of {@code groupId}. */
    public int partitionFor(String groupId) {
        return router.partitionFor(groupId);
    }

    /**
     * Finds the coordinator of {@code groupId} with FindCoordinator, retrying while no leader is
     * known, and caches it. Throws COORDINATOR_NOT_AVAILABLE if none is found within the budget.
     */
    public Coordinator findCoordinator(String groupId) {
        return router.findCoordinator(groupId);
    }

    /** The cached coordinator of {@code groupId}, if any. */
    public Optional<Coordinator> cachedCoordinator(String groupId) {
        return router.cachedCoordinator(groupId);
    }

    // ---------------------------------------------------------------------------------------------
    // The group protocol, low level: the response is returned as received, except that routing
    // errors and transport failures are retried within the budget. If the budget runs out on a
    // routing error, that response is returned; on a transport failure, CohortException is thrown.

    /**
     * JoinGroup. It long-polls: each attempt waits up to {@code attemptTimeout} (Kafka's client uses
     * the rebalance timeout + 5 s); a timed-out attempt is resent with the same member id.
     */
    public JoinGroupResponse joinGroup(JoinGroupRequest request, Duration attemptTimeout, Duration budget) {
        return groupCall(request.getGroupId(), attemptTimeout, budget,
                (stub) -> stub.joinGroup(request),
                r -> new Routing(r.getErrorCode(), r.hasLeaderHint() ? r.getLeaderHint() : null));
    }

    /** SyncGroup; long-polls like {@link #joinGroup}. */
    public SyncGroupResponse syncGroup(SyncGroupRequest request, Duration attemptTimeout, Duration budget) {
        return groupCall(request.getGroupId(), attemptTimeout, budget,
                (stub) -> stub.syncGroup(request),
                r -> new Routing(r.getErrorCode(), r.hasLeaderHint() ? r.getLeaderHint() : null));
    }

    /** Heartbeat, retried within {@code budget}. */
    public HeartbeatResponse heartbeat(HeartbeatRequest request, Duration budget) {
        return groupCall(request.getGroupId(), requestTimeout, budget,
                (stub) -> stub.heartbeat(request),
                r -> new Routing(r.getErrorCode(), r.hasLeaderHint() ? r.getLeaderHint() : null));
    }

    /** LeaveGroup. A resent leave may report UNKNOWN_MEMBER_ID because the first took effect. */
    public LeaveGroupResponse leaveGroup(LeaveGroupRequest request, Duration budget) {
        return groupCall(request.getGroupId(), requestTimeout, budget,
                (stub) -> stub.leaveGroup(request),
                r -> new Routing(r.getErrorCode(), r.hasLeaderHint() ? r.getLeaderHint() : null));
    }

    /** OffsetCommit. The group-level error, if any, is the one copied into every partition. */
    public OffsetCommitResponse offsetCommit(OffsetCommitRequest request, Duration budget) {
        return answeredOffsetCommit(request, budget).response();
    }

    /**
     * As {@link #offsetCommit}, with the first attempt that got no answer beside the answer
     * ({@link ClusterRouter.Answered}).
     */
    ClusterRouter.Answered<OffsetCommitResponse> answeredOffsetCommit(OffsetCommitRequest request, Duration budget) {
        return router.answeredGroupCall(request.getGroupId(), requestTimeout, budget,
                (stub) -> stub.offsetCommit(request),
                r -> new Routing(OffsetCommitMessages.firstPartitionError(r), r.hasLeaderHint() ? r.getLeaderHint() : null), true);
    }

    /**
     * ConsumerGroupHeartbeat (KIP-848), routed and retried like {@link #heartbeat}; see
     * {@link ConsumerGroupCalls#heartbeat}.
     */
    public io.cohort.api.v1.ConsumerGroupHeartbeatResponse consumerGroupHeartbeat(
            io.cohort.api.v1.ConsumerGroupHeartbeatRequest request, Duration budget) {
        return consumerGroups.heartbeat(request, budget);
    }

    /**
     * Describes consumer-protocol groups (ConsumerGroupDescribe), one entry per distinct group id
     * in order; a classic or unknown group's entry has GROUP_ID_NOT_FOUND. See
     * {@link ConsumerGroupCalls#describe}.
     */
    public List<io.cohort.api.v1.DescribedConsumerGroup> describeConsumerGroups(List<String> groupIds) {
        return consumerGroups.describe(groupIds);
    }

    ConsumerGroupCalls consumerGroupCalls() {
        return consumerGroups;
    }

    // ---------------------------------------------------------------------------------------------
    // High level: one group per call, errors thrown as CohortException.

    /** Every committed offset of {@code groupId} (none for an unknown group). Linearizable. */
    public Map<TopicPartition, OffsetAndMetadata> fetchOffsets(String groupId) {
        return fetchOffsets(groupId, List.of());
    }

    /**
     * The committed offsets of {@code partitions} of {@code groupId} (every committed offset if
     * {@code partitions} is empty); partitions without a committed offset are left out.
     * Linearizable: it sees every commit acknowledged before it started.
     */
    public Map<TopicPartition, OffsetAndMetadata> fetchOffsets(String groupId, Collection<TopicPartition> partitions) {
        return fetchOffsets(groupId, partitions, null, -1);
    }

    /**
     * {@link #fetchOffsets(String, Collection)} as consumer-protocol member {@code memberId} at
     * {@code memberEpoch} (KIP-848's OffsetFetch v9): the coordinator refuses a member it does not
     * know (UNKNOWN_MEMBER_ID) or one whose epoch moved on (STALE_MEMBER_EPOCH), so that a fenced
     * member cannot read positions it no longer owns. {@code memberId} null: no identity, no check.
     */
    public Map<TopicPartition, OffsetAndMetadata> fetchOffsets(String groupId, Collection<TopicPartition> partitions,
                                                               String memberId, int memberEpoch) {
        return groups.fetchOffsets(groupId, partitions, memberId, memberEpoch);
    }

    /**
     * Commits offsets as an admin tool does (generation -1, no member): allowed for an Empty or
     * unknown group; a group with members answers UNKNOWN_MEMBER_ID, thrown here. Throws the first
     * partition error if any partition failed (the others are committed). A failure thrown after an
     * attempt that got no answer (a node that died mid-call) has that attempt's failure as its cause:
     * that attempt may have been applied.
     */
    public void commitOffsets(String groupId, Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        ClusterRouter.Answered<OffsetCommitResponse> answered = answeredOffsetCommit(
                OffsetCommitMessages.request(groupId, -1, "", Optional.empty(), offsets), apiTimeout);
        try {
            OffsetCommitMessages.throwIfFailed(answered.response(), groupId);
        } catch (CohortException e) {
            throw ClusterRouter.afterUnansweredAttempt(e, answered.unansweredAttempt());
        }
    }

    /** Describes {@code groupId}; empty if the group does not exist. Linearizable. */
    public Optional<DescribeGroupsResponse.Group> describeGroup(String groupId) {
        return groups.describeGroup(groupId);
    }

    /** Every group of the cluster in one of {@code states} (all states if empty): {@link #listGroups(Collection, Collection)}. */
    public List<ListGroupsResponse.Group> listGroups(Collection<String> states) {
        return listGroups(states, List.of());
    }

    /**
     * Every group of the cluster in one of {@code states} and of one of {@code types} (each: all if
     * empty; compared case-insensitively), sorted by group id. As Kafka's admin client, it asks
     * every node at once (a node lists the partitions it leads) and merges the answers; it retries
     * a node answering COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE or not reachable,
     * until every partition was listed by its leader ({@link ClusterGroupListing}). Each partition
     * is read linearizably on its leader: a group whose creation was acknowledged before the call
     * is listed. Throws CohortException naming the partitions no node answered for, and each node's
     * last answer, if the budget runs out.
     */
    public List<ListGroupsResponse.Group> listGroups(Collection<String> states, Collection<String> types) {
        return groups.listGroups(states, types);
    }

    /**
     * Deletes Empty groups with their offsets. Returns each group's result: NONE, GROUP_ID_NOT_FOUND
     * or NON_EMPTY_GROUP (routing errors are retried, and thrown if the budget runs out).
     */
    public Map<String, ErrorCode> deleteGroups(Collection<String> groupIds) {
        return groups.deleteGroups(groupIds);
    }

    /**
     * Deletes the committed offsets of {@code partitions} of {@code groupId} (OffsetDelete). Returns
     * each partition's result (NONE or GROUP_SUBSCRIBED_TO_TOPIC); throws group-level errors
     * (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, routing after the budget).
     */
    public Map<TopicPartition, ErrorCode> deleteOffsets(String groupId, Collection<TopicPartition> partitions) {
        return groups.deleteOffsets(groupId, partitions);
    }

    // ---------------------------------------------------------------------------------------------
    // Cluster administration

    /** The cluster as some node sees it (the first that answers). */
    public ClusterStatusResponse clusterStatus(boolean includeStateDigest) {
        return admin.clusterStatus(includeStateDigest);
    }

    /**
     * Adds ACLs (needs ALTER on the cluster), sent to partition 0's leader. COORDINATOR_NOT_AVAILABLE
     * (no leader right now) and NOT_COORDINATOR (not the leader any more) are retried with the leader
     * learned again, within the budget ({@code ClusterRouter.partitionLeaderCall}); any other error is thrown.
     */
    public io.cohort.api.v1.CreateAclsResponse createAcls(List<io.cohort.api.v1.AclBinding> acls) {
        return admin.createAcls(acls);
    }

    /** Removes the ACLs matching each filter (needs ALTER on the cluster); retried as {@link #createAcls}. */
    public io.cohort.api.v1.DeleteAclsResponse deleteAcls(List<io.cohort.api.v1.AclBindingFilter> filters) {
        return admin.deleteAcls(filters);
    }

    /** The ACLs matching {@code filter}, as the answering node has applied them (needs DESCRIBE on the cluster). */
    public List<io.cohort.api.v1.AclBinding> describeAcls(io.cohort.api.v1.AclBindingFilter filter) {
        return admin.describeAcls(filter);
    }

    // ---- topic registry (topics.proto): per-topic errors are in the results, not thrown ----

    /**
     * Creates topics in the registry (needs ALTER on the cluster). Each result carries its topic's
     * outcome (TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, ...); a call that reached no leader of
     * partition 0 is retried with the leader learned again, within the budget.
     */
    public io.cohort.api.v1.CreateTopicsResponse createTopics(List<io.cohort.api.v1.CreateTopicsRequest.NewTopic> topics,
                                                             boolean validateOnly) {
        return admin.createTopics(topics, validateOnly);
    }

    /** Raises topics' partition counts and sets their racks (needs ALTER on the cluster); as {@link #createTopics}. */
    public io.cohort.api.v1.AlterTopicsResponse alterTopics(List<io.cohort.api.v1.AlterTopicsRequest.TopicChange> topics,
                                                           boolean validateOnly) {
        return admin.alterTopics(topics, validateOnly);
    }

    /** Deletes topics from the registry (needs ALTER on the cluster); as {@link #createTopics}. */
    public io.cohort.api.v1.DeleteTopicsResponse deleteTopics(Collection<String> names) {
        return admin.deleteTopics(names);
    }

    /**
     * The registry's topics (all if {@code names} is empty), sorted by name, as the answering node's
     * replica of partition 0 has applied them (needs DESCRIBE on the cluster).
     */
    public List<io.cohort.api.v1.TopicDescription> listTopics(Collection<String> names) {
        return admin.listTopics(names);
    }

    /**
     * The cluster as node {@code nodeId} sees it; one attempt. Throws CohortException
     * (UNKNOWN_SERVER_ERROR with the gRPC status as cause) if the node does not answer.
     */
    public ClusterStatusResponse clusterStatus(int nodeId, boolean includeStateDigest) {
        return admin.clusterStatus(nodeId, includeStateDigest);
    }

    /**
     * The group settings every partition held by node {@code nodeId} has applied; one attempt.
     * Throws CohortException (UNKNOWN_SERVER_ERROR with the gRPC status as cause) if the node does
     * not answer, or the node's error (e.g. CLUSTER_AUTHORIZATION_FAILED).
     */
    public io.cohort.api.v1.DescribeGroupConfigResponse describeGroupConfig(int nodeId) {
        return admin.describeGroupConfig(nodeId);
    }

    /**
     * Changes group settings online (needs ALTER on the cluster; names are cluster.properties keys).
     * Returns the answer, including partitions that did not take the change (its error_code then
     * names the first such error; running the change again brings them up to date). Throws
     * CohortException for a refusal of the whole change (e.g. UNSUPPORTED_VERSION: a node does not
     * read log format 3), and INVALID_REQUEST for malformed settings (gRPC INVALID_ARGUMENT).
     */
    public io.cohort.api.v1.AlterGroupConfigResponse alterGroupConfig(Map<String, String> settings) {
        return admin.alterGroupConfig(settings);
    }

    /**
     * A ClusterAdmin stub to node {@code nodeId} with this client's credentials and bearer token, for
     * calls this class has no method for (the SaveSnapshot stream of {@code cohort snapshot save}).
     */
    public ClusterAdminGrpc.ClusterAdminBlockingStub adminStub(int nodeId) {
        Endpoint endpoint = router.nodeEndpoint(nodeId);
        return ClusterAdminGrpc.newBlockingStub(channel(endpoint));
    }

    /** The configured nodes by id, as learned from the cluster. */
    public Map<Integer, String> nodes() {
        Map<Integer, String> nodes = new TreeMap<>();
        router.topology().nodes().forEach((id, endpoint) -> nodes.put(id, endpoint.toString()));
        return nodes;
    }

    /**
     * Adds node {@code nodeId} (started with {@code cluster.join}) to the cluster: a listener of each
     * of its partitions, then a voter once caught up (AddNode, needs ALTER on the cluster). Waits at
     * most {@code timeout}; sent to partition 0's leader, and retried as {@link #createAcls}.
     * Re-running a change that stopped halfway resumes it. Throws CohortException with the server's
     * error (NOT_ENOUGH_REPLICAS for the quorum check, REBALANCE_IN_PROGRESS for another change).
     */
    public io.cohort.api.v1.MembershipChangeResponse addNode(int nodeId, String raftAddress, String clientAddress,
                                                            Duration timeout) {
        return admin.addNode(nodeId, raftAddress, clientAddress, timeout);
    }

    /** Removes node {@code nodeId} from the cluster (RemoveNode); as {@link #addNode}. */
    public io.cohort.api.v1.MembershipChangeResponse removeNode(int nodeId, Duration timeout) {
        return admin.removeNode(nodeId, timeout);
    }

    /** The members and catch-up progress as node {@code nodeId} sees them; one attempt (DescribeMembership). */
    public io.cohort.api.v1.DescribeMembershipResponse describeMembership(int nodeId) {
        return admin.describeMembership(nodeId);
    }

    /** The members as the first node that answers sees them (DescribeMembership). */
    public io.cohort.api.v1.DescribeMembershipResponse describeMembership() {
        return admin.describeMembership();
    }

    /**
     * Moves the leadership of {@code partition} to {@code nodeId} and waits until that node leads it,
     * at most {@code timeout}. Throws CohortException with the server's error otherwise.
     */
    public void transferLeadership(int partition, int nodeId, Duration timeout) {
        admin.transferLeadership(partition, nodeId, timeout);
    }

    @Override
    public void close() {
        router.close();
    }

    // ---------------------------------------------------------------------------------------------
    // Call machinery

    /**
     * Sends a group call to the group's coordinator, re-routing and retrying routing errors and
     * transport failures until {@code budget} runs out ({@link ClusterRouter#groupCall}).
     */
    <R> R groupCall(String groupId, Duration attemptTimeout, Duration budget, StubCall<R> call,
            Function<R, Routing> routing) {
        return router.groupCall(groupId, attemptTimeout, budget, call, routing);
    }

    /** Tries nodes in turn until {@code call} returns non-null or the budget runs out. */
    <R> R anyNodeCall(Function<Endpoint, R> call, String what) {
        return router.anyNodeCall(call, what);
    }

    /** The channel to {@code endpoint} ({@link ClusterRouter#channel}). */
    ManagedChannel channel(Endpoint endpoint) {
        return router.channel(endpoint);
    }

    /** Settings of a {@link CohortClient}. Defaults follow Kafka's consumer where one exists. */
    public static final class Builder {
        private final List<Endpoint> bootstrap = new ArrayList<>();
        private String clientId = "cohort-client";
        private Duration requestTimeout = Duration.ofSeconds(5);
        private Duration apiTimeout = Duration.ofSeconds(60);
        private Duration retryBackoff = Duration.ofMillis(50);
        private Duration retryBackoffMax = Duration.ofMillis(250);
        private int maxInboundMessageBytes = DEFAULT_MAX_INBOUND_MESSAGE_BYTES;
        private Path caCert;
        private Path cert;
        private Path key;
        private String bearerToken;

        private Builder() {
        }

        /**
         * Speaks TLS, trusting the node certificates signed by a CA in {@code caCert} (PEM) and no
         * other; presents {@code cert} with {@code key} (PEM, PKCS#8) as the client certificate if
         * both are non-null (for nodes with {@code tls.client.auth=required|optional}). The CLI's
         * {@code --cacert/--cert/--key}. Without this call the client speaks plaintext.
         */
        public Builder tls(Path caCert, Path cert, Path key) {
            Objects.requireNonNull(caCert, "caCert (the CA that signed the nodes' certificates)");
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("a client certificate needs both cert and key, got "
                        + (cert == null ? "only key " + key : "only cert " + cert));
            }
            for (Path file : new Path[] {caCert, cert, key}) {
                if (file != null && !Files.isReadable(file)) {
                    throw new IllegalArgumentException("TLS file " + file + " does not exist or is not readable");
                }
            }
            this.caCert = caCert;
            this.cert = cert;
            this.key = key;
            return this;
        }

        /** TLS without a client certificate: {@link #tls(Path, Path, Path)} with {@code caCert} only. */
        public Builder tls(Path caCert) {
            return tls(caCert, null, null);
        }

        /**
         * A bearer token ({@code <name>.<secret>}, from the node's token file) sent as
         * {@code authorization: Bearer <token>} on every call: the calls' principal is then
         * {@code User:<name>}. Use it over TLS only; in plaintext anyone on the path can read it.
         */
        public Builder bearerToken(String token) {
            this.bearerToken = token == null || token.isBlank() ? null : token.trim();
            return this;
        }

        /**
         * Nodes to learn the cluster from, as {@code host:port} (client ports); list several so that one
         * down node does not matter. Default: {@link Bootstrap#defaultEndpoints()}.
         */
        public Builder bootstrap(String... endpoints) {
            return bootstrap(List.of(endpoints));
        }

        /** Nodes to learn the cluster from, as {@code host:port}; a single string may hold a comma-separated list. */
        public Builder bootstrap(Collection<String> endpoints) {
            for (String entry : endpoints) {
                for (String one : entry.split(",")) {
                    if (!one.isBlank()) {
                        bootstrap.add(Endpoint.parse(one));
                    }
                }
            }
            return this;
        }

        /** Kafka's client.id: the prefix of member ids and what DescribeGroups reports. */
        public Builder clientId(String clientId) {
            this.clientId = Objects.requireNonNull(clientId, "clientId");
            return this;
        }

        /**
         * The deadline of one attempt of a call that does not long-poll (default 5 s, shorter than
         * Kafka's 30 s request.timeout.ms so that a paused coordinator is given up on quickly).
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive(requestTimeout, "requestTimeout");
            return this;
        }

        /** How long a call keeps retrying before it fails (Kafka's default.api.timeout.ms, 60 s). */
        public Builder apiTimeout(Duration apiTimeout) {
            this.apiTimeout = positive(apiTimeout, "apiTimeout");
            return this;
        }

        /**
         * The first and the largest wait between retries (default 50 ms and 250 ms; Kafka's
         * retry.backoff.ms and retry.backoff.max.ms are 100 ms and 1 s). The retry after a failover
         * is what a group waits beyond the election: with a 1 s cap, a client that had retried
         * through a 300-600 ms election slept up to another second after the new leader was ready.
         */
        public Builder retryBackoff(Duration initial, Duration max) {
            this.retryBackoff = positive(initial, "retryBackoff");
            this.retryBackoffMax = positive(max, "retryBackoffMax");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("retryBackoffMax must be >= retryBackoff");
            }
            return this;
        }

        /**
         * The largest answer this client accepts (default {@value #DEFAULT_MAX_INBOUND_MESSAGE_BYTES}
         * bytes; gRPC's own default is 4 MiB). A larger answer fails at once with MESSAGE_TOO_LARGE
         * naming this limit, it is not retried.
         */
        public Builder maxInboundMessageBytes(int bytes) {
            if (bytes < 4 << 20) {
                throw new IllegalArgumentException("maxInboundMessageBytes must be at least 4 MiB (4194304), got "
                        + bytes);
            }
            this.maxInboundMessageBytes = bytes;
            return this;
        }

        /** Without {@link #bootstrap}: {@link Bootstrap#defaultEndpoints()} (COHORT_BOOTSTRAP or the local nodes). */
        public CohortClient build() {
            if (bootstrap.isEmpty()) {
                bootstrap(Bootstrap.defaultEndpoints());
            }
            return new CohortClient(this);
        }

        private static Duration positive(Duration value, String name) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }
    }
}
