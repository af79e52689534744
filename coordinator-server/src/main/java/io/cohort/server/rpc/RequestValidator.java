package io.cohort.server.rpc;

import static io.cohort.server.rpc.RequestLimits.MAX_ASSIGNMENT_BYTES;
import static io.cohort.server.rpc.RequestLimits.MAX_CLIENT_HOST_LENGTH;
import static io.cohort.server.rpc.RequestLimits.MAX_CLIENT_ID_LENGTH;
import static io.cohort.server.rpc.RequestLimits.MAX_FILTER_VALUES;
import static io.cohort.server.rpc.RequestLimits.MAX_GROUPS_PER_REQUEST;
import static io.cohort.server.rpc.RequestLimits.MAX_GROUP_ID_LENGTH;
import static io.cohort.server.rpc.RequestLimits.MAX_INSTANCE_ID_LENGTH;
import static io.cohort.server.rpc.RequestLimits.MAX_MEMBER_ID_LENGTH;
import static io.cohort.server.rpc.RequestLimits.MAX_PROTOCOLS;
import static io.cohort.server.rpc.RequestLimits.MAX_PROTOCOL_METADATA_BYTES;
import static io.cohort.server.rpc.RequestLimits.MAX_PROTOCOL_NAME_LENGTH;
import static io.cohort.server.rpc.RequestLimits.MAX_REQUEST_BYTES;
import static io.cohort.server.rpc.RequestLimits.MAX_RETENTION_TIME_MS;
import static io.cohort.server.rpc.RequestLimits.MAX_TOPIC_NAME_LENGTH;

import com.google.protobuf.MessageLite;
import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetDeleteRequest;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks requests before anything is proposed, in two steps. First {@code throwIfMalformed...}: a
 * request that cannot be meaningful (negative partition index, a field over a {@link RequestLimits}
 * limit, an unknown enum value) throws {@link MalformedRequestException}, answered with gRPC
 * INVALID_ARGUMENT. Then the Kafka validations of reference 1.0, in its order, which are protocol
 * errors in the response: INVALID_GROUP_ID, then (JoinGroup) INVALID_SESSION_TIMEOUT.
 */
final class RequestValidator {

