package io.cohort.client;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclBindingFilter;
import io.cohort.api.v1.AddNodeRequest;
import io.cohort.api.v1.AlterGroupConfigRequest;
import io.cohort.api.v1.AlterGroupConfigResponse;
import io.cohort.api.v1.AlterTopicsRequest;
import io.cohort.api.v1.AlterTopicsResponse;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterAdminGrpc.ClusterAdminBlockingStub;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.CreateTopicsResponse;
import io.cohort.api.v1.DeleteAclsRequest;
import io.cohort.api.v1.DeleteAclsResponse;
import io.cohort.api.v1.DeleteTopicsRequest;
import io.cohort.api.v1.DeleteTopicsResponse;
import io.cohort.api.v1.DescribeAclsRequest;
import io.cohort.api.v1.DescribeAclsResponse;
import io.cohort.api.v1.DescribeGroupConfigRequest;
import io.cohort.api.v1.DescribeGroupConfigResponse;
import io.cohort.api.v1.DescribeMembershipRequest;
import io.cohort.api.v1.DescribeMembershipResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupConfigEntry;
import io.cohort.api.v1.ListTopicsRequest;
import io.cohort.api.v1.ListTopicsResponse;
import io.cohort.api.v1.MembershipChangeResponse;
import io.cohort.api.v1.RemoveNodeRequest;
import io.cohort.api.v1.TopicDescription;
import io.cohort.api.v1.TopicResult;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.api.v1.TransferLeadershipResponse;
import io.cohort.client.internal.Endpoint;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The cluster administration calls of a {@link CohortClient} (its public methods document them):
 * ACLs, the topic registry, group settings, membership changes and leadership transfers. Three
 * ways to send one: to partition 0's leader (the cluster state lives in its log), re-asked of the
 * leader learned again while the answer says "not here, or not now"; to whichever node answers
 * first (reads every node can serve); or to one named node, once.
 */
final class ClusterAdminCalls {
    /**
     * The partition whose log holds the cluster's own state (ACLs, the topic registry, group settings,
     * the membership): changes to it are carried out by its leader, so they are sent there.
     */
    private static final int CLUSTER_STATE_PARTITION = 0;

    private final ClusterRouter router;
    private final Duration requestTimeout;

    ClusterAdminCalls(ClusterRouter router, Duration requestTimeout) {
        this.router = router;
        this.requestTimeout = requestTimeout;
    }

