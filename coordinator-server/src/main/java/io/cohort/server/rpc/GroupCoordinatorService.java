package io.cohort.server.rpc;

import io.cohort.api.v1.ConsumerGroupDescribeRequest;
import io.cohort.api.v1.ConsumerGroupDescribeResponse;
import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DeleteGroupsResponse;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.LeaveGroupResponse;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.NodeEndpoint;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetDeleteRequest;
import io.cohort.api.v1.OffsetDeleteResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.command.Command;
import io.cohort.core.response.Response;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.server.metrics.RpcMetrics;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.cohort.server.rpc.ParkedCalls.ParkedCall;
import io.grpc.ManagedChannel;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GroupCoordinator gRPC service: validate, route, call, map (STYLE item 5). It makes no group
 * decisions: writes become core commands proposed to the partition's Raft group, reads go to the
 * core shard, and every answer and failure is translated by {@link ApiMapper} and {@link ErrorTable}.
 *
 * <p>Order of checks for every call (reference 1.0): malformed request (gRPC INVALID_ARGUMENT) →
 * authorization ({@link RequestAuthorizer}; GROUP_AUTHORIZATION_FAILED where Kafka's KafkaApis puts
 * it: the whole response, every partition, or the group's own entry) → node stopping (COORDINATOR_NOT_AVAILABLE) → INVALID_GROUP_ID → INVALID_SESSION_TIMEOUT (JoinGroup)
 * → routing: NOT_COORDINATOR with the leader as hint, or COORDINATOR_LOAD_IN_PROGRESS.
 *
 * <p>Threads: request methods run on gRPC threads (OffsetCommit's, OffsetFetch's and Heartbeat's on the event
 * loop, see {@link RpcThreads}) and never block. Submit futures complete on the partition's apply thread (or a
 * Ratis reply thread); there the parking decision is taken (it must be, see {@link ParkedCalls}),
 * and an answer ready at once is sent there too ({@link RpcThreads#answersOnApplyThread}); every
 * other answer is mapped and sent on the responder.
 */
public class GroupCoordinatorService extends GroupCoordinatorGrpc.GroupCoordinatorImplBase implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinatorService.class);

    private final CohortRaftNode node;
    private final ParkedCalls parked;
    private final RpcContext context;
    private final RequestAuthorizer authorizer;
    private final boolean answersOnApplyThread;
    private final FindCoordinatorRpc findCoordinator;
    private final DeleteGroupsRpc deleteGroups;
    private final GroupReadRpcs reads;
    private final ConsumerGroupRpcs consumerGroups;
    private final PeerChannels peers;
    private volatile boolean stopping;

    public GroupCoordinatorService(CohortRaftNode node, ParkedCalls parked, RpcMetrics metrics) {
        this(node, parked, metrics, RequestAuthorizer.ALLOW_ALL);
    }

    public GroupCoordinatorService(CohortRaftNode node, ParkedCalls parked, RpcMetrics metrics,
                                   RequestAuthorizer authorizer) {
        this(node, parked, metrics, authorizer, PeerChannels.plaintext());
    }

    /**
     * @param channelFactory channels to other nodes' client ports (with the node's TLS), for the
     *                       log-format check before the first consumer-group write
     */
    public GroupCoordinatorService(CohortRaftNode node, ParkedCalls parked, RpcMetrics metrics,
                                   RequestAuthorizer authorizer, Function<NodeAddress, ManagedChannel> channelFactory) {
        this(node, parked, metrics, authorizer, channelFactory, RpcThreads.DEFAULT);
    }

    /** @param threads whether answers at apply time are sent on the apply thread ({@link RpcThreads}) */
    public GroupCoordinatorService(CohortRaftNode node, ParkedCalls parked, RpcMetrics metrics,
                                   RequestAuthorizer authorizer, Function<NodeAddress, ManagedChannel> channelFactory,
                                   RpcThreads threads) {
        this.answersOnApplyThread = threads.answersOnApplyThread();
        this.node = node;
        this.parked = parked;
        this.authorizer = authorizer;
        this.context = new RpcContext(node, parked, metrics, authorizer, () -> stopping);
        this.findCoordinator = new FindCoordinatorRpc(context);
        this.deleteGroups = new DeleteGroupsRpc(context);
        this.reads = new GroupReadRpcs(context);
        this.peers = new PeerChannels(node, channelFactory);
        this.consumerGroups = new ConsumerGroupRpcs(context, () -> node.topicRegistry().byName(),
                new ConsumerProtocolGate(new LogFormatGate(node, peers::channel), () -> formatFourWritten(node)));
    }

    /**
     * The service with its interceptor, which tells JoinGroup the client's address (Kafka reports the
     * connection's host when a member sends no client_host). Add this to the server rather than the
     * service itself ({@code bindService} is final in the generated base class).
     */
    public ServerServiceDefinition definition() {
        return ServerInterceptors.intercept(this, CallContext.INTERCEPTOR, ThrownStatus.INTERCEPTOR);
    }

    /**
     * Stops serving: every new call is answered COORDINATOR_NOT_AVAILABLE (FindCoordinator: for every
     * key), and parked calls fail with it ({@link ParkedCalls#close()}), so clients re-find the
     * coordinator. Call it after leadership was handed off and before the node closes.
     */
    @Override
    public void close() {
        stopping = true;
        parked.close();
        peers.close();
    }

    /** Whether a format-4 entry was committed: a topic in the registry, or a consumer group on this node. */
    private static boolean formatFourWritten(CohortRaftNode node) {
        if (node.topicRegistry().size() > 0) {
            return true;
        }
        for (int partition : node.hostedPartitions()) {
            if (!node.shard(partition).consumerGroupIds().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    // ---- FindCoordinator: FindCoordinatorRpc ----

    @Override
    public void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> observer) {
        findCoordinator.findCoordinator(request, observer);
    }

    // ---- JoinGroup and SyncGroup: long polls ----

    @Override
    public void joinGroup(JoinGroupRequest request, StreamObserver<JoinGroupResponse> observer) {
        Serving<JoinGroupResponse> serving = context.serving("JoinGroup", observer,
                failure -> ApiMapper.joinGroupError(failure.code(), failure.message(), failure.leaderHint(),
                        request.getMemberId()),
                response -> response.getErrorCode().name());
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            // Kafka's order: authorization first, then the request's own checks.
            if (deniedGroup(serving, "JoinGroup", AclOperation.READ, request.getGroupId())) {
                return;
            }
            // The settings the partition's shard has applied (they change online: SetGroupConfig); the
            // shard checks the session timeout again when it applies the join.
            int partition = node.partitionFor(request.getGroupId());
            GroupConfig groupConfig = node.hosts(partition) ? node.shard(partition).config() : node.spec().groupConfig();
            ErrorCode validation = RequestValidator.joinGroupError(request, groupConfig);
            if (validation == ErrorCode.INVALID_SESSION_TIMEOUT && !stopping) {
                serving.answer(new Failure(validation,
                        RequestValidator.sessionTimeoutMessage(request.getSessionTimeoutMs(), groupConfig), null));
                return;
            }
            if (rejected(serving, validation)) {
                return;
            }
            String clientHost = request.getClientHost().isEmpty() ? CallContext.clientHost() : request.getClientHost();
            // The member id suffix is chosen here, before proposing: apply must be deterministic.
            Command.JoinGroup command = ApiMapper.toCommand(request, clientHost, UUID.randomUUID().toString());
            submitParkable(serving, partition, command, memberIdRequiredAtOnce(partition, command),
                    response -> ApiMapper.toProto((io.cohort.core.response.JoinGroupResponse) response, request,
                            groupConfig));
        });
    }

    /**
     * A new dynamic member's first JoinGroup is answered MEMBER_ID_REQUIRED as soon as its entry is
     * proposed, without waiting a Raft round for it, when the applied state says that is its answer:
     * Kafka writes nothing for it either. The entry still records the pending id, so the member's
     * next JoinGroup (proposed after it, on the same leader) finds it. Null: wait for the commit.
     */
    private Response memberIdRequiredAtOnce(int partition, Command.JoinGroup command) {
        if (!node.isLeaderReady(partition)) {
            return null;
        }
        return node.shard(partition).memberIdRequired(command, System.currentTimeMillis()).orElse(null);
    }

    @Override
    public void syncGroup(SyncGroupRequest request, StreamObserver<SyncGroupResponse> observer) {
        Serving<SyncGroupResponse> serving = context.serving("SyncGroup", observer,
                failure -> ApiMapper.syncGroupError(failure.code(), failure.message(), failure.leaderHint()),
                response -> response.getErrorCode().name());
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            if (deniedGroup(serving, "SyncGroup", AclOperation.READ, request.getGroupId())) {
                return;
            }
            if (rejected(serving, RequestValidator.requiredGroupIdError(request.getGroupId()))) {
                return;
            }
            submitParkable(serving, node.partitionFor(request.getGroupId()), ApiMapper.toCommand(request),
                    response -> ApiMapper.toProto((io.cohort.core.response.SyncGroupResponse) response));
        });
    }

    /**
     * Submits a command whose reply may be parked. The continuation is synchronous on purpose: it
     * runs on the apply thread when the entry is applied, before the entry's completions reach
     * {@link ParkedCalls#onApplied}, so the call is parked before anything can answer it.
     */
    private <T> void submitParkable(Serving<T> serving, int partition, Command command,
                                    Function<Response, T> toProto) {
        submitParkable(serving, partition, command, null, toProto);
    }

    /**
     * Proposes {@code command} and answers with its applied result, parking the call if the result
     * says so; with an {@code answerAtOnce}, answers that as soon as the proposer has taken the
     * command, and the applied result is only compared with it.
     */
    private <T> void submitParkable(Serving<T> serving, int partition, Command command, Response answerAtOnce,
                                    Function<Response, T> toProto) {
        ParkedCall<T> parkedCall = new ParkedCall<>(serving.call, toProto, (code, message) -> serving.onFailure
                .apply(new Failure(code, message, code == ErrorCode.NOT_COORDINATOR ? leaderHint(partition) : null)));
        ParkedCalls.Ticket ticket = parked.expect(partition);
        CompletableFuture<Result> submitted;
        try {
            submitted = node.submit(partition, command);
        } catch (RuntimeException e) {
            parked.abandon(ticket);
            throw e;
        }
        boolean answeredAtOnce = answerAtOnce != null && !submitted.isDone();
        if (answeredAtOnce) {
            serving.answer(toProto.apply(answerAtOnce));
        }
        submitted.whenComplete((result, error) -> {
            if (answeredAtOnce) {
                parked.abandon(ticket);
                logIfContradicted(command, answerAtOnce, result, error);
                return;
            }
            try {
                if (error == null && result.reply() instanceof Result.Reply.Parked parkedReply) {
                    parked.park(ticket, parkedReply.key(), result, parkedCall);
                    return;
                }
                parked.abandon(ticket);
                if (error != null) {
                    serving.answerLater(ErrorTable.failureOf(error, node));
                } else {
                    serving.answerLater(() -> toProto.apply(immediate(result)));
                }
            } catch (RuntimeException e) {
                // Never let a failure escape into the apply thread's completion of the future.
                parked.abandon(ticket);
                serving.answerLater(ErrorTable.failureOf(e, node));
            }
        });
    }

    // ---- Heartbeat: answered by the leader from the applied state, no log write ----

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer) {
        Serving<HeartbeatResponse> serving = context.serving("Heartbeat", observer,
                failure -> heartbeatResponse(failure.code(), failure.message(), failure.leaderHint()),
                response -> response.getErrorCode().name());
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            if (deniedGroup(serving, "Heartbeat", AclOperation.READ, request.getGroupId())) {
                return;
            }
            Failure rejected = rejection(RequestValidator.requiredGroupIdError(request.getGroupId()));
            int partition = node.partitionFor(request.getGroupId());
            Failure failure = rejected != null ? rejected : ErrorTable.routingFailure(node, partition);
            if (failure != null) {
                serving.answer(failure);
                return;
            }
            GroupCoordinatorShard.HeartbeatResult result = node.shard(partition)
                    .heartbeat(ApiMapper.toHeartbeat(request), System.currentTimeMillis());
            node.applyTimerOps(partition, result.timers());
            ErrorCode code = result.response().error();
            serving.answer(heartbeatResponse(code, ErrorTable.describe(code), null));
        });
    }

    private static HeartbeatResponse heartbeatResponse(ErrorCode code, String message, NodeEndpoint hint) {
        ErrorCode answered = ErrorTable.forHeartbeat(code);
        return ApiMapper.heartbeat(answered, answered == ErrorCode.NONE ? "" : message, hint);
    }

    // ---- Writes answered at once ----

    @Override
    public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> observer) {
        Serving<LeaveGroupResponse> serving = context.serving("LeaveGroup", observer,
                ApiMapper::leaveGroupError,
                response -> ErrorTable.firstError(concat(response.getErrorCode(),
                        response.getMembersList().stream().map(LeaveGroupResponse.Member::getErrorCode).toList())));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            if (deniedGroup(serving, "LeaveGroup", AclOperation.READ, request.getGroupId())) {
                return;
            }
            if (rejected(serving, RequestValidator.requiredGroupIdError(request.getGroupId()))) {
                return;
            }
            submit(serving, node.partitionFor(request.getGroupId()), ApiMapper.toCommand(request),
                    response -> ApiMapper.toProto((io.cohort.core.response.LeaveGroupResponse) response));
        });
    }

    @Override
    public void offsetCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> observer) {
        Serving<OffsetCommitResponse> serving = context.serving("OffsetCommit", observer,
                failure -> ApiMapper.offsetCommitError(request, failure),
                response -> ErrorTable.firstError(response.getTopicsList().stream()
                        .flatMap(t -> t.getPartitionsList().stream())
                        .map(OffsetCommitResponse.Partition::getErrorCode).toList()));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            if (deniedGroup(serving, "OffsetCommit", AclOperation.READ, request.getGroupId())) {
                return;
            }
            // "" is a legal group id for OffsetCommit, as in Kafka.
            if (rejected(serving, ErrorCode.NONE)) {
                return;
            }
            submit(serving, node.partitionFor(request.getGroupId()), ApiMapper.toCommand(request),
                    response -> ApiMapper.toProto((io.cohort.core.response.OffsetCommitResponse) response));
        });
    }

    @Override
    public void offsetDelete(OffsetDeleteRequest request, StreamObserver<OffsetDeleteResponse> observer) {
        Serving<OffsetDeleteResponse> serving = context.serving("OffsetDelete", observer,
                ApiMapper::offsetDeleteError,
                response -> ErrorTable.firstError(concat(response.getErrorCode(), response.getTopicsList().stream()
                        .flatMap(t -> t.getPartitionsList().stream())
                        .map(OffsetDeleteResponse.Partition::getErrorCode).toList())));
        serving.run(() -> {
            RequestValidator.throwIfMalformed(request);
            if (deniedGroup(serving, "OffsetDelete", AclOperation.DELETE, request.getGroupId())) {
                return;
            }
            if (rejected(serving, RequestValidator.requiredGroupIdError(request.getGroupId()))) {
                return;
            }
            submit(serving, node.partitionFor(request.getGroupId()), ApiMapper.toCommand(request),
                    response -> ApiMapper.toProto((io.cohort.core.response.OffsetDeleteResponse) response));
        });
    }

    @Override
    public void deleteGroups(DeleteGroupsRequest request, StreamObserver<DeleteGroupsResponse> observer) {
        deleteGroups.deleteGroups(request, observer);
    }

    /**
     * Proposes a command answered at once (or failed). The answer is mapped and sent where the
     * future completes (the apply thread) when {@link RpcThreads#answersOnApplyThread}, else on the
     * responder; a failure always goes to the responder (a step-down fails a whole batch on a Ratis
     * thread that must not wait for it).
     */
    private <T> void submit(Serving<T> serving, int partition, Command command, Function<Response, T> toProto) {
        node.submit(partition, command).whenComplete((result, error) -> {
            if (error != null) {
                serving.answerLater(ErrorTable.failureOf(error, node));
            } else if (answersOnApplyThread) {
                serving.run(() -> serving.answer(toProto.apply(immediate(result))));
            } else {
                serving.answerLater(() -> toProto.apply(immediate(result)));
            }
        });
    }

    /**
     * An answer sent before the commit that the applied result contradicts (entries in flight changed
     * the group first, or the entry was lost with the leader): the member finds out on its next call.
     */
    private static void logIfContradicted(Command command, Response answered, Result result, Throwable error) {
        if (!LOG.isDebugEnabled()) {
            return;
        }
        Response applied = error == null ? result.immediateResponse() : null;
        if (!answered.equals(applied)) {
            LOG.debug("{} was answered {} before its commit; applied: {}", command.getClass().getSimpleName(),
                    answered, error != null ? error.toString() : applied);
        }
    }

    /** The answer a command produced when applied; a command without one is a bug. */
    static Response immediate(Result result) {
        Response response = result.immediateResponse();
        if (response == null) {
            throw new IllegalStateException("command produced no immediate reply: " + result.reply());
        }
        return response;
    }

    // ---- Reads: GroupReadRpcs ----

    @Override
    public void offsetFetch(OffsetFetchRequest request, StreamObserver<OffsetFetchResponse> observer) {
        reads.offsetFetch(request, observer);
    }

    @Override
    public void describeGroups(DescribeGroupsRequest request, StreamObserver<DescribeGroupsResponse> observer) {
        reads.describeGroups(request, observer);
    }

    @Override
    public void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> observer) {
        reads.listGroups(request, observer);
    }

    // ---- The consumer protocol (KIP-848) ----

    @Override
    public void consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest request,
                                       StreamObserver<ConsumerGroupHeartbeatResponse> observer) {
        consumerGroups.heartbeat(request, observer);
    }

    @Override
    public void consumerGroupDescribe(ConsumerGroupDescribeRequest request,
                                      StreamObserver<ConsumerGroupDescribeResponse> observer) {
        consumerGroups.describe(request, observer);
    }

    // ---- helpers ----

    /** Answers GROUP_AUTHORIZATION_FAILED for the whole response if the caller may not; returns whether it did. */
    private boolean deniedGroup(Serving<?> serving, String rpc, AclOperation operation, String groupId) {
        if (authorizer.allowGroup(rpc, operation, groupId)) {
            return false;
        }
        serving.answer(GroupDenials.denied(operation, groupId));
        return true;
    }


    /** Answers {@code serving} with the shutdown or validation error, if any; returns whether it did. */
    private boolean rejected(Serving<?> serving, ErrorCode validation) {
        Failure failure = rejection(validation);
        if (failure != null) {
            serving.answer(failure);
        }
        return failure != null;
    }

    /** COORDINATOR_NOT_AVAILABLE while stopping, then the Kafka validation result; null to go on. */
    private Failure rejection(ErrorCode validation) {
        if (stopping) {
            return shuttingDown();
        }
        return validation == ErrorCode.NONE ? null : new Failure(validation, ErrorTable.describe(validation), null);
    }

    private Failure shuttingDown() {
        return ErrorTable.shuttingDown(node.nodeId());
    }

    private NodeEndpoint leaderHint(int partition) {
        int leader = node.leaderOf(partition);
        return leader == node.nodeId() ? null : ErrorTable.endpointOf(node.spec(), leader);
    }

    private static List<io.cohort.api.v1.ErrorCode> concat(io.cohort.api.v1.ErrorCode first,
                                                          List<io.cohort.api.v1.ErrorCode> rest) {
        List<io.cohort.api.v1.ErrorCode> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
