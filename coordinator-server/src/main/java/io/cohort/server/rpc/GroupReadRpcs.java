package io.cohort.server.rpc;

import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.response.ListedGroup;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.ProposalException;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.grpc.stub.StreamObserver;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The group reads of the GroupCoordinator service: OffsetFetch, DescribeGroups and ListGroups. They
 * write nothing: each reads the shards of the groups' partitions (linearizable through Ratis, or
 * this replica's applied state), with GROUP_AUTHORIZATION_FAILED per group where Kafka places it
 * and ListGroups filtered silently. {@link GroupCoordinatorService} delegates to it.
 */
final class GroupReadRpcs {
    /** DescribeGroups v6 (KIP-1043): an unknown group is GROUP_ID_NOT_FOUND, state "Dead". */
    static final short DESCRIBE_GROUPS_VERSION = 6;

    private final RpcContext context;
    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    private final LedGroupsListing listing;

    GroupReadRpcs(RpcContext context) {
        this.context = context;
        this.node = context.node();
        this.authorizer = context.authorizer();
        this.listing = new LedGroupsListing(node);
    }

    void offsetFetch(OffsetFetchRequest request, StreamObserver<OffsetFetchResponse> observer) {
        Serving<OffsetFetchResponse> serving = context.serving("OffsetFetch", observer,
                failure -> OffsetFetchResponse.newBuilder().addAllGroups(request.getGroupsList().stream()
                        .map(g -> ApiMapper.offsetFetchError(g.getGroupId(), failure)).toList()).build(),
                response -> ErrorTable.firstError(response.getGroupsList().stream()
                        .map(OffsetFetchResponse.Group::getErrorCode).toList()));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            Map<String, Failure> denied = GroupDenials.deniedGroups(authorizer, "OffsetFetch", AclOperation.DESCRIBE,
                    request.getGroupsList().stream().map(OffsetFetchRequest.Group::getGroupId).toList());
            Map<Integer, CompletableFuture<GroupCoordinatorShard>> reads = readShards(
                    request.getGroupsList().stream().map(OffsetFetchRequest.Group::getGroupId)
                            .filter(id -> !denied.containsKey(id)).toList(),
                    request.getConsistency() == ReadConsistency.READ_CONSISTENCY_LINEARIZABLE);
            answerWhenRead(reads, serving, () -> {
                OffsetFetchResponse.Builder response = OffsetFetchResponse.newBuilder();
                for (OffsetFetchRequest.Group group : request.getGroupsList()) {
                    Failure groupDenied = denied.get(group.getGroupId());
                    response.addGroups(groupDenied != null
                            ? ApiMapper.offsetFetchError(group.getGroupId(), groupDenied)
                            : fetchGroup(group, reads.get(node.partitionFor(group.getGroupId()))));
                }
                return response.build();
            });
        });
    }

    private OffsetFetchResponse.Group fetchGroup(OffsetFetchRequest.Group group,
                                                 CompletableFuture<GroupCoordinatorShard> read) {
        try {
            return ApiMapper.toProto(read.join().fetchOffsets(group.getGroupId(), ApiMapper.toFetchTopics(group),
                    group.getMemberId().isEmpty() ? null : group.getMemberId(),
                    group.hasMemberEpoch() ? group.getMemberEpoch() : -1));
        } catch (RuntimeException e) {
            return ApiMapper.offsetFetchError(group.getGroupId(), ErrorTable.failureOf(e, node));
        }
    }

    void describeGroups(DescribeGroupsRequest request, StreamObserver<DescribeGroupsResponse> observer) {
        Serving<DescribeGroupsResponse> serving = context.serving("DescribeGroups", observer,
                failure -> DescribeGroupsResponse.newBuilder().addAllGroups(request.getGroupIdsList().stream()
                        .map(id -> ApiMapper.describeGroupError(id, failure)).toList()).build(),
                response -> ErrorTable.firstError(response.getGroupsList().stream()
                        .map(DescribeGroupsResponse.Group::getErrorCode).toList()));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            Map<String, Failure> denied = GroupDenials.deniedGroups(authorizer, "DescribeGroups", AclOperation.DESCRIBE,
                    request.getGroupIdsList());
            Map<Integer, CompletableFuture<GroupCoordinatorShard>> reads = readShards(request.getGroupIdsList().stream()
                            .filter(id -> !denied.containsKey(id)).toList(),
                    request.getConsistency() == ReadConsistency.READ_CONSISTENCY_LINEARIZABLE);
            answerWhenRead(reads, serving, () -> {
                DescribeGroupsResponse.Builder response = DescribeGroupsResponse.newBuilder();
                for (String groupId : request.getGroupIdsList()) {
                    Failure groupDenied = denied.get(groupId);
                    response.addGroups(groupDenied != null ? ApiMapper.describeGroupError(groupId, groupDenied)
                            : describeGroup(groupId, reads.get(node.partitionFor(groupId))));
                }
                return response.build();
            });
        });
    }

    private DescribeGroupsResponse.Group describeGroup(String groupId, CompletableFuture<GroupCoordinatorShard> read) {
        try {
            return ApiMapper.toProto(read.join().describeGroups(List.of(groupId), DESCRIBE_GROUPS_VERSION).get(0));
        } catch (RuntimeException e) {
            return ApiMapper.describeGroupError(groupId, ErrorTable.failureOf(e, node));
        }
    }

    /**
     * Answers once every read is done: at once, on this thread, when they all completed inside their
     * submits (the leader's lease answered them, or they were local or refused), since this thread is
     * the handler's (an event loop or an RPC thread, no Ratis lock held) and a hand-off would only
     * cost a wake-up (docs/BENCHMARKS.md, "Tuning" #30); otherwise on the responder, off the Ratis or
     * read-completion thread that completes the last read.
     */
    private static <T> void answerWhenRead(Map<Integer, CompletableFuture<GroupCoordinatorShard>> reads,
                                           Serving<T> serving, Supplier<T> response) {
        CompletableFuture<Void> all = CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new));
        if (all.isDone()) {
            serving.answer(response.get());
        } else {
            all.whenComplete((ignored, e) -> serving.answerLater(response));
        }
    }

    /**
     * One read per partition of {@code groupIds}. A linearizable read completes (at once on this
     * thread when the leader's lease answers it, else on a read-completion thread) once this leader
     * has applied everything committed before it; the shard is then read where the answer is built
     * ({@link #answerWhenRead}), which sees that state or a later one, so the answer is still
     * linearizable. A local read completes at once, on any replica.
     */
    private Map<Integer, CompletableFuture<GroupCoordinatorShard>> readShards(Collection<String> groupIds,
                                                                           boolean linearizable) {
        Map<Integer, CompletableFuture<GroupCoordinatorShard>> reads = new HashMap<>();
        for (String groupId : groupIds) {
            reads.computeIfAbsent(node.partitionFor(groupId), partition -> readShard(partition, linearizable));
        }
        return reads;
    }

    private CompletableFuture<GroupCoordinatorShard> readShard(int partition, boolean linearizable) {
        if (context.isStopping()) {
            return CompletableFuture.failedFuture(new ProposalException(ProposalException.Kind.SHUTTING_DOWN, -1,
                    "node " + node.nodeId() + " is shutting down", null));
        }
        try {
            return node.read(partition, linearizable, shard -> shard);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Lists the groups of the partitions this node leads ({@link LedGroupsListing}), as Kafka's
     * broker-local ListGroups; a client lists the cluster by asking every node and merging. The
     * reads run concurrently and complete on this thread or read-completion threads; the answer is
     * filtered and sent on the responder.
     */
    void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> observer) {
        Serving<ListGroupsResponse> serving = context.serving("ListGroups", observer,
                failure -> ListGroupsResponse.newBuilder().setErrorCode(ErrorTable.toProto(failure.code()))
                        .setErrorMessage(failure.message()).build(),
                response -> response.getErrorCode().name());
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            if (context.isStopping()) {
                serving.answer(ErrorTable.shuttingDown(node.nodeId()));
                return;
            }
            // The caller's principal lives in this thread's gRPC context; the filter runs later.
            io.grpc.Context callContext = io.grpc.Context.current();
            listing.list(request.getStatesFilterList(), request.getTypesFilterList()).thenAccept(listed -> {
                if (listed.failure() != null) {
                    serving.answerLater(listed.failure());
                } else {
                    serving.answerLater(() -> authorizedListing(callContext, listed));
                }
            });
        });
    }

    /**
     * Kafka: every group with DESCRIBE on the cluster, else only the groups the caller may describe,
     * filtered silently (never CLUSTER_AUTHORIZATION_FAILED, no audit lines).
     */
    private ListGroupsResponse authorizedListing(io.grpc.Context callContext, LedGroupsListing.Listing listed) {
        io.grpc.Context previous = callContext.attach();
        try {
            boolean describesCluster = authorizer.allowClusterQuietly("ListGroups", AclOperation.DESCRIBE);
            ListGroupsResponse.Builder response = ListGroupsResponse.newBuilder()
                    .setErrorCode(io.cohort.api.v1.ErrorCode.NONE).addAllPartitionIndexes(listed.partitions());
            for (ListedGroup group : listed.groups()) {
                if (describesCluster || authorizer.allowGroupQuietly("ListGroups", AclOperation.DESCRIBE, group.groupId())) {
                    response.addGroups(ApiMapper.toProto(group));
                }
            }
            return response.build();
        } finally {
            callContext.detach(previous);
        }
    }
}
