package io.cohort.server.rpc;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.ConsumerGroupDescribeRequest;
import io.cohort.api.v1.ConsumerGroupDescribeResponse;
import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ConsumerTopicPartitions;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.PartitionStateMachine;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.grpc.stub.StreamObserver;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * KIP-848's ConsumerGroupHeartbeat and ConsumerGroupDescribe (consumer_group.proto): validate,
 * authorize, route, look the group's topics up in this node's replica of the topic registry, then
 * let the core decide.
 *
 * <p>A heartbeat is first handled on the leader's applied state ({@link GroupCoordinatorShard#handle}
 * changes nothing): if that produces no records, the member's state would not change, so the answer
 * goes back at once and only its session timer moves, without a log write (as the classic
 * Heartbeat). Otherwise the same command is proposed and answered once committed. The read is taken
 * between two applied entries, since one command replays several records of a group.
 */
final class ConsumerGroupRpcs {
    /** Tries of a read between two applied entries before a heartbeat takes the log path anyway. */
    private static final int CONSISTENT_READ_ATTEMPTS = 64;
    /** Most chars of a regex, of a rack id, and of an assignor name; most subscribed topic names. */
    static final int MAX_REGEX_LENGTH = 1024;
    static final int MAX_RACK_ID_LENGTH = 255;
    static final int MAX_TOPICS_PER_MEMBER = 10_000;
    static final int MAX_OWNED_PARTITIONS = 100_000;

    private final RpcContext context;
    private final CohortRaftNode node;
    private final Supplier<Map<String, TopicMetadata>> registry;
    private final TopicRegexes regexes = new TopicRegexes();
    private final ConsumerProtocolGate formatGate;

    /**
     * @param registry this node's replica of the topic registry (partition 0's state), by name
     * @param formatGate whether every node reads log format 4 (asked before the first write)
     */
    ConsumerGroupRpcs(RpcContext context, Supplier<Map<String, TopicMetadata>> registry,
                      ConsumerProtocolGate formatGate) {
        this.context = context;
        this.node = context.node();
        this.registry = registry;
        this.formatGate = formatGate;
    }

    // ---- ConsumerGroupHeartbeat ----

    void heartbeat(ConsumerGroupHeartbeatRequest request, StreamObserver<ConsumerGroupHeartbeatResponse> observer) {
        Serving<ConsumerGroupHeartbeatResponse> serving = context.serving("ConsumerGroupHeartbeat", observer,
                failure -> heartbeatError(request, failure), response -> response.getErrorCode().name());
        serving.run(() -> {
            throwIfMalformed(request);
            Failure refused = refusal("ConsumerGroupHeartbeat", AclOperation.READ, request.getGroupId());
            if (refused == null && request.hasSubscribedTopicRegex()) {
                String invalid = regexes.invalidReason(request.getSubscribedTopicRegex());
                if (invalid != null) {
                    refused = new Failure(ErrorCode.INVALID_REGULAR_EXPRESSION, invalid, null);
                }
            }
            int partition = node.partitionFor(request.getGroupId());
            if (refused == null) {
                refused = ErrorTable.routingFailure(node, partition);
            }
            if (refused != null) {
                serving.answer(refused);
                return;
            }
            String clientHost = request.getClientHost().isEmpty() ? CallContext.clientHost() : request.getClientHost();
            long nowMs = System.currentTimeMillis();
            PartitionStateMachine stateMachine = node.stateMachine(partition);
            Optional<Attempt> attempt = stateMachine.readBetweenEntries(shard -> {
                ConsumerGroupHeartbeat command = toCommand(request, clientHost, lookup(shard, request));
                return new Attempt(command, shard.handle(command, nowMs));
            }, CONSISTENT_READ_ATTEMPTS);
            if (attempt.isPresent() && attempt.get().result().records().isEmpty()) {
                // Nothing would change: answer from the applied state, move the session timer only.
                node.applyTimerOps(partition, attempt.get().result().timers());
                serving.answer(toProto(immediate(attempt.get().result())));
                return;
            }
            ConsumerGroupHeartbeat command = attempt.map(Attempt::command).orElseGet(() ->
                    toCommand(request, clientHost, lookup(node.shard(partition), request)));
            formatGate.refusal().thenCompose(refusal -> refusal != null
                    ? CompletableFuture.failedFuture(new FormatRefused(refusal))
                    : node.submit(partition, command)).whenComplete((result, error) -> {
                        Throwable cause = ErrorTable.unwrap(error);
                        if (cause instanceof FormatRefused formatRefused) {
                            serving.answerLater(new Failure(ErrorCode.UNSUPPORTED_VERSION, formatRefused.getMessage(), null));
                        } else if (error != null) {
                            serving.answerLater(ErrorTable.failureOf(error, node));
                        } else {
                            serving.answerLater(() -> toProto(immediate(result)));
                        }
                    });
        });
    }