    ClusterStatusResponse clusterStatus(boolean includeStateDigest) {
        ClusterStatusRequest request = ClusterStatusRequest.newBuilder().setIncludeStateDigest(includeStateDigest).build();
        ClusterStatusResponse response = anyNode(stub -> stub.clusterStatus(request), "asking for the cluster status");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "asking for the cluster status");
        return response;
    }

    ClusterStatusResponse clusterStatus(int nodeId, boolean includeStateDigest) {
        ClusterStatusRequest request = ClusterStatusRequest.newBuilder().setIncludeStateDigest(includeStateDigest).build();
        return oneNode(nodeId, stub -> stub.clusterStatus(request));
    }

    CreateAclsResponse createAcls(List<AclBinding> acls) {
        CreateAclsRequest request = CreateAclsRequest.newBuilder().addAllCreations(acls).build();
        CreateAclsResponse response = clusterStateLeader(stub -> stub.createAcls(request),
                CreateAclsResponse::getErrorCode, "adding ACLs");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "adding ACLs");
        return response;
    }

    DeleteAclsResponse deleteAcls(List<AclBindingFilter> filters) {
        DeleteAclsRequest request = DeleteAclsRequest.newBuilder().addAllFilters(filters).build();
        DeleteAclsResponse response = clusterStateLeader(stub -> stub.deleteAcls(request),
                DeleteAclsResponse::getErrorCode, "removing ACLs");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "removing ACLs");
        return response;
    }

    List<AclBinding> describeAcls(AclBindingFilter filter) {
        DescribeAclsRequest request = DescribeAclsRequest.newBuilder().setFilter(filter).build();
        DescribeAclsResponse response = anyNode(stub -> stub.describeAcls(request), "listing ACLs");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "listing ACLs");
        return response.getAclsList();
    }

    // ---- topic registry: per-topic errors are in the results, not thrown ----

    CreateTopicsResponse createTopics(List<CreateTopicsRequest.NewTopic> topics, boolean validateOnly) {
        CreateTopicsRequest request = CreateTopicsRequest.newBuilder().addAllTopics(topics)
                .setValidateOnly(validateOnly).build();
        return topicChange(stub -> stub.createTopics(request), CreateTopicsResponse::getResultsList, "creating topics");
    }

    AlterTopicsResponse alterTopics(List<AlterTopicsRequest.TopicChange> topics, boolean validateOnly) {
        AlterTopicsRequest request = AlterTopicsRequest.newBuilder().addAllTopics(topics)
                .setValidateOnly(validateOnly).build();
        return topicChange(stub -> stub.alterTopics(request), AlterTopicsResponse::getResultsList, "changing topics");
    }

    DeleteTopicsResponse deleteTopics(Collection<String> names) {
        DeleteTopicsRequest request = DeleteTopicsRequest.newBuilder().addAllNames(names).build();
        return topicChange(stub -> stub.deleteTopics(request), DeleteTopicsResponse::getResultsList, "deleting topics");
    }

    List<TopicDescription> listTopics(Collection<String> names) {
        ListTopicsRequest request = ListTopicsRequest.newBuilder().addAllNames(names).build();
        ListTopicsResponse response = anyNode(stub -> stub.listTopics(request), "listing topics");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "listing topics");
        return response.getTopicsList();
    }

    // ---- group settings ----

    DescribeGroupConfigResponse describeGroupConfig(int nodeId) {
        DescribeGroupConfigResponse response = oneNode(nodeId,
                stub -> stub.describeGroupConfig(DescribeGroupConfigRequest.getDefaultInstance()));
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(),
                "reading the group settings of node " + nodeId);
        return response;
    }

    AlterGroupConfigResponse alterGroupConfig(Map<String, String> settings) {
        AlterGroupConfigRequest.Builder request = AlterGroupConfigRequest.newBuilder();
        settings.forEach((name, value) -> request.addEntries(GroupConfigEntry.newBuilder().setName(name).setValue(value)));
        // Every answer is returned as it came, a routing error too (not re-asked, unlike the ACL calls):
        // the node asked has already re-proposed to the partitions whose leadership moved meanwhile.
        AlterGroupConfigResponse response = router.partitionLeaderCall(CLUSTER_STATE_PARTITION,
                endpoint -> stub(endpoint, requestTimeout.multipliedBy(3)).alterGroupConfig(request.build()),
                "changing group settings");
        if (response.getPartitionsCount() == 0) {
            ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "changing group settings");
        }
        return response;
    }

    // ---- membership and leadership ----

    MembershipChangeResponse addNode(int nodeId, String raftAddress, String clientAddress, Duration timeout) {
        AddNodeRequest request = AddNodeRequest.newBuilder().setNodeId(nodeId).setRaftAddress(raftAddress)
                .setClientAddress(clientAddress).build();
        return membershipChange(stub -> stub.addNode(request), timeout, "adding node " + nodeId);
    }

    MembershipChangeResponse removeNode(int nodeId, Duration timeout) {
        RemoveNodeRequest request = RemoveNodeRequest.newBuilder().setNodeId(nodeId).build();
        return membershipChange(stub -> stub.removeNode(request), timeout, "removing node " + nodeId);
    }

    private MembershipChangeResponse membershipChange(Function<ClusterAdminBlockingStub, MembershipChangeResponse> call,
                                                      Duration timeout, String what) {
        // COORDINATOR_NOT_AVAILABLE also when leadership moved off the node being removed.
        MembershipChangeResponse response = leaderCall(CLUSTER_STATE_PARTITION, timeout.plus(requestTimeout),
                call, MembershipChangeResponse::getErrorCode, what);
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), what);
        return response;
    }

    DescribeMembershipResponse describeMembership(int nodeId) {
        DescribeMembershipResponse response = oneNode(nodeId,
                stub -> stub.describeMembership(DescribeMembershipRequest.getDefaultInstance()));
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "describing the membership");
        return response;
    }

    DescribeMembershipResponse describeMembership() {
        DescribeMembershipResponse response = anyNode(
                stub -> stub.describeMembership(DescribeMembershipRequest.getDefaultInstance()), "describing the membership");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "describing the membership");
        return response;
    }

    void transferLeadership(int partition, int nodeId, Duration timeout) {
        TransferLeadershipRequest request = TransferLeadershipRequest.newBuilder().setPartitionIndex(partition)
                .setTargetNodeId(nodeId).setTimeoutMs((int) Math.min(Integer.MAX_VALUE, timeout.toMillis())).build();
        TransferLeadershipResponse response = leaderCall(partition, timeout.plus(requestTimeout),
                stub -> stub.transferLeadership(request), TransferLeadershipResponse::getErrorCode,
                "transferring leadership");
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(),
                "moving partition " + partition + " to node " + nodeId);
        router.forgetCoordinator(partition);
    }

    // ---- how a call is sent ----

    /** A stub to {@code endpoint} whose call must answer within {@code deadline}. */
    private ClusterAdminBlockingStub stub(Endpoint endpoint, Duration deadline) {
        return ClusterAdminGrpc.newBlockingStub(router.channel(endpoint)).withDeadlineAfter(deadline.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** To partition 0's leader, with three request timeouts per attempt (a change waits for its commit). */
    private <R> R clusterStateLeader(Function<ClusterAdminBlockingStub, R> call, Function<R, ErrorCode> errorCode,
                                     String what) {
        return leaderCall(CLUSTER_STATE_PARTITION, requestTimeout.multipliedBy(3), call, errorCode, what);
    }

    /**
     * To {@code partition}'s leader; COORDINATOR_NOT_AVAILABLE (no leader right now),
     * NOT_COORDINATOR (not the leader any more) and COORDINATOR_LOAD_IN_PROGRESS (elected and not
     * ready yet, or handing the partition over: nothing was proposed) are asked again, of the leader
     * learned again, within the client's budget ({@link ClusterRouter#partitionLeaderCall}), as
     * Kafka's admin client retries them; every other answer is final.
     */
    private <R> R leaderCall(int partition, Duration attemptDeadline, Function<ClusterAdminBlockingStub, R> call,
                             Function<R, ErrorCode> errorCode, String what) {
        return router.partitionLeaderCall(partition, endpoint -> {
            R response = call.apply(stub(endpoint, attemptDeadline));
            return notServedNow(errorCode.apply(response)) ? null : response;
        }, what);
    }

    /**
     * A topic change, to partition 0's leader: re-asked while every result is a routing error (the
     * call reached no leader of partition 0); per-topic errors are the caller's to read.
     */
    private <R> R topicChange(Function<ClusterAdminBlockingStub, R> call, Function<R, List<TopicResult>> results,
                              String what) {
        return router.partitionLeaderCall(CLUSTER_STATE_PARTITION, endpoint -> {
            R response = call.apply(stub(endpoint, requestTimeout.multipliedBy(3)));
            List<TopicResult> list = results.apply(response);
            boolean unrouted = !list.isEmpty() && list.stream().allMatch(r -> notServedNow(r.getErrorCode()));
            return unrouted ? null : response;
        }, what);
    }

    /** To the first node that answers, one request timeout per attempt. */
    private <R> R anyNode(Function<ClusterAdminBlockingStub, R> call, String what) {
        return router.anyNodeCall(endpoint -> call.apply(stub(endpoint, requestTimeout)), what);
    }

    /**
     * To node {@code nodeId}, once. Throws CohortException (UNKNOWN_SERVER_ERROR with the gRPC status
     * as cause) if the node does not answer.
     */
    private <R> R oneNode(int nodeId, Function<ClusterAdminBlockingStub, R> call) {
        Endpoint endpoint = router.nodeEndpoint(nodeId);
        try {
            return call.apply(stub(endpoint, requestTimeout));
        } catch (StatusRuntimeException e) {
            throw new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR, "node " + nodeId + " at "
                    + endpoint + " did not answer: " + e.getStatus().getCode(), e);
        }
    }

    /**
     * Whether an answer to a call for a partition's leader means "not here, or not now": no leader
     * right now, a node that does not lead the partition and did not forward the call, or a leader
     * not ready yet or handing the partition over ({@link ErrorCodes#isRouting}).
     */
    private static boolean notServedNow(ErrorCode code) {
        return ErrorCodes.isRouting(code);
    }
}
