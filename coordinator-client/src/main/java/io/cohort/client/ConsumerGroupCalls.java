package io.cohort.client;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ConsumerGroupDescribeRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.ListTopicsRequest;
import io.cohort.api.v1.ListTopicsResponse;
import io.cohort.api.v1.TopicDescription;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The consumer protocol's calls (KIP-848) on a {@link CohortClient}, with its routing and retry
 * machinery: ConsumerGroupHeartbeat and ConsumerGroupDescribe go to the group's coordinator,
 * re-routed on NOT_COORDINATOR (following the leader hint) and retried on the routing errors and
 * transport failures within the budget, exactly as the classic calls; ListTopics (for the
 * topic id to name mapping) goes to any node, each of which holds a replica of the registry.
 *
 * <p>A node that does not know these RPCs (gRPC UNIMPLEMENTED: a node of an older version) is
 * reported as UNSUPPORTED_VERSION.
 */
final class ConsumerGroupCalls {
    private final CohortClient client;

    ConsumerGroupCalls(CohortClient client) {
        this.client = client;
    }

    /**
     * One ConsumerGroupHeartbeat. The response is returned as received, except that routing errors
     * and transport failures are retried within {@code budget}; if the budget runs out on a routing
     * error, that response is returned; on a transport failure, CohortException is thrown.
     */
    ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequest request, Duration budget) {
        try {
            return client.groupCall(request.getGroupId(), client.requestTimeout(), budget,
                    stub -> stub.consumerGroupHeartbeat(request),
                    r -> new ClusterRouter.Routing(r.getErrorCode(), r.hasLeaderHint() ? r.getLeaderHint() : null));
        } catch (CohortException e) {
            throw unsupportedIfUnimplemented(e, "ConsumerGroupHeartbeat");
        }
    }

    /**
     * ConsumerGroupDescribe of each distinct group id, in order, each asked of its own coordinator.
     * A group the coordinator does not hold as a consumer group (unknown, or classic) comes back
     * with GROUP_ID_NOT_FOUND; routing errors that outlast the client's api timeout are thrown.
     */
    List<DescribedConsumerGroup> describe(List<String> groupIds) {
        List<DescribedConsumerGroup> groups = new ArrayList<>();
        for (String groupId : new LinkedHashSet<>(groupIds)) {
            ConsumerGroupDescribeRequest request = ConsumerGroupDescribeRequest.newBuilder().addGroupIds(groupId).build();
            DescribedConsumerGroup group;
            try {
                group = client.groupCall(groupId, client.requestTimeout(), client.apiTimeout(),
                        stub -> stub.consumerGroupDescribe(request),
                        r -> new ClusterRouter.Routing(r.getGroupsCount() == 0 ? ErrorCode.NONE
                                : r.getGroups(0).getErrorCode(), null)).getGroups(0);
            } catch (CohortException e) {
                throw unsupportedIfUnimplemented(e, "ConsumerGroupDescribe");
            }
            if (ErrorCodes.isRouting(group.getErrorCode())) {
                throw new CohortException(group.getErrorCode(), "describing consumer group '" + groupId + "': "
                        + group.getErrorMessage());
            }
            groups.add(group);
        }
        return groups;
    }

    /** Every topic of the registry, as the first node that answers has applied it (ListTopics). */
    List<TopicDescription> listTopics() {
        ListTopicsRequest request = ListTopicsRequest.getDefaultInstance();
        ListTopicsResponse response;
        try {
            response = client.anyNodeCall(endpoint -> ClusterAdminGrpc.newBlockingStub(client.channel(endpoint))
                    .withDeadlineAfter(client.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .listTopics(request), "listing topics");
        } catch (CohortException e) {
            throw unsupportedIfUnimplemented(e, "ListTopics");
        }
        ErrorCodes.throwIfError(response.getErrorCode(), response.getErrorMessage(), "listing topics");
        return response.getTopicsList();
    }

    /** UNIMPLEMENTED from a node means it predates the consumer protocol: say so with UNSUPPORTED_VERSION. */
    static CohortException unsupportedIfUnimplemented(CohortException e, String rpc) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
                return new CohortException(ErrorCode.UNSUPPORTED_VERSION, "the node does not serve " + rpc
                        + " (an older version without the consumer protocol)", e);
            }
        }
        return e;
    }
}