    /** A request that cannot be served as sent; its message says which field and why. */
    static final class MalformedRequestException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedRequestException(String message) {
            super(message);
        }
    }

    private RequestValidator() {
    }

    // ---- Kafka validations (protocol errors) ----

    /** INVALID_GROUP_ID where Kafka requires a non-empty id (Join, Sync, Heartbeat, Leave, OffsetDelete). */
    static ErrorCode requiredGroupIdError(String groupId) {
        return groupId.isEmpty() ? ErrorCode.INVALID_GROUP_ID : ErrorCode.NONE;
    }

    /** JoinGroup: INVALID_GROUP_ID, then INVALID_SESSION_TIMEOUT against the node's bounds. */
    static ErrorCode joinGroupError(JoinGroupRequest request, GroupConfig config) {
        ErrorCode groupIdError = requiredGroupIdError(request.getGroupId());
        if (groupIdError != ErrorCode.NONE) {
            return groupIdError;
        }
        int sessionTimeoutMs = request.getSessionTimeoutMs();
        if (sessionTimeoutMs < config.minSessionTimeoutMs() || sessionTimeoutMs > config.maxSessionTimeoutMs()) {
            return ErrorCode.INVALID_SESSION_TIMEOUT;
        }
        return ErrorCode.NONE;
    }

    /** The error_message of INVALID_SESSION_TIMEOUT: the value sent and the allowed range. */
    static String sessionTimeoutMessage(int sessionTimeoutMs, GroupConfig config) {
        return "session_timeout_ms " + sessionTimeoutMs + " is outside the allowed range ["
                + config.minSessionTimeoutMs() + ", " + config.maxSessionTimeoutMs()
                + "] ms (group.min.session.timeout.ms, group.max.session.timeout.ms)";
    }

    // ---- Malformed requests (gRPC INVALID_ARGUMENT) ----

    static void throwIfMalformed(FindCoordinatorRequest request) {
        throwIfTooLarge(request);
        throwIfInvalidGroupIds(request.getGroupIdsList(), "group_ids");
    }

    static void throwIfMalformed(JoinGroupRequest request) {
        throwIfTooLarge(request);
        throwIfTooLong(request.getGroupId(), MAX_GROUP_ID_LENGTH, "group_id");
        throwIfTooLong(request.getMemberId(), MAX_MEMBER_ID_LENGTH, "member_id");
        if (request.hasGroupInstanceId()) {
            throwIfInvalidInstanceId(request.getGroupInstanceId());
        }
        if (request.getRebalanceTimeoutMs() < -1) {
            throw new MalformedRequestException("rebalance_timeout_ms must be >= 0, or -1 for the session timeout; got "
                    + request.getRebalanceTimeoutMs());
        }
        throwIfTooLong(request.getProtocolType(), MAX_PROTOCOL_NAME_LENGTH, "protocol_type");
        throwIfTooLong(request.getClientId(), MAX_CLIENT_ID_LENGTH, "client_id");
        throwIfTooLong(request.getClientHost(), MAX_CLIENT_HOST_LENGTH, "client_host");
        if (request.getProtocolsCount() > MAX_PROTOCOLS) {
            throw new MalformedRequestException("protocols has " + request.getProtocolsCount() + " entries; at most "
                    + MAX_PROTOCOLS + " are allowed");
        }
        Set<String> names = new HashSet<>();
        long metadataBytes = 0;
        for (JoinGroupRequest.Protocol protocol : request.getProtocolsList()) {
            throwIfTooLong(protocol.getName(), MAX_PROTOCOL_NAME_LENGTH, "protocols.name");
            if (!names.add(protocol.getName())) {
                throw new MalformedRequestException("protocols lists '" + protocol.getName() + "' twice");
            }
            metadataBytes += protocol.getMetadata().size();
        }
        if (metadataBytes > MAX_PROTOCOL_METADATA_BYTES) {
            throw new MalformedRequestException("protocols carry " + metadataBytes + " bytes of metadata; at most "
                    + MAX_PROTOCOL_METADATA_BYTES + " are allowed");
        }
    }

    static void throwIfMalformed(SyncGroupRequest request) {
        throwIfTooLarge(request);
        throwIfTooLong(request.getGroupId(), MAX_GROUP_ID_LENGTH, "group_id");
        throwIfTooLong(request.getMemberId(), MAX_MEMBER_ID_LENGTH, "member_id");
        if (request.hasGroupInstanceId()) {
            throwIfInvalidInstanceId(request.getGroupInstanceId());
        }
        throwIfTooLong(request.getProtocolType(), MAX_PROTOCOL_NAME_LENGTH, "protocol_type");
        throwIfTooLong(request.getProtocolName(), MAX_PROTOCOL_NAME_LENGTH, "protocol_name");
        Set<String> members = new HashSet<>();
        for (SyncGroupRequest.Assignment assignment : request.getAssignmentsList()) {
            throwIfTooLong(assignment.getMemberId(), MAX_MEMBER_ID_LENGTH, "assignments.member_id");
            if (!members.add(assignment.getMemberId())) {
                throw new MalformedRequestException("assignments lists member '" + assignment.getMemberId() + "' twice");
            }
            if (assignment.getAssignment().size() > MAX_ASSIGNMENT_BYTES) {
                throw new MalformedRequestException("the assignment of member '" + assignment.getMemberId() + "' has "
                        + assignment.getAssignment().size() + " bytes; at most " + MAX_ASSIGNMENT_BYTES
                        + " are allowed");
            }
        }
    }

    static void throwIfMalformed(HeartbeatRequest request) {
        throwIfTooLarge(request);
        throwIfTooLong(request.getGroupId(), MAX_GROUP_ID_LENGTH, "group_id");
        throwIfTooLong(request.getMemberId(), MAX_MEMBER_ID_LENGTH, "member_id");
        if (request.hasGroupInstanceId()) {
            throwIfInvalidInstanceId(request.getGroupInstanceId());
        }
    }

    static void throwIfMalformed(LeaveGroupRequest request) {
        throwIfTooLarge(request);
        throwIfTooLong(request.getGroupId(), MAX_GROUP_ID_LENGTH, "group_id");
        for (LeaveGroupRequest.Member member : request.getMembersList()) {
            throwIfTooLong(member.getMemberId(), MAX_MEMBER_ID_LENGTH, "members.member_id");
            if (member.hasGroupInstanceId()) {
                throwIfInvalidInstanceId(member.getGroupInstanceId());
            }
        }
    }

    static void throwIfMalformed(OffsetCommitRequest request) {
        throwIfTooLarge(request);
        throwIfTooLong(request.getGroupId(), MAX_GROUP_ID_LENGTH, "group_id");
        throwIfTooLong(request.getMemberId(), MAX_MEMBER_ID_LENGTH, "member_id");
        if (request.hasGroupInstanceId()) {
            throwIfInvalidInstanceId(request.getGroupInstanceId());
        }
        if (request.hasRetentionTimeMs()
                && (request.getRetentionTimeMs() < -1 || request.getRetentionTimeMs() > MAX_RETENTION_TIME_MS)) {
            throw new MalformedRequestException("retention_time_ms must be -1 (the node's retention) or between 0 and "
                    + MAX_RETENTION_TIME_MS + "; got " + request.getRetentionTimeMs());
        }
        for (OffsetCommitRequest.Topic topic : request.getTopicsList()) {
            throwIfInvalidTopic(topic.getName());
            for (OffsetCommitRequest.Partition partition : topic.getPartitionsList()) {
                throwIfInvalidPartition(topic.getName(), partition.getPartitionIndex());
                throwIfNegativeOffset(topic.getName(), partition);
                if (partition.hasCommittedLeaderEpoch() && partition.getCommittedLeaderEpoch() < -1) {
                    throw new MalformedRequestException("committed_leader_epoch of " + topic.getName() + "-"
                            + partition.getPartitionIndex() + " must be >= -1; got "
                            + partition.getCommittedLeaderEpoch());
                }
            }
        }
    }

    static void throwIfMalformed(OffsetFetchRequest request) {
        throwIfTooLarge(request);
        throwIfUnknown(request.getConsistency());
        if (request.getGroupsCount() > MAX_GROUPS_PER_REQUEST) {
            throw new MalformedRequestException("groups has " + request.getGroupsCount() + " entries; at most "
                    + MAX_GROUPS_PER_REQUEST + " are allowed");
        }
        for (OffsetFetchRequest.Group group : request.getGroupsList()) {
            throwIfTooLong(group.getGroupId(), MAX_GROUP_ID_LENGTH, "groups.group_id");
            throwIfTooLong(group.getMemberId(), MAX_MEMBER_ID_LENGTH, "groups.member_id");
            for (OffsetFetchRequest.Topic topic : group.getTopicsList()) {
                throwIfInvalidTopic(topic.getName());
                for (int partition : topic.getPartitionIndexesList()) {
                    throwIfInvalidPartition(topic.getName(), partition);
                }
            }
        }
    }

    static void throwIfMalformed(DescribeGroupsRequest request) {
        throwIfTooLarge(request);
        throwIfUnknown(request.getConsistency());
        throwIfInvalidGroupIds(request.getGroupIdsList(), "group_ids");
    }

    static void throwIfMalformed(ListGroupsRequest request) {
        throwIfTooLarge(request);
        throwIfInvalidFilter(request.getStatesFilterList(), "states_filter");
        throwIfInvalidFilter(request.getTypesFilterList(), "types_filter");
    }

    static void throwIfMalformed(DeleteGroupsRequest request) {
        throwIfTooLarge(request);
        throwIfInvalidGroupIds(request.getGroupIdsList(), "group_ids");
    }

    static void throwIfMalformed(OffsetDeleteRequest request) {
        throwIfTooLarge(request);
        throwIfTooLong(request.getGroupId(), MAX_GROUP_ID_LENGTH, "group_id");
        for (OffsetDeleteRequest.Topic topic : request.getTopicsList()) {
            throwIfInvalidTopic(topic.getName());
            for (int partition : topic.getPartitionIndexesList()) {
                throwIfInvalidPartition(topic.getName(), partition);
            }
        }
    }

    // ---- field checks ----

    static void throwIfTooLarge(MessageLite request) {
        int size = request.getSerializedSize();
        if (size > MAX_REQUEST_BYTES) {
            throw new MalformedRequestException("the request has " + size + " bytes; at most " + MAX_REQUEST_BYTES
                    + " are allowed");
        }
    }

    static void throwIfTooLong(String value, int maxLength, String field) {
        if (value.length() > maxLength) {
            throw new MalformedRequestException(field + " has " + value.length() + " chars; at most " + maxLength
                    + " are allowed");
        }
    }

    private static void throwIfInvalidInstanceId(String groupInstanceId) {
        if (groupInstanceId.isEmpty()) {
            throw new MalformedRequestException("group_instance_id, when set, must not be empty");
        }
        throwIfTooLong(groupInstanceId, MAX_INSTANCE_ID_LENGTH, "group_instance_id");
    }

    static void throwIfInvalidGroupIds(List<String> groupIds, String field) {
        if (groupIds.size() > MAX_GROUPS_PER_REQUEST) {
            throw new MalformedRequestException(field + " has " + groupIds.size() + " entries; at most "
                    + MAX_GROUPS_PER_REQUEST + " are allowed");
        }
        for (int i = 0; i < groupIds.size(); i++) {
            // Name the entry, not the list: with one group the caller thinks of it as "the group id".
            throwIfTooLong(groupIds.get(i), MAX_GROUP_ID_LENGTH, field + "[" + i + "]");
        }
    }

    static void throwIfInvalidTopic(String topic) {
        if (topic.isEmpty()) {
            throw new MalformedRequestException("topic names must not be empty");
        }
        throwIfTooLong(topic, MAX_TOPIC_NAME_LENGTH, "topic name");
    }

    private static void throwIfInvalidPartition(String topic, int partition) {
        if (partition < 0) {
            throw new MalformedRequestException("partition index of topic '" + topic + "' must be >= 0; got " + partition);
        }
    }

    /**
     * Kafka's broker stores any offset, but no Kafka client can commit a negative one (the consumer's
     * OffsetAndMetadata refuses it) and every client reads a negative committed offset as "none"
     * (OffsetFetch uses -1 for that). A negative offset stored here would be invisible to the client
     * and the CLI, and could not be found to delete it; refusing it keeps every view the same.
     */
    private static void throwIfNegativeOffset(String topic, OffsetCommitRequest.Partition partition) {
        if (partition.getCommittedOffset() < 0) {
            throw new MalformedRequestException("committed_offset of " + topic + "-" + partition.getPartitionIndex()
                    + " must be >= 0 (OffsetFetch answers -1 for \"no offset\"); got "
                    + partition.getCommittedOffset());
        }
    }

    private static void throwIfInvalidFilter(List<String> values, String field) {
        if (values.size() > MAX_FILTER_VALUES) {
            throw new MalformedRequestException(field + " has " + values.size() + " entries; at most "
                    + MAX_FILTER_VALUES + " are allowed");
        }
        for (String value : values) {
            throwIfTooLong(value, MAX_PROTOCOL_NAME_LENGTH, field);
        }
    }

    private static void throwIfUnknown(ReadConsistency consistency) {
        if (consistency == ReadConsistency.UNRECOGNIZED) {
            throw new MalformedRequestException("consistency is not a known ReadConsistency value");
        }
    }
}
