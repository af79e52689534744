package io.cohort.server.rpc;

import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DeleteGroupsResponse;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.command.Command;
import io.cohort.raft.CohortRaftNode;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteGroups of the GroupCoordinator service: DELETE checked on each distinct group (a denied
 * group gets its own result, the rest go on, as in Kafka), then one DeleteGroups command per
 * partition this node leads; the groups of other partitions get routing errors. The answer keeps
 * the request's order. {@link GroupCoordinatorService} delegates to it.
 */
final class DeleteGroupsRpc {
    private final RpcContext context;
    private final CohortRaftNode node;

    DeleteGroupsRpc(RpcContext context) {
        this.context = context;
        this.node = context.node();
    }

    void deleteGroups(DeleteGroupsRequest request, StreamObserver<DeleteGroupsResponse> observer) {
        List<String> groupIds = List.copyOf(new LinkedHashSet<>(request.getGroupIdsList()));
        Serving<DeleteGroupsResponse> serving = context.serving("DeleteGroups", observer,
                failure -> DeleteGroupsResponse.newBuilder().addAllResults(groupIds.stream()
                        .map(id -> ApiMapper.deleteGroupError(id, failure)).toList()).build(),
                response -> ErrorTable.firstError(response.getResultsList().stream()
                        .map(DeleteGroupsResponse.Result::getErrorCode).toList()));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            Map<Integer, List<String>> byPartition = new LinkedHashMap<>();
            List<DeleteGroupsResponse.Result> denied = new ArrayList<>();
            for (String groupId : groupIds) {
                // Kafka: DELETE on each distinct group; a denied group gets its own result, the rest go on.
                if (context.authorizer().allowGroup("DeleteGroups", AclOperation.DELETE, groupId)) {
                    byPartition.computeIfAbsent(node.partitionFor(groupId), p -> new ArrayList<>()).add(groupId);
                } else {
                    denied.add(ApiMapper.deleteGroupError(groupId, GroupDenials.denied(AclOperation.DELETE, groupId)));
                }
            }
            List<CompletableFuture<List<DeleteGroupsResponse.Result>>> deletions = new ArrayList<>();
            deletions.add(CompletableFuture.completedFuture(denied));
            byPartition.forEach((partition, ids) -> deletions.add(deleteGroupsOf(partition, ids)));
            CompletableFuture.allOf(deletions.toArray(CompletableFuture[]::new)).whenComplete((ignored, error) ->
                    serving.answerLater(() -> deleteGroupsResponse(groupIds, deletions)));
        });
    }

    /** One DeleteGroups command per partition led here; the groups of the others get routing errors. */
    private CompletableFuture<List<DeleteGroupsResponse.Result>> deleteGroupsOf(int partition, List<String> groupIds) {
        Failure rejected = context.isStopping() ? ErrorTable.shuttingDown(node.nodeId()) : ErrorTable.routingFailure(node, partition);
        if (rejected != null) {
            return CompletableFuture.completedFuture(deleteGroupErrors(groupIds, rejected));
        }
        return node.submit(partition, new Command.DeleteGroups(groupIds)).handleAsync((result, error) -> {
            if (error != null) {
                return deleteGroupErrors(groupIds, ErrorTable.failureOf(error, node));
            }
            return ((io.cohort.core.response.DeleteGroupsResponse) GroupCoordinatorService.immediate(result)).results().stream()
                    .map(ApiMapper::toProto).toList();
        }, context.parked()::deliver);
    }

    private static List<DeleteGroupsResponse.Result> deleteGroupErrors(List<String> groupIds, Failure failure) {
        return groupIds.stream().map(id -> ApiMapper.deleteGroupError(id, failure)).toList();
    }

    private DeleteGroupsResponse deleteGroupsResponse(List<String> groupIds,
                                                      List<CompletableFuture<List<DeleteGroupsResponse.Result>>> parts) {
        Map<String, DeleteGroupsResponse.Result> byGroup = new HashMap<>();
        for (CompletableFuture<List<DeleteGroupsResponse.Result>> part : parts) {
            for (DeleteGroupsResponse.Result result : part.join()) {
                byGroup.put(result.getGroupId(), result);
            }
        }
        DeleteGroupsResponse.Builder response = DeleteGroupsResponse.newBuilder();
        for (String groupId : groupIds) {
            DeleteGroupsResponse.Result result = byGroup.get(groupId);
            if (result == null) {
                throw new IllegalStateException("no DeleteGroups result for group '" + groupId + "'");
            }
            response.addResults(result);
        }
        return response.build();
    }
}
