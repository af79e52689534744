package io.cohort.server.rpc;

import com.google.common.util.concurrent.ListenableFuture;
import io.cohort.api.v1.AlterTopicsRequest;
import io.cohort.api.v1.AlterTopicsResponse;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.CreateTopicsResponse;
import io.cohort.api.v1.DeleteTopicsRequest;
import io.cohort.api.v1.DeleteTopicsResponse;
import io.cohort.api.v1.ListTopicsRequest;
import io.cohort.api.v1.ListTopicsResponse;
import io.cohort.api.v1.PartitionRacks;
import io.cohort.api.v1.TopicResult;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.command.Command;
import io.cohort.core.response.TopicChangeResponse;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.core.topic.TopicRegistry;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.log.LogCodec;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * ClusterAdmin's topic registry calls. CreateTopics, AlterTopics and DeleteTopics change partition
 * 0's state through its Raft log: a node that does not lead partition 0 forwards the call once to
 * the leader, with the caller's bearer token (the leader authorizes the same principal; a forwarded
 * call is never forwarded again). The leader refuses with UNSUPPORTED_VERSION unless every node reads
 * log format 4 ({@link LogFormatGate}), picks each new topic's id ({@code UUID.randomUUID()}: core
 * never generates one, the id travels in the command), proposes, and answers once the entry is
 * committed and applied on the leader, after waiting (at most {@value #PROPAGATION_TIMEOUT_MS} ms)
 * until every node has committed it too, so a ListTopics on any node right after usually sees the
 * change. validate_only goes through the log as well, so it is judged against the registry in log
 * order, like the change it previews.
 *
 * <p>ListTopics answers from this node's replica of partition 0 ({@link CohortRaftNode#topicRegistry}),
 * at once: it may lag partition 0's leader by the node's apply lag.
 *
 * <p>Malformed requests (more than {@value #MAX_TOPICS_PER_REQUEST} topics, an empty or overlong rack
 * id, a request over {@link RequestLimits#MAX_REQUEST_BYTES}) throw {@link IllegalArgumentException},
 * which the service answers with gRPC INVALID_ARGUMENT; everything Kafka reports per topic (names,
 * partition counts, existence) is the core handler's protocol error.
 */
final class TopicRpcs {
    static final int TOPIC_PARTITION = 0;
    static final int REQUIRED_LOG_FORMAT = LogCodec.FORMAT_VERSION_KIP848;
    static final int MAX_TOPICS_PER_REQUEST = 1_000;
    static final int MAX_RACK_ID_LENGTH = 255;
    static final int PROPAGATION_TIMEOUT_MS = 5_000;
    private static final long FORWARD_TIMEOUT_MS = 30_000;

    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    private final IntFunction<ManagedChannel> channelToNode;
    private final LogFormatGate formatGate;
    private final ForwardedIdentity forwarding;

    TopicRpcs(CohortRaftNode node, RequestAuthorizer authorizer, ForwardedIdentity forwarding,
            IntFunction<ManagedChannel> channelToNode) {
        this.forwarding = forwarding;
        this.node = node;
        this.authorizer = authorizer;
        this.channelToNode = channelToNode;
        this.formatGate = new LogFormatGate(node, channelToNode);
    }

    CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest request) {
        throwIfMalformed(request.getSerializedSize(), request.getTopicsCount());
        request.getTopicsList().forEach(topic -> throwIfMalformedRacks(topic.getName(), topic.getPartitionRacksList()));
        List<String> names = request.getTopicsList().stream().map(CreateTopicsRequest.NewTopic::getName).toList();
        Supplier<Command> command = () -> new Command.CreateTopics(request.getTopicsList().stream()
                .map(topic -> new Command.NewTopic(UUID.randomUUID(), topic.getName(), topic.getPartitionCount(),
                        TopicProtos.racks(topic.getPartitionRacksList())))
                .toList(), request.getValidateOnly());
        return change("CreateTopics", names, command, stub -> stub.createTopics(request),
                CreateTopicsResponse::getResultsList)
                .thenApply(results -> CreateTopicsResponse.newBuilder().addAllResults(results).build());
    }

    CompletableFuture<AlterTopicsResponse> alterTopics(AlterTopicsRequest request) {
        throwIfMalformed(request.getSerializedSize(), request.getTopicsCount());
        request.getTopicsList().forEach(topic -> throwIfMalformedRacks(topic.getName(), topic.getPartitionRacksList()));
        List<String> names = request.getTopicsList().stream().map(AlterTopicsRequest.TopicChange::getName).toList();
        Supplier<Command> command = () -> new Command.AlterTopics(request.getTopicsList().stream()
                .map(topic -> new Command.TopicChange(topic.getName(), topic.getPartitionCount(),
                        TopicProtos.racks(topic.getPartitionRacksList())))
                .toList(), request.getValidateOnly());
        return change("AlterTopics", names, command, stub -> stub.alterTopics(request),
                AlterTopicsResponse::getResultsList)
                .thenApply(results -> AlterTopicsResponse.newBuilder().addAllResults(results).build());
    }

    CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest request) {
        throwIfMalformed(request.getSerializedSize(), request.getNamesCount());
        List<String> names = List.copyOf(request.getNamesList());
        return change("DeleteTopics", names, () -> new Command.DeleteTopics(names), stub -> stub.deleteTopics(request),
                DeleteTopicsResponse::getResultsList)
                .thenApply(results -> DeleteTopicsResponse.newBuilder().addAllResults(results).build());
    }

    ListTopicsResponse listTopics(ListTopicsRequest request) {
        if (!authorizer.allowCluster("ListTopics", AclOperation.DESCRIBE)) {
            return ListTopicsResponse.newBuilder()
                    .setErrorCode(ErrorTable.toProto(ErrorCode.CLUSTER_AUTHORIZATION_FAILED))
                    .setErrorMessage(Principals.principal() + " may not DESCRIBE the cluster").build();
        }
        throwIfMalformed(request.getSerializedSize(), request.getNamesCount());
        TopicRegistry registry = node.topicRegistry();
        ListTopicsResponse.Builder response = ListTopicsResponse.newBuilder().setErrorCode(io.cohort.api.v1.ErrorCode.NONE);
        if (request.getNamesCount() == 0) {
            registry.byName().values().forEach(topic -> response.addTopics(TopicProtos.toProto(topic)));
        } else {
            for (String name : new TreeSet<>(request.getNamesList())) {
                TopicMetadata topic = registry.get(name);
                if (topic != null) {
                    response.addTopics(TopicProtos.toProto(topic));
                }
            }
        }
        return response.build();
    }

    // ---- the shared path of the three changes ----

    private interface StubCall {
        ListenableFuture<? extends com.google.protobuf.Message> call(ClusterAdminGrpc.ClusterAdminFutureStub stub);
    }

    @SuppressWarnings("unchecked")
    private <R> CompletableFuture<List<TopicResult>> change(String rpc, List<String> names, Supplier<Command> command,
                                                            StubCall forward, Function<R, List<TopicResult>> resultsOf) {
        if (!authorizer.allowCluster(rpc, AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(TopicProtos.errors(names, ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                    Principals.principal() + " may not ALTER the cluster"));
        }
        if (!node.isLeader(TOPIC_PARTITION)) {
            return forwardToLeader(names, forward, answer -> resultsOf.apply((R) answer));
        }
        return formatGate.refusal(REQUIRED_LOG_FORMAT, "changing the topic registry").thenCompose(refusal -> refusal != null
                ? CompletableFuture.completedFuture(TopicProtos.errors(names, ErrorCode.UNSUPPORTED_VERSION, refusal))
                : propose(names, command.get()));
    }

    private CompletableFuture<List<TopicResult>> propose(List<String> names, Command command) {
        return node.submit(TOPIC_PARTITION, command).thenCompose(result -> {
            TopicChangeResponse changed = (TopicChangeResponse) result.immediateResponse();
            List<TopicResult> results = changed.results().stream().map(TopicProtos::toProto).toList();
            long index = node.status(TOPIC_PARTITION).appliedIndex();
            return node.watchAllCommitted(TOPIC_PARTITION, index, PROPAGATION_TIMEOUT_MS)
                    .handle((reply, error) -> results);
        }).exceptionally(error -> {
            ErrorTable.Failure failure = ErrorTable.failureOf(error, node);
            return TopicProtos.errors(names, failure.code(), failure.message());
        });
    }

    /** The leader's answer; COORDINATOR_NOT_AVAILABLE (retriable) if there is none to ask or the call failed. */
    private CompletableFuture<List<TopicResult>> forwardToLeader(List<String> names, StubCall call,
                                                                 Function<Object, List<TopicResult>> resultsOf) {
        int leader = node.leaderOf(TOPIC_PARTITION);
        if (leader < 0 || leader == node.nodeId() || CallContext.FORWARDED_BY.get() != null) {
            return CompletableFuture.completedFuture(TopicProtos.errors(names, ErrorCode.COORDINATOR_NOT_AVAILABLE,
                    "node " + node.nodeId() + " does not lead partition 0, which holds the topic registry, and knows"
                            + " no other leader; retry"));
        }
        String refusal = forwarding.refusal(leader, "partition 0, which holds the topic registry");
        if (refusal != null) {
            return CompletableFuture.completedFuture(TopicProtos.errors(names, ErrorCode.NOT_COORDINATOR, refusal));
        }
        Metadata headers = CallContext.forwardingHeaders(node.nodeId(), Principals.bearerHeader());
        ClusterAdminGrpc.ClusterAdminFutureStub stub = ClusterAdminGrpc.newFutureStub(channelToNode.apply(leader))
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(FORWARD_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return ListenableFutures.toCompletable(call.call(stub)).thenApply(resultsOf)
                .exceptionally(error -> TopicProtos.errors(names, ErrorCode.COORDINATOR_NOT_AVAILABLE,
                        "forwarding to node " + leader + ", the leader of partition 0, failed: " + error));
    }

    /** The label an RPC metric records for a topic change: the first topic's error, or NONE. */
    static String outcomeOf(List<TopicResult> results) {
        for (TopicResult result : results) {
            io.cohort.api.v1.ErrorCode code = result.getErrorCode();
            if (code != io.cohort.api.v1.ErrorCode.NONE) {
                return code.name();
            }
        }
        return ErrorCode.NONE.name();
    }

    // ---- malformed requests ----

    private static void throwIfMalformed(int serializedBytes, int entries) {
        if (serializedBytes > RequestLimits.MAX_REQUEST_BYTES) {
            throw new IllegalArgumentException("the request has " + serializedBytes + " bytes; at most "
                    + RequestLimits.MAX_REQUEST_BYTES + " are accepted");
        }
        if (entries > MAX_TOPICS_PER_REQUEST) {
            throw new IllegalArgumentException("the request names " + entries + " topics; at most "
                    + MAX_TOPICS_PER_REQUEST + " per request");
        }
    }

    private static void throwIfMalformedRacks(String topic, List<PartitionRacks> partitions) {
        for (int partition = 0; partition < partitions.size(); partition++) {
            for (String rack : partitions.get(partition).getRacksList()) {
                if (rack.isEmpty() || rack.length() > MAX_RACK_ID_LENGTH) {
                    throw new IllegalArgumentException("topic " + topic + ", partition " + partition
                            + ": a rack id must have 1 to " + MAX_RACK_ID_LENGTH + " characters, got "
                            + rack.length());
                }
            }
        }
    }
}
