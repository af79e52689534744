package io.cohort.server.rpc;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.ReplicaProgress;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.api.v1.TransferLeadershipResponse;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.DeleteAclsRequest;
import io.cohort.api.v1.DeleteAclsResponse;
import io.cohort.api.v1.DescribeAclsRequest;
import io.cohort.api.v1.DescribeAclsResponse;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.server.auth.AclsNotLoadedException;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.PartitionStateMachine;
import io.cohort.raft.PartitionStatus;
import io.cohort.raft.log.LogCodec;
import io.cohort.server.metrics.RpcMetrics;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ClusterAdmin gRPC service: this node's view of the cluster, and leadership transfer.
 *
 * <p>TransferLeadership may be sent to any node. Only a partition's leader can hand leadership
 * over, so a node that does not lead the partition forwards the request, once, to the node it
 * believes leads it, through a gRPC channel to that node's client port, and relays the answer; the
 * response has no leader-hint field, and an operator should not have to find the leader first. A
 * forwarded request is never forwarded again: if leadership moved meanwhile the answer is
 * COORDINATOR_NOT_AVAILABLE, which says "retry".
 */
public class ClusterAdminService extends ClusterAdminGrpc.ClusterAdminImplBase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterAdminService.class);

    /** How often a state digest is retried while writes keep the partition busy. */
    static final int STATE_DIGEST_ATTEMPTS = 100;
    /** Extra time a forwarded transfer may take beyond its own timeout (the hop and the reply). */
    static final long FORWARD_SLACK_MS = 5_000;

    private final CohortRaftNode node;
    private final PeerChannels peers;
    private final RequestAuthorizer authorizer;
    private final ForwardedIdentity forwarding;
    private final AclRpcs acls;
    private final GroupConfigRpcs groupConfig;
    private final MembershipRpcs membership;
    private final SnapshotRpcs snapshots;
    private final TopicRpcs topics;
    private volatile boolean stopping;

    public ClusterAdminService(CohortRaftNode node) {
        this(node, RequestAuthorizer.ALLOW_ALL);
    }

    public ClusterAdminService(CohortRaftNode node, RequestAuthorizer authorizer) {
        this(node, PeerChannels.plaintext(), authorizer);
    }

    ClusterAdminService(CohortRaftNode node, Function<NodeAddress, ManagedChannel> channelFactory) {
        this(node, channelFactory, RequestAuthorizer.ALLOW_ALL);
    }

    /** {@code channelFactory}: the channels to other nodes' client ports for forwarded calls (plaintext). */
    public ClusterAdminService(CohortRaftNode node, Function<NodeAddress, ManagedChannel> channelFactory,
                        RequestAuthorizer authorizer) {
        this(node, channelFactory, authorizer, () -> Principals.ANONYMOUS);
    }

    /**
     * {@code channelFactory}: the channels to other nodes' client ports for forwarded calls;
     * {@code nodePrincipal}: the principal other nodes give this node's calls on those channels (its
     * client certificate's, or ANONYMOUS without one), which decides what it may forward
     * ({@link ForwardedIdentity}).
     */
    public ClusterAdminService(CohortRaftNode node, Function<NodeAddress, ManagedChannel> channelFactory,
                        RequestAuthorizer authorizer, java.util.function.Supplier<String> nodePrincipal) {
        this.node = node;
        this.peers = new PeerChannels(node, channelFactory);
        this.authorizer = authorizer;
        this.forwarding = new ForwardedIdentity(node, authorizer, nodePrincipal);
        this.acls = new AclRpcs(node, authorizer, forwarding, this::channel);
        this.groupConfig = new GroupConfigRpcs(node, authorizer, forwarding, this::channel);
        this.membership = new MembershipRpcs(node, authorizer, forwarding, this::channel);
        this.snapshots = new SnapshotRpcs(node, authorizer);
        this.topics = new TopicRpcs(node, authorizer, forwarding, this::channel);
    }

    /**
     * The service with its interceptor, which marks calls forwarded by another node so they are never
     * forwarded again. Add this to the server rather than the service itself ({@code bindService} is
     * final in the generated base class).
     */
    public ServerServiceDefinition definition() {
        return ServerInterceptors.intercept(this, CallContext.INTERCEPTOR, ThrownStatus.INTERCEPTOR);
    }

    /** Refuses further transfers (COORDINATOR_NOT_AVAILABLE) and closes the forwarding channels. */
    @Override
    public void close() {
        stopping = true;
        snapshots.close();
        membership.close();
        peers.close();
    }

    // ---- ClusterStatus ----

    @Override
    public void clusterStatus(ClusterStatusRequest request, StreamObserver<ClusterStatusResponse> observer) {
        RpcCall<ClusterStatusResponse> call = RpcCall.start("ClusterStatus", observer, RpcMetrics.NONE);
        try {
            if (request.getRoutingOnly()) {
                call.respond(routingStatus(), ErrorCode.NONE.name());
                return;
            }
            // Quietly: every CohortClient asks this once at start to learn the cluster's shape, so an
            // audit line here would log every ordinary consumer of a secured cluster as "denied".
            if (!authorizer.allowClusterQuietly("ClusterStatus", AclOperation.DESCRIBE)) {
                // The nodes and the partition count stay open to every client, like Kafka's Metadata:
                // clients learn the cluster's shape from them. The Raft details need DESCRIBE.
                ClusterStatusResponse full = status(false);
                call.respond(ClusterStatusResponse.newBuilder().setNodeId(node.nodeId())
                        .setPartitionCount(full.getPartitionCount()).addAllNodes(full.getNodesList())
                        .setReplicationFactor(full.getReplicationFactor())
                        .setMaxLogFormatVersion(LogCodec.MAX_READABLE_FORMAT_VERSION)
                        .setErrorCode(ErrorTable.toProto(ErrorCode.CLUSTER_AUTHORIZATION_FAILED))
                        .setErrorMessage(Principals.principal() + " may not DESCRIBE the cluster").build(),
                        ErrorCode.CLUSTER_AUTHORIZATION_FAILED.name());
                return;
            }
            call.respond(status(request.getIncludeStateDigest()), ErrorCode.NONE.name());
        } catch (RuntimeException e) {
            failUnexpected(call, "could not read the cluster status", e);
        }
    }

    /**
     * The partitions this node holds with their leader and term: what the other nodes' routing
     * ({@code PartitionLeaderDirectory}) learns the leaders of partitions they do not hold from.
     */
    private ClusterStatusResponse routingStatus() {
        ClusterStatusResponse.Builder response = ClusterStatusResponse.newBuilder()
                .setNodeId(node.nodeId())
                .setPartitionCount(node.partitions())
                .setReplicationFactor(node.spec().replicationFactor())
                .setMaxLogFormatVersion(LogCodec.MAX_READABLE_FORMAT_VERSION);
        for (int partition : node.hostedPartitions()) {
            PartitionStatus status = node.status(partition);
            response.addPartitions(io.cohort.api.v1.PartitionStatus.newBuilder()
                    .setPartitionIndex(partition)
                    .setRaftGroupId(status.raftGroupId())
                    .setLeaderNodeId(node.leaderOf(partition))
                    .setTerm(status.term())
                    .setHosted(true)
                    .addAllReplicaNodeIds(node.spec().replicas(partition))
                    .addAllCommittedVoterNodeIds(node.committedVotersIfLeader(partition)));
        }
        return response.build();
    }

    private ClusterStatusResponse status(boolean includeStateDigest) {
        // Read partition 0's configuration now, not the 500 ms view: an operator checks this list
        // right after add-node or remove-node; node.spec() below follows it.
        io.cohort.raft.Membership membership = node.membershipNow();
        ClusterStatusResponse.Builder response = ClusterStatusResponse.newBuilder()
                .setNodeId(node.nodeId())
                .setPartitionCount(node.partitions())
                .setReplicationFactor(node.spec().replicationFactor())
                .setMaxLogFormatVersion(LogCodec.MAX_READABLE_FORMAT_VERSION)
                .setLeaderRebalanceDisabled(!node.leaderRebalanceEnabled());
        for (NodeAddress peer : node.spec().peers()) {
            response.addNodes(NodeStatus.newBuilder()
                    .setNodeId(peer.nodeId())
                    .setHost(peer.host())
                    .setRaftPort(peer.raftPort())
                    .setClientPort(peer.clientPort())
                    .setIsSelf(peer.nodeId() == node.nodeId())
                    .setRole(roleOf(membership, peer.nodeId())));
        }
        for (int partition = 0; partition < node.partitions(); partition++) {
            response.addPartitions(partitionStatus(partition, includeStateDigest));
        }
        return response.build();
    }

    private static io.cohort.api.v1.MemberRole roleOf(io.cohort.raft.Membership membership, int nodeId) {
        if (membership.isVoter(nodeId)) {
            return io.cohort.api.v1.MemberRole.MEMBER_ROLE_VOTER;
        }
        return membership.isListener(nodeId) ? io.cohort.api.v1.MemberRole.MEMBER_ROLE_LISTENER
                : io.cohort.api.v1.MemberRole.MEMBER_ROLE_UNSPECIFIED;
    }

    private io.cohort.api.v1.PartitionStatus partitionStatus(int partition, boolean includeStateDigest) {
        if (!node.hosts(partition)) {
            return io.cohort.api.v1.PartitionStatus.newBuilder()
                    .setPartitionIndex(partition)
                    .setRaftGroupId(node.spec().raftGroupId(partition).getUuid().toString())
                    .setLeaderNodeId(node.leaderOf(partition))
                    .setTerm(-1).setCommitIndex(-1).setAppliedIndex(-1).setSnapshotIndex(-1).setStateDigestIndex(-1)
                    .setHosted(false)
                    .addAllReplicaNodeIds(node.spec().replicas(partition))
                    .build();
        }
        PartitionStatus status = node.status(partition);
        io.cohort.api.v1.PartitionStatus.Builder builder = io.cohort.api.v1.PartitionStatus.newBuilder()
                .setPartitionIndex(partition)
                .setRaftGroupId(status.raftGroupId())
                .setLeaderNodeId(status.leaderNodeId())
                .setTerm(status.term())
                .setLeaderReady(status.isLeader() && status.leaderReady())
                .setCommitIndex(status.commitIndex())
                .setAppliedIndex(status.appliedIndex())
                .setSnapshotIndex(status.snapshotIndex())
                .setStateDigestIndex(-1)
                .setHosted(true)
                .addAllReplicaNodeIds(node.spec().replicas(partition));
        for (PartitionStatus.Replica replica : status.replicas()) {
            builder.addReplicas(ReplicaProgress.newBuilder()
                    .setNodeId(replica.nodeId())
                    .setMatchIndex(replica.matchIndex())
                    .setNextIndex(replica.nextIndex())
                    .setLagEntries(replica.lagEntries()));
        }
        if (includeStateDigest) {
            PartitionStateMachine.StateDigest digest = node.stateMachine(partition).stateDigest(STATE_DIGEST_ATTEMPTS);
            if (digest != null) {
                builder.setStateDigest(digest.digest()).setStateDigestIndex(digest.appliedIndex());
            }
        }
        return builder.build();
    }

    // ---- TransferLeadership ----

    @Override
    public void transferLeadership(TransferLeadershipRequest request,
                                   StreamObserver<TransferLeadershipResponse> observer) {
        RpcCall<TransferLeadershipResponse> call = RpcCall.start("TransferLeadership", observer, RpcMetrics.NONE);
        try {
            if (request.getPartitionIndex() < 0 || request.getTimeoutMs() <= 0) {
                call.fail(Status.INVALID_ARGUMENT.withDescription("partition_index must be >= 0 and timeout_ms > 0; got "
                        + request.getPartitionIndex() + " and " + request.getTimeoutMs()));
                return;
            }
            TransferLeadershipResponse refusal = refusal(request);
            if (refusal != null) {
                answer(call, refusal);
            } else if (node.isLeader(request.getPartitionIndex())) {
                transferFromHere(call, request);
            } else {
                forward(call, request);
            }
        } catch (AclsNotLoadedException e) {
            answer(call, transferResponse(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, e.getStatus().getDescription()));
        } catch (RuntimeException e) {
            LOG.error("TransferLeadership failed", e);
            answer(call, transferResponse(ErrorCode.UNKNOWN_SERVER_ERROR, "unexpected server error: " + e));
        }
    }

    private TransferLeadershipResponse refusal(TransferLeadershipRequest request) {
        if (!authorizer.allowCluster("TransferLeadership", AclOperation.ALTER)) {
            return transferResponse(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, Principals.principal()
                    + " may not ALTER the cluster");
        }
        if (stopping) {
            return transferResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE, "node " + node.nodeId() + " is shutting down");
        }
        if (request.getPartitionIndex() >= node.partitions()) {
            return transferResponse(ErrorCode.INVALID_REQUEST, "partition " + request.getPartitionIndex()
                    + " does not exist; the cluster has " + node.partitions() + " partitions");
        }
        if (!node.spec().hasPeer(request.getTargetNodeId())) {
            return transferResponse(ErrorCode.INVALID_REQUEST, "node " + request.getTargetNodeId()
                    + " is not a node of the cluster");
        }
        boolean targetHolds = node.hosts(request.getPartitionIndex())
                ? node.groupVoters(request.getPartitionIndex()).contains(request.getTargetNodeId())
                : node.spec().hosts(request.getTargetNodeId(), request.getPartitionIndex());
        if (!targetHolds) {
            return transferResponse(ErrorCode.INVALID_REQUEST, "node " + request.getTargetNodeId()
                    + " holds no replica of partition " + request.getPartitionIndex() + " (its replicas: "
                    + node.spec().replicas(request.getPartitionIndex()) + ")");
        }
        return null;
    }

    private void transferFromHere(RpcCall<TransferLeadershipResponse> call, TransferLeadershipRequest request) {
        int partition = request.getPartitionIndex();
        int target = request.getTargetNodeId();
        if (target == node.nodeId()) {
            answer(call, transferResponse(ErrorCode.NONE, ""));
            return;
        }
        node.transferLeadership(partition, target, request.getTimeoutMs()).whenComplete((reply, error) ->
                answer(call, transferOutcome(partition, target, reply, error)));
    }

    private TransferLeadershipResponse transferOutcome(int partition, int target, RaftClientReply reply,
                                                       Throwable error) {
        if ((error == null && reply.isSuccess()) || node.leaderOf(partition) == target) {
            return transferResponse(ErrorCode.NONE, "");
        }
        Throwable cause = error != null ? ErrorTable.unwrap(error) : reply.getException();
        String text = String.valueOf(cause);
        String lower = text.toLowerCase(Locale.ROOT);
        if (cause instanceof TimeoutException || lower.contains("timed_out") || lower.contains("timed out")
                || lower.contains("timeout")) {
            return transferResponse(ErrorCode.REQUEST_TIMED_OUT, "node " + target + " did not become the leader of "
                    + "partition " + partition + " in time; it may still: " + text);
        }
        if (cause instanceof NotLeaderException) {
            return transferResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE, "leadership of partition " + partition
                    + " moved during the transfer; retry: " + text);
        }
        return transferResponse(ErrorCode.UNKNOWN_SERVER_ERROR, "the transfer failed: " + text);
    }

    private void forward(RpcCall<TransferLeadershipResponse> call, TransferLeadershipRequest request) {
        int leader = node.leaderOf(request.getPartitionIndex());
        if (leader < 0 || leader == node.nodeId() || CallContext.FORWARDED_BY.get() != null) {
            answer(call, transferResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE, "node " + node.nodeId()
                    + " does not lead partition " + request.getPartitionIndex() + " and knows no other leader; retry"));
            return;
        }
        String refusal = forwarding.refusal(leader, "partition " + request.getPartitionIndex());
        if (refusal != null) {
            answer(call, transferResponse(ErrorCode.NOT_COORDINATOR, refusal));
            return;
        }
        Metadata headers = CallContext.forwardingHeaders(node.nodeId(), Principals.bearerHeader());
        ClusterAdminGrpc.ClusterAdminStub stub = ClusterAdminGrpc.newStub(channel(leader))
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(request.getTimeoutMs() + FORWARD_SLACK_MS, TimeUnit.MILLISECONDS);
        stub.transferLeadership(request, new StreamObserver<>() {
            @Override
            public void onNext(TransferLeadershipResponse response) {
                answer(call, response);
            }

            @Override
            public void onError(Throwable error) {
                Status status = error instanceof StatusRuntimeException s ? s.getStatus() : Status.fromThrowable(error);
                ErrorCode code = status.getCode() == Status.Code.DEADLINE_EXCEEDED
                        ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.COORDINATOR_NOT_AVAILABLE;
                answer(call, transferResponse(code, "forwarding to node " + leader + ", the leader of partition "
                        + request.getPartitionIndex() + ", failed: " + status));
            }

            @Override
            public void onCompleted() {
                // The answer went out in onNext.
            }
        });
    }

    // ---- ACLs (AclRpcs) ----

    @Override
    public void createAcls(CreateAclsRequest request, StreamObserver<CreateAclsResponse> observer) {
        RpcCall<CreateAclsResponse> call = RpcCall.start("CreateAcls", observer, RpcMetrics.NONE);
        if (refusedWhileStopping(call)) {
            return;
        }
        acls.createAcls(request).whenComplete((response, error) -> respond(call, response, error,
                r -> r.getErrorCode().name()));
    }

    @Override
    public void deleteAcls(DeleteAclsRequest request, StreamObserver<DeleteAclsResponse> observer) {
        RpcCall<DeleteAclsResponse> call = RpcCall.start("DeleteAcls", observer, RpcMetrics.NONE);
        if (refusedWhileStopping(call)) {
            return;
        }
        acls.deleteAcls(request).whenComplete((response, error) -> respond(call, response, error,
                r -> r.getErrorCode().name()));
    }

    @Override
    public void describeAcls(DescribeAclsRequest request, StreamObserver<DescribeAclsResponse> observer) {
        RpcCall<DescribeAclsResponse> call = RpcCall.start("DescribeAcls", observer, RpcMetrics.NONE);
        try {
            DescribeAclsResponse response = acls.describeAcls(request);
            call.respond(response, response.getErrorCode().name());
        } catch (RuntimeException e) {
            failUnexpected(call, "could not read the ACLs", e);
        }
    }

    // ---- group settings (GroupConfigRpcs) ----

    @Override
    public void describeGroupConfig(io.cohort.api.v1.DescribeGroupConfigRequest request,
                                    StreamObserver<io.cohort.api.v1.DescribeGroupConfigResponse> observer) {
        RpcCall<io.cohort.api.v1.DescribeGroupConfigResponse> call =
                RpcCall.start("DescribeGroupConfig", observer, RpcMetrics.NONE);
        try {
            io.cohort.api.v1.DescribeGroupConfigResponse response = groupConfig.describe(request);
            call.respond(response, response.getErrorCode().name());
        } catch (RuntimeException e) {
            failUnexpected(call, "could not read the group settings", e);
        }
    }

    @Override
    public void alterGroupConfig(io.cohort.api.v1.AlterGroupConfigRequest request,
                                 StreamObserver<io.cohort.api.v1.AlterGroupConfigResponse> observer) {
        RpcCall<io.cohort.api.v1.AlterGroupConfigResponse> call =
                RpcCall.start("AlterGroupConfig", observer, RpcMetrics.NONE);
        if (refusedWhileStopping(call)) {
            return;
        }
        try {
            groupConfig.alter(request).whenComplete((response, error) -> {
                Throwable cause = error == null ? null : ErrorTable.unwrap(error);
                if (cause instanceof IllegalArgumentException) {
                    call.fail(Status.INVALID_ARGUMENT.withDescription(cause.getMessage()));
                } else {
                    respond(call, response, error, r -> r.getErrorCode().name());
                }
            });
        } catch (IllegalArgumentException e) {
            call.fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
        }
    }

    // ---- Membership (MembershipRpcs) ----

    @Override
    public void addNode(io.cohort.api.v1.AddNodeRequest request,
                        StreamObserver<io.cohort.api.v1.MembershipChangeResponse> observer) {
        membershipChange("AddNode", observer, () -> membership.withMembers(membership.addNode(request)));
    }

    @Override
    public void removeNode(io.cohort.api.v1.RemoveNodeRequest request,
                           StreamObserver<io.cohort.api.v1.MembershipChangeResponse> observer) {
        membershipChange("RemoveNode", observer, () -> membership.withMembers(membership.removeNode(request)));
    }

    @Override
    public void hostReplica(io.cohort.api.v1.HostReplicaRequest request,
                            StreamObserver<io.cohort.api.v1.MembershipChangeResponse> observer) {
        membershipChange("HostReplica", observer, () -> membership.hostReplica(request));
    }

    @Override
    public void movePartition(io.cohort.api.v1.MovePartitionRequest request,
                              StreamObserver<io.cohort.api.v1.MembershipChangeResponse> observer) {
        membershipChange("MovePartition", observer, () -> membership.movePartition(request));
    }

    /** A membership RPC: refused while the node stops, else answered when {@code change} completes. */
    private void membershipChange(String rpc, StreamObserver<io.cohort.api.v1.MembershipChangeResponse> observer,
                                  java.util.function.Supplier<java.util.concurrent.CompletableFuture<
                                          io.cohort.api.v1.MembershipChangeResponse>> change) {
        RpcCall<io.cohort.api.v1.MembershipChangeResponse> call = RpcCall.start(rpc, observer, RpcMetrics.NONE);
        if (!refusedWhileStopping(call)) {
            change.get().whenComplete((response, error) -> respond(call, response, error,
                    r -> r.getErrorCode().name()));
        }
    }

    @Override
    public void describeMembership(io.cohort.api.v1.DescribeMembershipRequest request,
                                   StreamObserver<io.cohort.api.v1.DescribeMembershipResponse> observer) {
        RpcCall<io.cohort.api.v1.DescribeMembershipResponse> call = RpcCall.start("DescribeMembership", observer,
                RpcMetrics.NONE);
        respond(call, membership.describe(request), null, r -> r.getErrorCode().name());
    }

    @Override
    public void joinInfo(io.cohort.api.v1.JoinInfoRequest request,
                         StreamObserver<io.cohort.api.v1.JoinInfoResponse> observer) {
        RpcCall<io.cohort.api.v1.JoinInfoResponse> call = RpcCall.start("JoinInfo", observer, RpcMetrics.NONE);
        respond(call, membership.joinInfo(request), null, r -> r.getErrorCode().name());
    }

    // ---- SaveSnapshot (SnapshotRpcs) ----

    @Override
    public void saveSnapshot(io.cohort.api.v1.SaveSnapshotRequest request,
                             StreamObserver<io.cohort.api.v1.SaveSnapshotChunk> observer) {
        snapshots.saveSnapshot(request, observer, stopping);
    }

    // ---- topic registry (TopicRpcs) ----

    @Override
    public void createTopics(io.cohort.api.v1.CreateTopicsRequest request,
                             StreamObserver<io.cohort.api.v1.CreateTopicsResponse> observer) {
        changeTopics(RpcCall.start("CreateTopics", observer, RpcMetrics.NONE), () -> topics.createTopics(request),
                io.cohort.api.v1.CreateTopicsResponse::getResultsList);
    }

    @Override
    public void alterTopics(io.cohort.api.v1.AlterTopicsRequest request,
                            StreamObserver<io.cohort.api.v1.AlterTopicsResponse> observer) {
        changeTopics(RpcCall.start("AlterTopics", observer, RpcMetrics.NONE), () -> topics.alterTopics(request),
                io.cohort.api.v1.AlterTopicsResponse::getResultsList);
    }

    @Override
    public void deleteTopics(io.cohort.api.v1.DeleteTopicsRequest request,
                             StreamObserver<io.cohort.api.v1.DeleteTopicsResponse> observer) {
        changeTopics(RpcCall.start("DeleteTopics", observer, RpcMetrics.NONE), () -> topics.deleteTopics(request),
                io.cohort.api.v1.DeleteTopicsResponse::getResultsList);
    }

    @Override
    public void listTopics(io.cohort.api.v1.ListTopicsRequest request,
                           StreamObserver<io.cohort.api.v1.ListTopicsResponse> observer) {
        RpcCall<io.cohort.api.v1.ListTopicsResponse> call = RpcCall.start("ListTopics", observer, RpcMetrics.NONE);
        try {
            respond(call, topics.listTopics(request), null, r -> r.getErrorCode().name());
        } catch (IllegalArgumentException e) {
            call.fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
        }
    }

    /** A topic change: INVALID_ARGUMENT for a malformed request, else the first result's error is the outcome label. */
    private <T> void changeTopics(RpcCall<T> call, java.util.function.Supplier<java.util.concurrent.CompletableFuture<T>> change,
                                  Function<T, java.util.List<io.cohort.api.v1.TopicResult>> resultsOf) {
        if (refusedWhileStopping(call)) {
            return;
        }
        try {
            change.get().whenComplete((response, error) -> respond(call, response, error, r -> TopicRpcs.outcomeOf(resultsOf.apply(r))));
        } catch (IllegalArgumentException e) {
            call.fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
        }
    }

    private boolean refusedWhileStopping(RpcCall<?> call) {
        if (stopping) {
            call.fail(Status.UNAVAILABLE.withDescription("node " + node.nodeId() + " is shutting down"));
        }
        return stopping;
    }

    /**
     * Ends {@code call} after {@code error}, which the handler did not expect to answer: UNAVAILABLE
     * while this node's ACLs are still loading ({@link AclsNotLoadedException}, retried by clients),
     * else INTERNAL ("{@code what}: error") with an ERROR log.
     */
    private static void failUnexpected(RpcCall<?> call, String what, Throwable error) {
        if (ErrorTable.unwrap(error) instanceof AclsNotLoadedException notLoaded) {
            call.fail(notLoaded.getStatus());
            return;
        }
        LOG.error("{} failed", call.rpc(), error);
        call.fail(Status.INTERNAL.withDescription(what + ": " + error));
    }

    private static <T> void respond(RpcCall<T> call, T response, Throwable error, Function<T, String> errorOf) {
        if (error != null) {
            failUnexpected(call, call.rpc() + " failed", error);
        } else {
            call.respond(response, errorOf.apply(response));
        }
    }

    private ManagedChannel channel(int nodeId) {
        return peers.channel(nodeId);
    }

    private static void answer(RpcCall<TransferLeadershipResponse> call, TransferLeadershipResponse response) {
        call.respond(response, response.getErrorCode().name());
    }

    private static TransferLeadershipResponse transferResponse(ErrorCode code, String message) {
        return TransferLeadershipResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(code))
                .setErrorMessage(message)
                .build();
    }
}
