package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.ConsumerProtocolException;
import java.util.List;

/**
 * Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: checks on the request alone, before any
 * state is read, with Kafka's messages. The regex syntax is not checked here: the server validates
 * it (RE2J, INVALID_REGULAR_EXPRESSION) before proposing.
 */
final class ConsumerHeartbeatValidation {
    private ConsumerHeartbeatValidation() {
    }

    static void throwIfInvalid(ConsumerGroupHeartbeat request, List<String> supportedAssignors) {
        throwIfEmpty(request.groupId(), "GroupId can't be empty.");
        throwIfEmpty(request.instanceId(), "InstanceId can't be empty.");
        throwIfEmpty(request.rackId(), "RackId can't be empty.");
        // KIP-1082: the member id is the client's; the coordinator never mints one.
        throwIfEmpty(request.memberId(), "MemberId can't be empty.");
        if (request.memberEpoch() == 0) {
            if (request.rebalanceTimeoutMs() == -1) {
                throw invalid("RebalanceTimeoutMs must be provided in first request.");
            }
            if (request.ownedPartitions() == null || !request.ownedPartitions().isEmpty()) {
                throw invalid("TopicPartitions must be empty when (re-)joining.");
            }
            boolean hasNames = request.subscribedTopicNames() != null && !request.subscribedTopicNames().isEmpty();
            boolean hasRegex = request.subscribedTopicRegex() != null && !request.subscribedTopicRegex().isEmpty();
            if (!hasNames && !hasRegex) {
                throw invalid("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
            }
        } else if (request.memberEpoch() == ConsumerGroupHeartbeat.LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
            if (request.instanceId() == null) {
                throw invalid("InstanceId can't be null.");
            }
        } else if (request.memberEpoch() < ConsumerGroupHeartbeat.LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
            throw invalid("MemberEpoch is invalid.");
        }
        if (request.rebalanceTimeoutMs() < -1) {
            throw invalid("RebalanceTimeoutMs must be -1 (unchanged) or positive.");
        }
        if (request.serverAssignor() != null && !supportedAssignors.contains(request.serverAssignor())) {
            throw new ConsumerProtocolException(ErrorCode.UNSUPPORTED_ASSIGNOR, "ServerAssignor "
                    + request.serverAssignor() + " is not supported. Supported assignors: "
                    + String.join(", ", supportedAssignors) + ".");
        }
    }

    private static void throwIfEmpty(String value, String message) {
        if (value != null && value.isEmpty()) {
            throw invalid(message);
        }
    }

    private static ConsumerProtocolException invalid(String message) {
        return new ConsumerProtocolException(ErrorCode.INVALID_REQUEST, message);
    }
}
