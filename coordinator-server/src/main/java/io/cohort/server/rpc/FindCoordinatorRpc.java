package io.cohort.server.rpc;

import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.NodeEndpoint;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.raft.CohortRaftNode;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.grpc.stub.StreamObserver;

/**
 * FindCoordinator of the GroupCoordinator service: each key's coordinator is the node this node
 * knows to lead the group's partition (no Raft round; {@code PartitionLeaderDirectory} for the
 * partitions this node does not hold), with DESCRIBE on the group checked per key as Kafka's
 * FindCoordinator v4+ does. While the node stops, every key is COORDINATOR_NOT_AVAILABLE so clients
 * ask another node. {@link GroupCoordinatorService} delegates to it.
 */
final class FindCoordinatorRpc {
    private final RpcContext context;
    private final CohortRaftNode node;

    FindCoordinatorRpc(RpcContext context) {
        this.context = context;
        this.node = context.node();
    }

    void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> observer) {
        Serving<FindCoordinatorResponse> serving = context.serving("FindCoordinator", observer,
                failure -> findCoordinatorError(request, failure),
                response -> ErrorTable.firstError(response.getCoordinatorsList().stream().map(c -> c.getErrorCode()).toList()));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            FindCoordinatorResponse.Builder response = FindCoordinatorResponse.newBuilder();
            for (String groupId : request.getGroupIdsList()) {
                // Kafka (FindCoordinator v4+): DESCRIBE on the group, an error per key.
                response.addCoordinators(context.authorizer().allowGroup("FindCoordinator", AclOperation.DESCRIBE, groupId)
                        ? coordinatorOf(groupId) : noCoordinator(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED,
                        GroupDenials.denied(AclOperation.DESCRIBE, groupId).message()));
            }
            serving.answer(response.build());
        });
    }

    private FindCoordinatorResponse.Coordinator coordinatorOf(String groupId) {
        int partition = node.partitionFor(groupId);
        boolean nodeStopping = context.isStopping();
        NodeEndpoint leader = nodeStopping ? null : ErrorTable.endpointOf(node.spec(), node.leaderOf(partition));
        if (leader == null) {
            String reason = nodeStopping ? "node " + node.nodeId() + " is shutting down; ask another node"
                    : "no leader is known for partition " + partition + " of group '" + groupId + "'; retry shortly";
            return noCoordinator(groupId, reason);
        }
        return FindCoordinatorResponse.Coordinator.newBuilder()
                .setKey(groupId)
                .setNodeId(leader.getNodeId())
                .setHost(leader.getHost())
                .setPort(leader.getPort())
                .setErrorCode(io.cohort.api.v1.ErrorCode.NONE)
                .build();
    }

    private static FindCoordinatorResponse.Coordinator noCoordinator(String groupId, String message) {
        return noCoordinator(groupId, ErrorCode.COORDINATOR_NOT_AVAILABLE, message);
    }

    private static FindCoordinatorResponse.Coordinator noCoordinator(String groupId, ErrorCode code, String message) {
        return FindCoordinatorResponse.Coordinator.newBuilder()
                .setKey(groupId)
                .setNodeId(-1)
                .setHost("")
                .setPort(-1)
                .setErrorCode(ErrorTable.toProto(code))
                .setErrorMessage(message)
                .build();
    }

    private static FindCoordinatorResponse findCoordinatorError(FindCoordinatorRequest request, Failure failure) {
        FindCoordinatorResponse.Builder response = FindCoordinatorResponse.newBuilder();
        for (String groupId : request.getGroupIdsList()) {
            response.addCoordinators(noCoordinator(groupId, failure.message()));
        }
        return response.build();
    }
}
