package io.cohort.server.rpc;

import io.cohort.api.v1.AclCreationResult;
import io.cohort.api.v1.AclDeletionResult;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.DeleteAclsRequest;
import io.cohort.api.v1.DeleteAclsResponse;
import io.cohort.api.v1.DescribeAclsRequest;
import io.cohort.api.v1.DescribeAclsResponse;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.command.Command;
import io.cohort.core.response.AclChangeResponse;
import io.cohort.core.shard.Result;
import io.cohort.raft.CohortRaftNode;
import io.cohort.server.auth.AuditLog;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * ClusterAdmin's ACL calls: CreateAcls and DeleteAcls change the ACLs through partition 0's Raft
 * log; DescribeAcls reads this node's applied view. A change sent to a node that does not lead
 * partition 0 is forwarded once to the leader, with the caller's bearer token, so the leader
 * authorizes the same principal (a forwarded call is never forwarded again); a caller known by its
 * client certificate is told to send it to the leader instead, unless this node's own principal may
 * make the change ({@link ForwardedIdentity}).
 *
 * <p>Acknowledgement: the change is answered once partition 0's leader has applied it (so a
 * majority has it on disk), and after that once every node has committed it (Ratis watch
 * ALL_COMMITTED) or {@code timeout_ms} passed; {@code propagated_to_all_nodes} says which. A node
 * applies committed entries in log order right after learning the commit index, and the authorizer
 * reads the applied set, so a propagated change is enforced on every node from then on.
 */
final class AclRpcs {
    static final int DEFAULT_PROPAGATION_TIMEOUT_MS = 5_000;
    static final int ACL_PARTITION = 0;

    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    private final ForwardedIdentity forwarding;
    private final IntFunction<ManagedChannel> channelToNode;

    AclRpcs(CohortRaftNode node, RequestAuthorizer authorizer, ForwardedIdentity forwarding,
            IntFunction<ManagedChannel> channelToNode) {
        this.node = node;
        this.authorizer = authorizer;
        this.forwarding = forwarding;
        this.channelToNode = channelToNode;
    }

    // ---- CreateAcls ----

    CompletableFuture<CreateAclsResponse> createAcls(CreateAclsRequest request) {
        if (!authorizer.allowCluster("CreateAcls", AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(createError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                    Principals.principal() + " may not ALTER the cluster", request.getCreationsCount()));
        }
        List<AclBinding> bindings = new ArrayList<>();
        List<AclCreationResult> invalid = new ArrayList<>();
        boolean anyInvalid = false;
        for (io.cohort.api.v1.AclBinding proto : request.getCreationsList()) {
            String why;
            AclBinding binding = null;
            try {
                binding = AclProtos.fromProto(proto);
                why = binding.invalidReason();
            } catch (IllegalArgumentException e) {
                why = e.getMessage();
            }
            anyInvalid |= why != null;
            invalid.add(result(why == null ? ErrorCode.NONE : ErrorCode.INVALID_REQUEST, why == null ? "" : why));
            bindings.add(binding);
        }
        if (anyInvalid) {
            return CompletableFuture.completedFuture(CreateAclsResponse.newBuilder()
                    .setErrorCode(ErrorTable.toProto(ErrorCode.INVALID_REQUEST))
                    .setErrorMessage("some ACLs are malformed; none was added").addAllResults(invalid).build());
        }
        if (!node.isLeader(ACL_PARTITION)) {
            return forward(request.getCreationsCount(), stub -> ListenableFutures.toCompletable(stub.createAcls(request)),
                    (code, message) -> createError(code, message, request.getCreationsCount()));
        }
        return propose(new Command.CreateAcls(bindings), timeoutOf(request.getTimeoutMs()), "CreateAcls", "ADD_ACL")
                .thenApply(outcome -> {
                    CreateAclsResponse.Builder response = CreateAclsResponse.newBuilder()
                            .setErrorCode(io.cohort.api.v1.ErrorCode.NONE)
                            .setPropagatedToAllNodes(outcome.propagated());
                    bindings.forEach(b -> response.addResults(result(ErrorCode.NONE, "")));
                    return response.build();
                })
                .exceptionally(error -> {
                    ErrorTable.Failure failure = ErrorTable.failureOf(error, node);
                    return createError(failure.code(), failure.message(), request.getCreationsCount());
                });
    }

