package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command.OffsetCommit;
import io.cohort.core.command.Command.PartitionCommit;
import io.cohort.core.command.Command.TopicCommit;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.PartitionError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** OffsetCommit (reference 1.6, 3.1): member and generation fencing, simple groups, metadata limit. */
final class OffsetCommitHandler {
    private final Map<String, ClassicGroup> groups;
    private final Map<String, ConsumerGroup> consumerGroups;

    OffsetCommitHandler(Map<String, ClassicGroup> groups, Map<String, ConsumerGroup> consumerGroups) {
        this.groups = groups;
        this.consumerGroups = consumerGroups;
    }

    void handle(OffsetCommit request, ResultBuilder result) {
        if (request.groupId() == null) {
            result.replyNow(OffsetCommitResponse.allFailed(request, ErrorCode.INVALID_GROUP_ID));
            return;
        }
        ClassicGroup group = groups.get(request.groupId());
        ConsumerGroup consumerGroup = consumerGroups.get(request.groupId());
        ErrorCode error = consumerGroup != null ? validateConsumerGroupCommit(consumerGroup, request)
                : group == null ? validateUnknownGroup(request) : validateOffsetCommit(group, request);
        if (error != ErrorCode.NONE) {
            result.replyNow(OffsetCommitResponse.allFailed(request, error));
            return;
        }
        // A commit keeps a classic member's session alive in Stable and PreparingRebalance.
        if (group != null && (group.isInState(ClassicGroupState.STABLE)
                || group.isInState(ClassicGroupState.PREPARING_REBALANCE))) {
            Rebalancer.rescheduleHeartbeat(result, group.groupId(), group.member(request.memberId()));
        }
        long expireTimestampMs = request.retentionTimeMs() >= 0
                ? result.nowMs + request.retentionTimeMs()
                : OffsetAndMetadata.NO_EXPIRE_TIMESTAMP;
        List<PartitionError.TopicErrors> topics = new ArrayList<>();
        for (TopicCommit topic : request.topics()) {
            List<PartitionError> partitions = new ArrayList<>();
            for (PartitionCommit partition : topic.partitions()) {
                if (partition.metadata() != null
                        && partition.metadata().length() > result.config.offsetMetadataMaxBytes()) {
                    partitions.add(new PartitionError(partition.partition(), ErrorCode.OFFSET_METADATA_TOO_LARGE));
                    continue;
                }
                partitions.add(new PartitionError(partition.partition(), ErrorCode.NONE));
                result.record(new CoordinatorRecord.OffsetValue(request.groupId(), topic.topic(), partition.partition(),
                        new OffsetAndMetadata(partition.offset(), partition.leaderEpoch(),
                                partition.metadata() == null ? "" : partition.metadata(), result.nowMs,
                                expireTimestampMs)));
            }
            topics.add(new PartitionError.TopicErrors(topic.topic(), partitions));
        }
        result.replyNow(new OffsetCommitResponse(topics));
    }

    /**
     * An unknown group: a commit without a generation creates a "simple" group (its offset records
     * create it on replay); with a generation, v9+ says GROUP_ID_NOT_FOUND, older ILLEGAL_GENERATION.
     */
    private static ErrorCode validateUnknownGroup(OffsetCommit request) {
        if (request.generationId() < 0) {
            return ErrorCode.NONE;
        }
        return request.apiVersion() >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
    }

    /**
     * Kafka's ConsumerGroup.validateOffsetCommit: the generation field carries the member epoch. A
     * commit without a member (generation &lt; 0) is accepted only while the group has no members;
     * otherwise the member must exist (UNKNOWN_MEMBER_ID), use OffsetCommit v9+ (UNSUPPORTED_VERSION)
     * and send its current epoch (STALE_MEMBER_EPOCH).
     */
    private static ErrorCode validateConsumerGroupCommit(ConsumerGroup group, OffsetCommit request) {
        if (request.generationId() < 0 && group.isEmpty()) {
            return ErrorCode.NONE;
        }
        ConsumerGroupMember member = group.member(request.memberId());
        if (member == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (request.apiVersion() < 9) {
            return ErrorCode.UNSUPPORTED_VERSION;
        }
        return request.generationId() == member.memberEpoch() ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
    }

    /** Kafka's ClassicGroup.validateOffsetCommit, in its order. */
    private static ErrorCode validateOffsetCommit(ClassicGroup group, OffsetCommit request) {
        if (group.isInState(ClassicGroupState.DEAD)) {
            return ErrorCode.COORDINATOR_NOT_AVAILABLE;
        }
        if (request.generationId() < 0 && group.isInState(ClassicGroupState.EMPTY)) {
            // Admin tools and manually assigned consumers: accepted without member validation.
            return ErrorCode.NONE;
        }
        if (request.generationId() >= 0 || !request.memberId().isEmpty() || request.groupInstanceId() != null) {
            ErrorCode memberError = MemberValidation.validateMember(group, request.memberId(),
                    request.groupInstanceId());
            if (memberError != ErrorCode.NONE) {
                return memberError;
            }
            if (request.generationId() != group.generationId()) {
                return ErrorCode.ILLEGAL_GENERATION;
            }
        } else if (!group.isInState(ClassicGroupState.EMPTY)) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            return ErrorCode.REBALANCE_IN_PROGRESS;
        }
        return ErrorCode.NONE;
    }
}