    private record Attempt(ConsumerGroupHeartbeat command, Result result) {
    }

    /** Not every node reads log format 4 yet: the heartbeat is answered UNSUPPORTED_VERSION. */
    private static final class FormatRefused extends RuntimeException {
        FormatRefused(String message) {
            super(message, null, false, false);
        }
    }

    private static io.cohort.core.response.ConsumerGroupHeartbeatResponse immediate(Result result) {
        if (result.immediateResponse() instanceof io.cohort.core.response.ConsumerGroupHeartbeatResponse response) {
            return response;
        }
        throw new IllegalStateException("ConsumerGroupHeartbeat produced no immediate reply: " + result.reply());
    }

    /**
     * What the command carries from the registry: every topic name any member of the group
     * subscribes to, by name or through a regex (the request's included), and each regex's matches.
     */
    private TopicLookup lookup(GroupCoordinatorShard shard, ConsumerGroupHeartbeatRequest request) {
        GroupCoordinatorShard.ConsumerGroupInterest interest = shard.consumerGroupInterest(request.getGroupId());
        Set<String> names = new TreeSet<>(interest.subscribedTopicNames());
        if (request.hasSubscribedTopicNames()) {
            names.addAll(request.getSubscribedTopicNames().getNamesList());
        }
        Set<String> groupRegexes = new TreeSet<>(interest.regexes());
        if (request.hasSubscribedTopicRegex() && !request.getSubscribedTopicRegex().isEmpty()) {
            groupRegexes.add(request.getSubscribedTopicRegex());
        }
        Map<String, TopicMetadata> topics = registry.get();
        Map<String, Set<String>> resolutions = new TreeMap<>();
        for (String regex : groupRegexes) {
            Set<String> matched = regexes.matching(regex, topics);
            resolutions.put(regex, matched);
            names.addAll(matched);
        }
        return TopicLookup.of(names, topics, resolutions);
    }

    static ConsumerGroupHeartbeat toCommand(ConsumerGroupHeartbeatRequest request, String clientHost,
                                            TopicLookup topics) {
        return new ConsumerGroupHeartbeat(request.getGroupId(), request.getMemberId(), request.getMemberEpoch(),
                request.hasInstanceId() ? request.getInstanceId() : null,
                request.hasRackId() ? request.getRackId() : null,
                request.getRebalanceTimeoutMs(),
                request.hasSubscribedTopicNames() ? request.getSubscribedTopicNames().getNamesList() : null,
                request.hasSubscribedTopicRegex() ? request.getSubscribedTopicRegex() : null,
                request.hasServerAssignor() ? request.getServerAssignor() : null,
                request.hasTopicPartitions() ? toAssignment(request.getTopicPartitions().getTopicsList()) : null,
                request.getClientId(), clientHost, topics);
    }

    static Assignment toAssignment(List<ConsumerTopicPartitions> topics) {
        Map<UUID, Set<Integer>> partitions = new HashMap<>();
        for (ConsumerTopicPartitions topic : topics) {
            partitions.computeIfAbsent(toUuid(topic.getTopicId()), id -> new TreeSet<>())
                    .addAll(topic.getPartitionsList());
        }
        return Assignment.of(partitions);
    }

