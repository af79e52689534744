package io.cohort.server.rpc;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.DeleteGroupsResponse;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.LeaveGroupResponse;
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
import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.command.Heartbeat;
import io.cohort.core.group.ClassicGroup.JoinedMember;
import io.cohort.core.group.Protocol;
import io.cohort.core.response.DescribedGroup;
import io.cohort.core.response.ListedGroup;
import io.cohort.core.response.PartitionError;
import io.cohort.server.rpc.ErrorTable.Failure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates between the public API ({@code io.cohort.api.v1}) and core commands and responses,
 * field by field and nothing more: no decisions are made here. Protocol metadata and assignments
 * stay opaque bytes in both directions (the "consumer" protocol is core's business).
 */
final class ApiMapper {
    private ApiMapper() {
    }

    // ---- requests → core ----

    /**
     * JoinGroup with Kafka v9 semantics.
     *
     * @param clientHost     the request's client_host, or the connection's address if it sent none
     * @param memberIdSuffix a unique suffix the leader chose before proposing (Kafka's UUID)
     */
    static Command.JoinGroup toCommand(JoinGroupRequest request, String clientHost, String memberIdSuffix) {
        List<Protocol> protocols = new ArrayList<>(request.getProtocolsCount());
        for (JoinGroupRequest.Protocol protocol : request.getProtocolsList()) {
            protocols.add(new Protocol(protocol.getName(), toBytes(protocol.getMetadata())));
        }
        return new Command.JoinGroup(request.getGroupId(), request.getMemberId(),
                request.hasGroupInstanceId() ? request.getGroupInstanceId() : null, request.getProtocolType(),
                protocols, request.getSessionTimeoutMs(), request.getRebalanceTimeoutMs(), request.getClientId(),
                clientHost,
                request.hasReason() ? RequestLimits.truncateReason(request.getReason()) : null,
                Command.JOIN_GROUP_LATEST_VERSION, memberIdSuffix);
    }

    static Command.SyncGroup toCommand(SyncGroupRequest request) {
        List<Command.MemberAssignment> assignments = new ArrayList<>(request.getAssignmentsCount());
        for (SyncGroupRequest.Assignment assignment : request.getAssignmentsList()) {
            assignments.add(new Command.MemberAssignment(assignment.getMemberId(), toBytes(assignment.getAssignment())));
        }
        return new Command.SyncGroup(request.getGroupId(), request.getGenerationId(), request.getMemberId(),
                request.hasGroupInstanceId() ? request.getGroupInstanceId() : null,
                request.hasProtocolType() ? request.getProtocolType() : null,
                request.hasProtocolName() ? request.getProtocolName() : null, assignments);
    }

    static Heartbeat toHeartbeat(HeartbeatRequest request) {
        return new Heartbeat(request.getGroupId(), request.getGenerationId(), request.getMemberId(),
                request.hasGroupInstanceId() ? request.getGroupInstanceId() : null);
    }

    static Command.LeaveGroup toCommand(LeaveGroupRequest request) {
        List<Command.LeavingMember> members = new ArrayList<>(request.getMembersCount());
        for (LeaveGroupRequest.Member member : request.getMembersList()) {
            members.add(new Command.LeavingMember(member.getMemberId(),
                    member.hasGroupInstanceId() ? member.getGroupInstanceId() : null,
                    member.hasReason() ? RequestLimits.truncateReason(member.getReason()) : null));
        }
        return new Command.LeaveGroup(request.getGroupId(), members);
    }

    static Command.OffsetCommit toCommand(OffsetCommitRequest request) {
        List<Command.TopicCommit> topics = new ArrayList<>(request.getTopicsCount());
        for (OffsetCommitRequest.Topic topic : request.getTopicsList()) {
            List<Command.PartitionCommit> partitions = new ArrayList<>(topic.getPartitionsCount());
            for (OffsetCommitRequest.Partition p : topic.getPartitionsList()) {
                partitions.add(new Command.PartitionCommit(p.getPartitionIndex(), p.getCommittedOffset(),
                        p.hasCommittedLeaderEpoch() ? p.getCommittedLeaderEpoch() : -1,
                        p.hasCommittedMetadata() ? p.getCommittedMetadata() : null));
            }
            topics.add(new Command.TopicCommit(topic.getName(), partitions));
        }
        return new Command.OffsetCommit(request.getGroupId(), request.getGenerationIdOrMemberEpoch(),
                request.getMemberId(), request.hasGroupInstanceId() ? request.getGroupInstanceId() : null,
                request.hasRetentionTimeMs() ? request.getRetentionTimeMs() : -1L, topics,
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }

    static Command.OffsetDelete toCommand(OffsetDeleteRequest request) {
        List<Command.TopicPartitions> topics = new ArrayList<>(request.getTopicsCount());
        for (OffsetDeleteRequest.Topic topic : request.getTopicsList()) {
            topics.add(new Command.TopicPartitions(topic.getName(), topic.getPartitionIndexesList()));
        }
        return new Command.OffsetDelete(request.getGroupId(), topics);
    }

    /**
     * The partitions to fetch, topic by topic in request order (a topic named twice gets both lists);
     * null means every committed partition, which the request says with an empty topic list.
     */
    static Map<String, List<Integer>> toFetchTopics(OffsetFetchRequest.Group group) {
        if (group.getTopicsCount() == 0) {
            return null;
        }
        Map<String, List<Integer>> topics = new LinkedHashMap<>();
        for (OffsetFetchRequest.Topic topic : group.getTopicsList()) {
            topics.computeIfAbsent(topic.getName(), t -> new ArrayList<>()).addAll(topic.getPartitionIndexesList());
        }
        return topics;
    }

    // ---- core → responses ----

    static JoinGroupResponse toProto(io.cohort.core.response.JoinGroupResponse response, JoinGroupRequest request,
                                     GroupConfig config) {
        JoinGroupResponse.Builder builder = JoinGroupResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(response.error()))
                .setErrorMessage(response.errorMessage() != null ? response.errorMessage()
                        : joinGroupMessage(response.error(), request, config))
                .setGenerationId(response.generationId())
                .setLeader(response.leader() == null ? "" : response.leader())
                .setSkipAssignment(response.skipAssignment())
                .setMemberId(response.memberId());
        if (response.protocolType() != null) {
            builder.setProtocolType(response.protocolType());
        }
        if (response.protocolName() != null) {
            builder.setProtocolName(response.protocolName());
        }
        for (JoinedMember member : response.members()) {
            JoinGroupResponse.Member.Builder m = JoinGroupResponse.Member.newBuilder()
                    .setMemberId(member.memberId())
                    .setMetadata(toByteString(member.metadata()));
            if (member.groupInstanceId() != null) {
                m.setGroupInstanceId(member.groupInstanceId());
            }
            builder.addMembers(m);
        }
        return builder.build();
    }

    /**
     * The error_message of a JoinGroup answer: the generic description, made specific where the
     * request alone says what is wrong (Kafka sends only the code; the message is ours).
     */
    static String joinGroupMessage(ErrorCode code, JoinGroupRequest request, GroupConfig config) {
        if (code == ErrorCode.INCONSISTENT_GROUP_PROTOCOL && request.getProtocolType().isEmpty()) {
            return "protocol_type is empty; a member must name its protocol type (e.g. \"consumer\")";
        }
        if (code == ErrorCode.INCONSISTENT_GROUP_PROTOCOL && request.getProtocolsCount() == 0) {
            return "protocols is empty; a member must offer at least one protocol (e.g. an assignor name)";
        }
        if (code == ErrorCode.INVALID_SESSION_TIMEOUT) {
            return RequestValidator.sessionTimeoutMessage(request.getSessionTimeoutMs(), config);
        }
        return ErrorTable.describe(code);
    }

    static JoinGroupResponse joinGroupError(ErrorCode code, String message, NodeEndpoint hint, String memberId) {
        JoinGroupResponse.Builder builder = JoinGroupResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(code))
                .setErrorMessage(message)
                .setGenerationId(io.cohort.core.response.JoinGroupResponse.NO_GENERATION)
                .setMemberId(memberId);
        if (hint != null) {
            builder.setLeaderHint(hint);
        }
        return builder.build();
    }

    static SyncGroupResponse toProto(io.cohort.core.response.SyncGroupResponse response) {
        SyncGroupResponse.Builder builder = SyncGroupResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(response.error()))
                .setErrorMessage(messageOf(response.error(), response.errorMessage()))
                .setAssignment(toByteString(response.assignment()));
        if (response.protocolType() != null) {
            builder.setProtocolType(response.protocolType());
        }
        if (response.protocolName() != null) {
            builder.setProtocolName(response.protocolName());
        }
        return builder.build();
    }

    static SyncGroupResponse syncGroupError(ErrorCode code, String message, NodeEndpoint hint) {
        SyncGroupResponse.Builder builder = SyncGroupResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(code))
                .setErrorMessage(message);
        if (hint != null) {
            builder.setLeaderHint(hint);
        }
        return builder.build();
    }

    static HeartbeatResponse heartbeat(ErrorCode code, String message, NodeEndpoint hint) {
        HeartbeatResponse.Builder builder = HeartbeatResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(code))
                .setErrorMessage(message);
        if (hint != null) {
            builder.setLeaderHint(hint);
        }
        return builder.build();
    }

    static LeaveGroupResponse toProto(io.cohort.core.response.LeaveGroupResponse response) {
        LeaveGroupResponse.Builder builder = LeaveGroupResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(response.error()))
                .setErrorMessage(ErrorTable.describe(response.error()));
        for (io.cohort.core.response.LeaveGroupResponse.MemberResult member : response.members()) {
            LeaveGroupResponse.Member.Builder m = LeaveGroupResponse.Member.newBuilder()
                    .setMemberId(member.memberId())
                    .setErrorCode(ErrorTable.toProto(member.error()));
            if (member.groupInstanceId() != null) {
                m.setGroupInstanceId(member.groupInstanceId());
            }
            builder.addMembers(m);
        }
        return builder.build();
    }

    static LeaveGroupResponse leaveGroupError(Failure failure) {
        LeaveGroupResponse.Builder builder = LeaveGroupResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(failure.code()))
                .setErrorMessage(failure.message());
        if (failure.leaderHint() != null) {
            builder.setLeaderHint(failure.leaderHint());
        }
        return builder.build();
    }

    static OffsetCommitResponse toProto(io.cohort.core.response.OffsetCommitResponse response) {
        OffsetCommitResponse.Builder builder = OffsetCommitResponse.newBuilder();
        ErrorCode groupError = null;
        for (PartitionError.TopicErrors topic : response.topics()) {
            builder.addTopics(toCommitTopic(topic));
            for (PartitionError partition : topic.partitions()) {
                groupError = groupError == null ? partition.error() : groupError;
            }
        }
        // A group-level error is copied into every partition; explain it once. A partition-level
        // error (OFFSET_METADATA_TOO_LARGE) is explained by its code alone.
        if (response.errorMessage() != null) {
            builder.setErrorMessage(response.errorMessage());
        } else if (groupError != null && groupError != ErrorCode.NONE
                && groupError != ErrorCode.OFFSET_METADATA_TOO_LARGE) {
            builder.setErrorMessage(ErrorTable.describe(groupError));
        }
        return builder.build();
    }

    /** Core's own explanation (a state limit names its key and value), else the code's description. */
    private static String messageOf(ErrorCode code, String coreMessage) {
        return coreMessage != null ? coreMessage : ErrorTable.describe(code);
    }

    /** A group-level failure copied into every requested partition, as Kafka does. */
    static OffsetCommitResponse offsetCommitError(OffsetCommitRequest request, Failure failure) {
        io.cohort.api.v1.ErrorCode code = ErrorTable.toProto(failure.code());
        OffsetCommitResponse.Builder builder = OffsetCommitResponse.newBuilder().setErrorMessage(failure.message());
        for (OffsetCommitRequest.Topic topic : request.getTopicsList()) {
            OffsetCommitResponse.Topic.Builder t = OffsetCommitResponse.Topic.newBuilder().setName(topic.getName());
            for (OffsetCommitRequest.Partition partition : topic.getPartitionsList()) {
                t.addPartitions(OffsetCommitResponse.Partition.newBuilder()
                        .setPartitionIndex(partition.getPartitionIndex()).setErrorCode(code));
            }
            builder.addTopics(t);
        }
        if (failure.leaderHint() != null) {
            builder.setLeaderHint(failure.leaderHint());
        }
        return builder.build();
    }

    private static OffsetCommitResponse.Topic toCommitTopic(PartitionError.TopicErrors topic) {
        OffsetCommitResponse.Topic.Builder builder = OffsetCommitResponse.Topic.newBuilder().setName(topic.topic());
        for (PartitionError partition : topic.partitions()) {
            builder.addPartitions(OffsetCommitResponse.Partition.newBuilder()
                    .setPartitionIndex(partition.partition())
                    .setErrorCode(ErrorTable.toProto(partition.error())));
        }
        return builder.build();
    }

    static OffsetFetchResponse.Group toProto(io.cohort.core.response.OffsetFetchResponse response) {
        OffsetFetchResponse.Group.Builder builder = OffsetFetchResponse.Group.newBuilder()
                .setGroupId(response.groupId())
                .setErrorCode(ErrorTable.toProto(response.error()))
                .setErrorMessage(ErrorTable.describe(response.error()));
        for (io.cohort.core.response.OffsetFetchResponse.TopicOffsets topic : response.topics()) {
            OffsetFetchResponse.Topic.Builder t = OffsetFetchResponse.Topic.newBuilder().setName(topic.topic());
            for (io.cohort.core.response.OffsetFetchResponse.PartitionOffset p : topic.partitions()) {
                t.addPartitions(OffsetFetchResponse.Partition.newBuilder()
                        .setPartitionIndex(p.partition())
                        .setCommittedOffset(p.offset())
                        .setCommittedLeaderEpoch(p.leaderEpoch())
                        .setMetadata(p.metadata() == null ? "" : p.metadata())
                        .setErrorCode(ErrorTable.toProto(p.error())));
            }
            builder.addTopics(t);
        }
        return builder.build();
    }

    static OffsetFetchResponse.Group offsetFetchError(String groupId, Failure failure) {
        OffsetFetchResponse.Group.Builder builder = OffsetFetchResponse.Group.newBuilder()
                .setGroupId(groupId)
                .setErrorCode(ErrorTable.toProto(failure.code()))
                .setErrorMessage(failure.message());
        if (failure.leaderHint() != null) {
            builder.setLeaderHint(failure.leaderHint());
        }
        return builder.build();
    }

    static DescribeGroupsResponse.Group toProto(DescribedGroup group) {
        DescribeGroupsResponse.Group.Builder builder = DescribeGroupsResponse.Group.newBuilder()
                .setGroupId(group.groupId())
                .setErrorCode(ErrorTable.toProto(group.error()))
                .setErrorMessage(ErrorTable.describe(group.error()))
                .setGroupState(group.state())
                .setProtocolType(group.protocolType())
                .setProtocolData(group.protocolData())
                .setGenerationId(group.generationId())
                .setLeaderId(group.leaderId());
        for (DescribedGroup.DescribedMember member : group.members()) {
            DescribeGroupsResponse.Member.Builder m = DescribeGroupsResponse.Member.newBuilder()
                    .setMemberId(member.memberId())
                    .setClientId(member.clientId())
                    .setClientHost(member.clientHost())
                    .setMemberMetadata(toByteString(member.metadata()))
                    .setMemberAssignment(toByteString(member.assignment()));
            if (member.groupInstanceId() != null) {
                m.setGroupInstanceId(member.groupInstanceId());
            }
            builder.addMembers(m);
        }
        return builder.build();
    }

    static DescribeGroupsResponse.Group describeGroupError(String groupId, Failure failure) {
        DescribeGroupsResponse.Group.Builder builder = DescribeGroupsResponse.Group.newBuilder()
                .setGroupId(groupId)
                .setErrorCode(ErrorTable.toProto(failure.code()))
                .setErrorMessage(failure.message())
                .setGenerationId(-1);
        if (failure.leaderHint() != null) {
            builder.setLeaderHint(failure.leaderHint());
        }
        return builder.build();
    }

    static ListGroupsResponse.Group toProto(ListedGroup group) {
        return ListGroupsResponse.Group.newBuilder()
                .setGroupId(group.groupId())
                .setProtocolType(group.protocolType())
                .setGroupState(group.state())
                .setGroupType(group.groupType())
                .build();
    }

    static DeleteGroupsResponse.Result toProto(io.cohort.core.response.DeleteGroupsResponse.GroupResult result) {
        return DeleteGroupsResponse.Result.newBuilder()
                .setGroupId(result.groupId())
                .setErrorCode(ErrorTable.toProto(result.error()))
                .setErrorMessage(ErrorTable.describe(result.error()))
                .build();
    }

    static DeleteGroupsResponse.Result deleteGroupError(String groupId, Failure failure) {
        DeleteGroupsResponse.Result.Builder builder = DeleteGroupsResponse.Result.newBuilder()
                .setGroupId(groupId)
                .setErrorCode(ErrorTable.toProto(failure.code()))
                .setErrorMessage(failure.message());
        if (failure.leaderHint() != null) {
            builder.setLeaderHint(failure.leaderHint());
        }
        return builder.build();
    }

    static OffsetDeleteResponse toProto(io.cohort.core.response.OffsetDeleteResponse response) {
        OffsetDeleteResponse.Builder builder = OffsetDeleteResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(response.error()))
                .setErrorMessage(ErrorTable.describe(response.error()));
        for (PartitionError.TopicErrors topic : response.topics()) {
            OffsetDeleteResponse.Topic.Builder t = OffsetDeleteResponse.Topic.newBuilder().setName(topic.topic());
            for (PartitionError partition : topic.partitions()) {
                t.addPartitions(OffsetDeleteResponse.Partition.newBuilder()
                        .setPartitionIndex(partition.partition())
                        .setErrorCode(ErrorTable.toProto(partition.error())));
            }
            builder.addTopics(t);
        }
        return builder.build();
    }

    static OffsetDeleteResponse offsetDeleteError(Failure failure) {
        OffsetDeleteResponse.Builder builder = OffsetDeleteResponse.newBuilder()
                .setErrorCode(ErrorTable.toProto(failure.code()))
                .setErrorMessage(failure.message());
        if (failure.leaderHint() != null) {
            builder.setLeaderHint(failure.leaderHint());
        }
        return builder.build();
    }

    // ---- bytes ----

    static Bytes toBytes(ByteString bytes) {
        return bytes.isEmpty() ? Bytes.EMPTY : Bytes.copyOf(bytes.toByteArray());
    }

    static ByteString toByteString(Bytes bytes) {
        return bytes == null || bytes.isEmpty() ? ByteString.EMPTY : ByteString.copyFrom(bytes.asReadOnlyBuffer());
    }
}
