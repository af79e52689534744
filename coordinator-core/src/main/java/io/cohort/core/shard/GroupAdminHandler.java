package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command.DeleteGroups;
import io.cohort.core.command.Command.OffsetDelete;
import io.cohort.core.command.Command.TopicPartitions;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.DeleteGroupsResponse;
import io.cohort.core.response.OffsetDeleteResponse;
import io.cohort.core.response.PartitionError;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/** DeleteGroups (reference 1.11) and OffsetDelete (1.12): the administrative writes. */
final class GroupAdminHandler {
    private final Map<String, ClassicGroup> groups;
    private final Map<String, ConsumerGroup> consumerGroups;
    private final OffsetStore offsets;

    GroupAdminHandler(Map<String, ClassicGroup> groups, Map<String, ConsumerGroup> consumerGroups,
                      OffsetStore offsets) {
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.offsets = offsets;
    }

    void deleteGroups(DeleteGroups request, ResultBuilder result) {
        List<DeleteGroupsResponse.GroupResult> results = new ArrayList<>();
        for (String groupId : new LinkedHashSet<>(request.groupIds())) {
            ErrorCode error = validateDeleteGroup(groupId);
            if (error == ErrorCode.NONE) {
                appendOffsetTombstones(groupId, result);
                result.record(consumerGroups.containsKey(groupId) ? new CoordinatorRecord.ConsumerGroupTombstone(groupId)
                        : new CoordinatorRecord.GroupTombstone(groupId));
            }
            results.add(new DeleteGroupsResponse.GroupResult(groupId, error));
        }
        result.replyNow(new DeleteGroupsResponse(results));
    }

    private ErrorCode validateDeleteGroup(String groupId) {
        if (groupId == null) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null) {
            // Kafka's ConsumerGroup.validateDeleteGroup: only an Empty group (a static member that
            // left with epoch -2 is still a member).
            return consumerGroup.isEmpty() ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
        }
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.isInState(ClassicGroupState.DEAD)) {
            return ErrorCode.GROUP_ID_NOT_FOUND;
        }
        return group.isInState(ClassicGroupState.EMPTY) ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
    }

    /** Tombstones for every committed offset of the group, in topic-partition order. */
    void appendOffsetTombstones(String groupId, ResultBuilder result) {
        for (TopicPartition partition : offsets.offsets(groupId).keySet()) {
            result.record(new CoordinatorRecord.OffsetTombstone(groupId, partition.topic(), partition.partition()));
        }
    }

    void deleteOffsets(OffsetDelete request, ResultBuilder result) {
        ErrorCode error = validateOffsetDelete(request.groupId());
        if (error != ErrorCode.NONE) {
            result.replyNow(new OffsetDeleteResponse(error, List.of()));
            return;
        }
        ClassicGroup group = groups.get(request.groupId());
        ConsumerGroup consumerGroup = consumerGroups.get(request.groupId());
        List<PartitionError.TopicErrors> topics = new ArrayList<>();
        for (TopicPartitions topic : request.topics()) {
            List<PartitionError> partitions = new ArrayList<>();
            boolean subscribed = consumerGroup != null ? consumerGroup.isSubscribedToTopic(topic.topic())
                    : group.isSubscribedToTopic(topic.topic());
            for (int partition : topic.partitions()) {
                if (subscribed) {
                    partitions.add(new PartitionError(partition, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC));
                    continue;
                }
                if (offsets.get(request.groupId(), new TopicPartition(topic.topic(), partition)) != null) {
                    result.record(new CoordinatorRecord.OffsetTombstone(request.groupId(), topic.topic(), partition));
                }
                partitions.add(new PartitionError(partition, ErrorCode.NONE));
            }
            topics.add(new PartitionError.TopicErrors(topic.topic(), partitions));
        }
        result.replyNow(new OffsetDeleteResponse(ErrorCode.NONE, topics));
    }

    /** Any Empty group may lose offsets; a non-empty group only if it is a "consumer" group. */
    private ErrorCode validateOffsetDelete(String groupId) {
        if (MemberValidation.isInvalidGroupId(groupId)) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        if (consumerGroups.containsKey(groupId)) {
            // Kafka's ConsumerGroup.validateOffsetDelete allows it; subscribed topics are refused per partition.
            return ErrorCode.NONE;
        }
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.isInState(ClassicGroupState.DEAD)) {
            return ErrorCode.GROUP_ID_NOT_FOUND;
        }
        if (!group.isInState(ClassicGroupState.EMPTY) && !group.usesConsumerProtocol()) {
            return ErrorCode.NON_EMPTY_GROUP;
        }
        return ErrorCode.NONE;
    }
}
