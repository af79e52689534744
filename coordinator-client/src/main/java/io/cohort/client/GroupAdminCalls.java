package io.cohort.client;

import static io.cohort.client.ErrorCodes.throwIfError;

import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DeleteGroupsResponse;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.OffsetDeleteRequest;
import io.cohort.api.v1.OffsetDeleteResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.client.ClusterRouter.Routing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The group administration calls of a {@link CohortClient} (its public methods document them):
 * offsets fetched and deleted, groups described, listed and deleted, one group per call, errors
 * thrown as {@link CohortException}. Each is sent to the group's coordinator and re-routed within
 * the call's budget ({@link ClusterRouter#groupCall}); ListGroups asks every node
 * ({@link ClusterGroupListing}).
 */
final class GroupAdminCalls {
    private final ClusterRouter router;
    private final Duration requestTimeout;
    private final Duration apiTimeout;

    GroupAdminCalls(ClusterRouter router, Duration requestTimeout, Duration apiTimeout) {
        this.router = router;
        this.requestTimeout = requestTimeout;
        this.apiTimeout = apiTimeout;
    }

    Map<TopicPartition, OffsetAndMetadata> fetchOffsets(String groupId, Collection<TopicPartition> partitions,
                                                        String memberId, int memberEpoch) {
        OffsetFetchRequest.Group.Builder group = OffsetFetchRequest.Group.newBuilder().setGroupId(groupId);
        if (memberId != null) {
            group.setMemberId(memberId).setMemberEpoch(memberEpoch);
        }
        byTopic(partitions).forEach((topic, indexes) -> group.addTopics(
                OffsetFetchRequest.Topic.newBuilder().setName(topic).addAllPartitionIndexes(indexes)));
        OffsetFetchRequest request = OffsetFetchRequest.newBuilder().addGroups(group)
                .setConsistency(ReadConsistency.READ_CONSISTENCY_LINEARIZABLE).build();
        OffsetFetchResponse.Group result = router.groupCall(groupId, requestTimeout, apiTimeout,
                (stub) -> stub.offsetFetch(request),
                r -> new Routing(r.getGroups(0).getErrorCode(), r.getGroups(0).hasLeaderHint()
                        ? r.getGroups(0).getLeaderHint() : null)).getGroups(0);
        throwIfError(result.getErrorCode(), result.getErrorMessage(), "fetching the offsets of group '" + groupId + "'");
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        for (OffsetFetchResponse.Topic topic : result.getTopicsList()) {
            for (OffsetFetchResponse.Partition p : topic.getPartitionsList()) {
                if (p.getErrorCode() != ErrorCode.NONE) {
                    throw new CohortException(p.getErrorCode(), "fetching " + topic.getName() + ":"
                            + p.getPartitionIndex() + " of group '" + groupId + "'");
                }
                if (p.getCommittedOffset() >= 0) {
                    offsets.put(new TopicPartition(topic.getName(), p.getPartitionIndex()),
                            new OffsetAndMetadata(p.getCommittedOffset(), p.getCommittedLeaderEpoch(), p.getMetadata()));
                }
            }
        }
        return offsets;
    }

    Optional<DescribeGroupsResponse.Group> describeGroup(String groupId) {
        DescribeGroupsRequest request = DescribeGroupsRequest.newBuilder().addGroupIds(groupId).build();
        DescribeGroupsResponse.Group group = router.groupCall(groupId, requestTimeout, apiTimeout,
                (stub) -> stub.describeGroups(request),
                r -> new Routing(r.getGroups(0).getErrorCode(), r.getGroups(0).hasLeaderHint()
                        ? r.getGroups(0).getLeaderHint() : null)).getGroups(0);
        if (group.getErrorCode() == ErrorCode.GROUP_ID_NOT_FOUND) {
            return Optional.empty();
        }
        throwIfError(group.getErrorCode(), group.getErrorMessage(), "describing group '" + groupId + "'");
        return Optional.of(group);
    }

    List<ListGroupsResponse.Group> listGroups(Collection<String> states, Collection<String> types) {
        ListGroupsRequest request = ListGroupsRequest.newBuilder().addAllStatesFilter(states)
                .addAllTypesFilter(types).build();
        ClusterRouter.Topology shape = router.topology();
        return new ClusterGroupListing(shape.partitionCount(), shape.nodes(),
                (endpoint, observer) -> GroupCoordinatorGrpc.newStub(router.channel(endpoint))
                        .withDeadlineAfter(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                        .listGroups(request, observer),
                (e, endpoint) -> router.retriableTransportFailure(e, endpoint, endpoint),
                router::sleepBeforeRetry, apiTimeout).run();
    }

    Map<String, ErrorCode> deleteGroups(Collection<String> groupIds) {
        Map<String, ErrorCode> results = new LinkedHashMap<>();
        for (String groupId : new LinkedHashSet<>(groupIds)) {
            DeleteGroupsRequest request = DeleteGroupsRequest.newBuilder().addGroupIds(groupId).build();
            DeleteGroupsResponse.Result result = router.groupCall(groupId, requestTimeout, apiTimeout,
                    (stub) -> stub.deleteGroups(request),
                    r -> new Routing(r.getResults(0).getErrorCode(), r.getResults(0).hasLeaderHint()
                            ? r.getResults(0).getLeaderHint() : null)).getResults(0);
            if (ErrorCodes.isRouting(result.getErrorCode())) {
                throw new CohortException(result.getErrorCode(), "deleting group '" + groupId + "': "
                        + result.getErrorMessage());
            }
            results.put(groupId, result.getErrorCode());
        }
        return results;
    }

    Map<TopicPartition, ErrorCode> deleteOffsets(String groupId, Collection<TopicPartition> partitions) {
        OffsetDeleteRequest.Builder request = OffsetDeleteRequest.newBuilder().setGroupId(groupId);
        byTopic(partitions).forEach((topic, indexes) -> request.addTopics(
                OffsetDeleteRequest.Topic.newBuilder().setName(topic).addAllPartitionIndexes(indexes)));
        OffsetDeleteRequest built = request.build();
        OffsetDeleteResponse response = router.groupCall(groupId, requestTimeout, apiTimeout,
                (stub) -> stub.offsetDelete(built),
                r -> new Routing(r.getErrorCode(), r.hasLeaderHint() ? r.getLeaderHint() : null));
        throwIfError(response.getErrorCode(), response.getErrorMessage(), "deleting offsets of group '" + groupId + "'");
        Map<TopicPartition, ErrorCode> results = new TreeMap<>();
        for (OffsetDeleteResponse.Topic topic : response.getTopicsList()) {
            for (OffsetDeleteResponse.Partition p : topic.getPartitionsList()) {
                results.put(new TopicPartition(topic.getName(), p.getPartitionIndex()), p.getErrorCode());
            }
        }
        return results;
    }

    /** The partition indexes of {@code partitions} by topic, topics sorted. */
    private static Map<String, List<Integer>> byTopic(Collection<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        return byTopic;
    }
}