    private static CreateAclsResponse createError(ErrorCode code, String message, int count) {
        CreateAclsResponse.Builder response = CreateAclsResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(code)).setErrorMessage(message);
        for (int i = 0; i < count; i++) {
            response.addResults(result(code, message));
        }
        return response.build();
    }

    private static AclCreationResult result(ErrorCode code, String message) {
        return AclCreationResult.newBuilder().setErrorCode(ErrorTable.toProto(code)).setErrorMessage(message).build();
    }

    // ---- DeleteAcls ----

    CompletableFuture<DeleteAclsResponse> deleteAcls(DeleteAclsRequest request) {
        if (!authorizer.allowCluster("DeleteAcls", AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(deleteError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                    Principals.principal() + " may not ALTER the cluster", request.getFiltersCount()));
        }
        List<AclBindingFilter> filters = new ArrayList<>();
        for (io.cohort.api.v1.AclBindingFilter proto : request.getFiltersList()) {
            try {
                filters.add(AclProtos.fromProto(proto));
            } catch (IllegalArgumentException e) {
                return CompletableFuture.completedFuture(deleteError(ErrorCode.INVALID_REQUEST, e.getMessage(),
                        request.getFiltersCount()));
            }
        }
        if (!node.isLeader(ACL_PARTITION)) {
            return forward(request.getFiltersCount(), stub -> ListenableFutures.toCompletable(stub.deleteAcls(request)),
                    (code, message) -> deleteError(code, message, request.getFiltersCount()));
        }
        return propose(new Command.DeleteAcls(filters), timeoutOf(request.getTimeoutMs()), "DeleteAcls", "REMOVE_ACL")
                .thenApply(outcome -> {
                    DeleteAclsResponse.Builder response = DeleteAclsResponse.newBuilder()
                            .setErrorCode(io.cohort.api.v1.ErrorCode.NONE)
                            .setPropagatedToAllNodes(outcome.propagated());
                    for (List<AclBinding> removed : outcome.changed().changedPerEntry()) {
                        response.addResults(AclDeletionResult.newBuilder()
                                .setErrorCode(io.cohort.api.v1.ErrorCode.NONE)
                                .addAllRemoved(removed.stream().map(AclProtos::toProto).toList()));
                    }
                    return response.build();
                })
                .exceptionally(error -> {
                    ErrorTable.Failure failure = ErrorTable.failureOf(error, node);
                    return deleteError(failure.code(), failure.message(), request.getFiltersCount());
                });
    }

    private static DeleteAclsResponse deleteError(ErrorCode code, String message, int count) {
        DeleteAclsResponse.Builder response = DeleteAclsResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(code)).setErrorMessage(message);
        for (int i = 0; i < count; i++) {
            response.addResults(AclDeletionResult.newBuilder().setErrorCode(ErrorTable.toProto(code))
                    .setErrorMessage(message));
        }
        return response.build();
    }

    // ---- DescribeAcls ----

    DescribeAclsResponse describeAcls(DescribeAclsRequest request) {
        if (!authorizer.allowCluster("DescribeAcls", AclOperation.DESCRIBE)) {
            return DescribeAclsResponse.newBuilder()
                    .setErrorCode(ErrorTable.toProto(ErrorCode.CLUSTER_AUTHORIZATION_FAILED))
                    .setErrorMessage(Principals.principal() + " may not DESCRIBE the cluster").build();
        }
        AclBindingFilter filter;
        try {
            filter = request.hasFilter() ? AclProtos.fromProto(request.getFilter()) : AclBindingFilter.ANY;
        } catch (IllegalArgumentException e) {
            return DescribeAclsResponse.newBuilder().setErrorCode(ErrorTable.toProto(ErrorCode.INVALID_REQUEST))
                    .setErrorMessage(e.getMessage()).build();
        }
        DescribeAclsResponse.Builder response = DescribeAclsResponse.newBuilder()
                .setErrorCode(io.cohort.api.v1.ErrorCode.NONE);
        node.shard(ACL_PARTITION).acls().matching(filter).forEach(b -> response.addAcls(AclProtos.toProto(b)));
        return response.build();
    }

    // ---- proposing and forwarding ----

    private record Outcome(AclChangeResponse changed, boolean propagated) {
    }

    private CompletableFuture<Outcome> propose(Command command, int timeoutMs, String rpc, String change) {
        String principal = Principals.principal();
        String host = Principals.host();
        return node.submit(ACL_PARTITION, command).thenCompose((Result result) -> {
            AclChangeResponse changed = (AclChangeResponse) result.immediateResponse();
            changed.changedPerEntry().forEach(list -> list.forEach(binding ->
                    AuditLog.aclChange(rpc, principal, host, change, binding.toString())));
            long index = node.status(ACL_PARTITION).appliedIndex();
            return node.watchAllCommitted(ACL_PARTITION, index, timeoutMs)
                    .handle((reply, error) -> new Outcome(changed, error == null && reply.isSuccess()));
        });
    }

    private interface StubCall<T> {
        CompletableFuture<T> call(ClusterAdminGrpc.ClusterAdminFutureStub stub);
    }

    private interface ErrorResponse<T> {
        T of(ErrorCode code, String message);
    }

    private <T> CompletableFuture<T> forward(int count, StubCall<T> call, ErrorResponse<T> error) {
        int leader = node.leaderOf(ACL_PARTITION);
        if (leader < 0 || leader == node.nodeId() || CallContext.FORWARDED_BY.get() != null) {
            return CompletableFuture.completedFuture(error.of(ErrorCode.COORDINATOR_NOT_AVAILABLE, "node "
                    + node.nodeId() + " does not lead partition 0, which holds the ACLs, and knows no other leader; retry"));
        }
        String refusal = forwarding.refusal(leader, "partition 0, which holds the ACLs");
        if (refusal != null) {
            return CompletableFuture.completedFuture(error.of(ErrorCode.NOT_COORDINATOR, refusal));
        }
        Metadata headers = CallContext.forwardingHeaders(node.nodeId(), Principals.bearerHeader());
        ClusterAdminGrpc.ClusterAdminFutureStub stub = ClusterAdminGrpc.newFutureStub(channelToNode.apply(leader))
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(30, TimeUnit.SECONDS);
        return call.call(stub).exceptionally(e -> error.of(ErrorCode.COORDINATOR_NOT_AVAILABLE,
                "forwarding to node " + leader + ", the leader of partition 0, failed: " + e));
    }


    private static int timeoutOf(int requestedMs) {
        return requestedMs > 0 ? requestedMs : DEFAULT_PROPAGATION_TIMEOUT_MS;
    }
}