    static ConsumerGroupHeartbeatResponse toProto(io.cohort.core.response.ConsumerGroupHeartbeatResponse response) {
        ConsumerGroupHeartbeatResponse.Builder proto = ConsumerGroupHeartbeatResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(response.error()))
                .setErrorMessage(response.errorMessage() != null ? response.errorMessage()
                        : response.error() == ErrorCode.NONE ? "" : ErrorTable.describe(response.error()))
                .setMemberId(response.memberId())
                .setMemberEpoch(response.memberEpoch())
                .setHeartbeatIntervalMs(response.heartbeatIntervalMs());
        if (response.assignment() != null) {
            proto.setAssignment(ConsumerGroupHeartbeatResponse.Assignment.newBuilder()
                    .addAllTopicPartitions(toProto(response.assignment())));
        }
        return proto.build();
    }

    static List<ConsumerTopicPartitions> toProto(Assignment assignment) {
        List<ConsumerTopicPartitions> topics = new ArrayList<>(assignment.partitions().size());
        assignment.partitions().forEach((topicId, partitions) -> topics.add(ConsumerTopicPartitions.newBuilder()
                .setTopicId(toBytes(topicId)).addAllPartitions(partitions).build()));
        return topics;
    }

    private static ConsumerGroupHeartbeatResponse heartbeatError(ConsumerGroupHeartbeatRequest request,
                                                                 Failure failure) {
        ConsumerGroupHeartbeatResponse.Builder proto = ConsumerGroupHeartbeatResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(failure.code()))
                .setErrorMessage(failure.message())
                .setMemberId(request.getMemberId());
        if (failure.leaderHint() != null) {
            proto.setLeaderHint(failure.leaderHint());
        }
        return proto.build();
    }

    // ---- ConsumerGroupDescribe ----

    void describe(ConsumerGroupDescribeRequest request, StreamObserver<ConsumerGroupDescribeResponse> observer) {
        Serving<ConsumerGroupDescribeResponse> serving = context.serving("ConsumerGroupDescribe", observer,
                failure -> ConsumerGroupDescribeResponse.newBuilder().addAllGroups(request.getGroupIdsList().stream()
                        .map(id -> describeError(id, failure)).toList()).build(),
                response -> response.getGroupsList().stream().map(DescribedConsumerGroup::getErrorCode)
                        .filter(code -> code != io.cohort.api.v1.ErrorCode.NONE).findFirst()
                        .orElse(io.cohort.api.v1.ErrorCode.NONE).name());
        serving.run(() -> {
            RequestValidator.throwIfTooLarge(request);
            RequestValidator.throwIfInvalidGroupIds(request.getGroupIdsList(), "group_ids");
            Map<String, Failure> refused = new HashMap<>();
            Map<Integer, List<String>> byPartition = new LinkedHashMap<>();
            for (String groupId : new LinkedHashSet<>(request.getGroupIdsList())) {
                Failure failure = refusal("ConsumerGroupDescribe", AclOperation.DESCRIBE, groupId);
                if (failure == null) {
                    failure = ErrorTable.routingFailure(node, node.partitionFor(groupId));
                }
                if (failure != null) {
                    refused.put(groupId, failure);
                } else {
                    byPartition.computeIfAbsent(node.partitionFor(groupId), p -> new ArrayList<>()).add(groupId);
                }
            }
            Map<String, CompletableFuture<DescribedConsumerGroup>> described = new HashMap<>();
            byPartition.forEach((partition, groupIds) -> {
                CompletableFuture<Map<String, DescribedConsumerGroup>> read = describe(partition, groupIds);
                for (String groupId : groupIds) {
                    described.put(groupId, read.thenApply(groups -> groups.get(groupId)));
                }
            });
            CompletableFuture.allOf(described.values().toArray(CompletableFuture[]::new)).whenComplete((ignored, e) ->
                    serving.answerLater(() -> {
                        ConsumerGroupDescribeResponse.Builder response = ConsumerGroupDescribeResponse.newBuilder();
                        for (String groupId : request.getGroupIdsList()) {
                            Failure failure = refused.get(groupId);
                            response.addGroups(failure != null ? describeError(groupId, failure)
                                    : describedOrError(groupId, described.get(groupId)));
                        }
                        return response.build();
                    }));
        });
    }

    /**
     * Describes groups of one partition, linearizably: after Ratis confirms this leader applied
     * everything committed before the call, the groups are read between two applied entries.
     */
    private CompletableFuture<Map<String, DescribedConsumerGroup>> describe(int partition, List<String> groupIds) {
        return node.read(partition, true, shard -> shard).thenApply(ignored -> {
            PartitionStateMachine stateMachine = node.stateMachine(partition);
            List<io.cohort.core.response.DescribedConsumerGroup> groups = stateMachine
                    .readBetweenEntries(shard -> shard.describeConsumerGroups(groupIds), CONSISTENT_READ_ATTEMPTS)
                    .orElseThrow(() -> new io.cohort.raft.ProposalException(
                            io.cohort.raft.ProposalException.Kind.NOT_READY, node.nodeId(), "partition " + partition
                            + " applied entries without pause; retry the describe", null));
            Map<String, DescribedConsumerGroup> byId = new HashMap<>();
            for (io.cohort.core.response.DescribedConsumerGroup group : groups) {
                byId.put(group.groupId(), ConsumerGroupDescriptions.toProto(group));
            }
            return byId;
        });
    }

    private DescribedConsumerGroup describedOrError(String groupId, CompletableFuture<DescribedConsumerGroup> read) {
        try {
            DescribedConsumerGroup group = read.join();
            return group != null ? group : describeError(groupId, new Failure(ErrorCode.GROUP_ID_NOT_FOUND,
                    "Group " + groupId + " not found.", null));
        } catch (RuntimeException e) {
            return describeError(groupId, ErrorTable.failureOf(e, node));
        }
    }

    private static DescribedConsumerGroup describeError(String groupId, Failure failure) {
        return DescribedConsumerGroup.newBuilder().setGroupId(groupId)
                .setErrorCode(ErrorTable.toProto(failure.code())).setErrorMessage(failure.message())
                .setGroupState("Dead").build();
    }

    // ---- helpers ----

    /** GROUP_AUTHORIZATION_FAILED, or COORDINATOR_NOT_AVAILABLE while stopping; null to go on. */
    private Failure refusal(String rpc, AclOperation operation, String groupId) {
        if (!context.authorizer().allowGroup(rpc, operation, groupId)) {
            return GroupDenials.denied(operation, groupId);
        }
        if (context.isStopping()) {
            return ErrorTable.shuttingDown(node.nodeId());
        }
        return null;
    }

    /**
     * Malformed (INVALID_ARGUMENT, nothing changes): what no Kafka client could send. What Kafka
     * answers with INVALID_REQUEST (an empty group id or member id, a join without subscription...)
     * is the core's to answer, as a protocol error.
     */
    static void throwIfMalformed(ConsumerGroupHeartbeatRequest request) {
        RequestValidator.throwIfTooLarge(request);
        RequestValidator.throwIfTooLong(request.getGroupId(), RequestLimits.MAX_GROUP_ID_LENGTH, "group_id");
        RequestValidator.throwIfTooLong(request.getMemberId(), RequestLimits.MAX_MEMBER_ID_LENGTH, "member_id");
        RequestValidator.throwIfTooLong(request.getInstanceId(), RequestLimits.MAX_INSTANCE_ID_LENGTH, "instance_id");
        RequestValidator.throwIfTooLong(request.getRackId(), MAX_RACK_ID_LENGTH, "rack_id");
        RequestValidator.throwIfTooLong(request.getSubscribedTopicRegex(), MAX_REGEX_LENGTH, "subscribed_topic_regex");
        RequestValidator.throwIfTooLong(request.getServerAssignor(), RequestLimits.MAX_PROTOCOL_NAME_LENGTH,
                "server_assignor");
        RequestValidator.throwIfTooLong(request.getClientId(), RequestLimits.MAX_CLIENT_ID_LENGTH, "client_id");
        RequestValidator.throwIfTooLong(request.getClientHost(), RequestLimits.MAX_CLIENT_HOST_LENGTH, "client_host");
        if (request.getRebalanceTimeoutMs() < -1) {
            throw new RequestValidator.MalformedRequestException(
                    "rebalance_timeout_ms must be -1 (unchanged) or >= 0, was " + request.getRebalanceTimeoutMs());
        }
        List<String> names = request.getSubscribedTopicNames().getNamesList();
        if (names.size() > MAX_TOPICS_PER_MEMBER) {
            throw new RequestValidator.MalformedRequestException("subscribed_topic_names has " + names.size()
                    + " names; at most " + MAX_TOPICS_PER_MEMBER);
        }
        for (String name : names) {
            RequestValidator.throwIfInvalidTopic(name);
        }
        int owned = 0;
        for (ConsumerTopicPartitions topic : request.getTopicPartitions().getTopicsList()) {
            if (topic.getTopicId().size() != 16) {
                throw new RequestValidator.MalformedRequestException("topic_partitions: topic_id must be 16 bytes, was "
                        + topic.getTopicId().size());
            }
            for (int partition : topic.getPartitionsList()) {
                if (partition < 0) {
                    throw new RequestValidator.MalformedRequestException(
                            "topic_partitions: partition must be >= 0, was " + partition);
                }
            }
            owned += topic.getPartitionsCount();
        }
        if (owned > MAX_OWNED_PARTITIONS) {
            throw new RequestValidator.MalformedRequestException("topic_partitions lists " + owned
                    + " partitions; at most " + MAX_OWNED_PARTITIONS);
        }
    }

    static UUID toUuid(ByteString bytes) {
        ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
        return new UUID(buffer.getLong(), buffer.getLong());
    }

    static ByteString toBytes(UUID id) {
        return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits()).flip());
    }
}
