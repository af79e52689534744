package io.cohort.server.rpc;

import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.core.consumer.Assignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Maps the core's description of a consumer-protocol group to consumer_group.proto's. */
final class ConsumerGroupDescriptions {
    private ConsumerGroupDescriptions() {
    }

    static DescribedConsumerGroup toProto(io.cohort.core.response.DescribedConsumerGroup group) {
        DescribedConsumerGroup.Builder proto = DescribedConsumerGroup.newBuilder()
                .setErrorCode(ErrorTable.toProto(group.error()))
                .setErrorMessage(group.errorMessage() == null ? "" : group.errorMessage())
                .setGroupId(group.groupId())
                .setGroupState(group.groupState())
                .setGroupEpoch(group.groupEpoch())
                .setAssignmentEpoch(group.assignmentEpoch())
                .setAssignorName(group.assignorName() == null ? "" : group.assignorName());
        for (io.cohort.core.response.DescribedConsumerGroup.Member member : group.members()) {
            DescribedConsumerGroup.Member.Builder m = DescribedConsumerGroup.Member.newBuilder()
                    .setMemberId(member.memberId())
                    .setMemberEpoch(member.memberEpoch())
                    .setClientId(member.clientId())
                    .setClientHost(member.clientHost())
                    .addAllSubscribedTopicNames(member.subscribedTopicNames())
                    .addAllAssignment(described(member.assignment(), group.topicNames()))
                    .addAllTargetAssignment(described(member.targetAssignment(), group.topicNames()))
                    .setMemberState(member.memberState())
                    .setMemberType(member.memberType());
            if (member.instanceId() != null) {
                m.setInstanceId(member.instanceId());
            }
            if (member.rackId() != null) {
                m.setRackId(member.rackId());
            }
            if (member.subscribedTopicRegex() != null) {
                m.setSubscribedTopicRegex(member.subscribedTopicRegex());
            }
            proto.addMembers(m);
        }
        return proto.build();
    }

    /** By topic id; the name is the one the group stored for the id ("" if it has none). */
    private static List<DescribedConsumerGroup.DescribedTopicPartitions> described(Assignment assignment,
                                                                                  Map<UUID, String> topicNames) {
        List<DescribedConsumerGroup.DescribedTopicPartitions> topics = new ArrayList<>();
        assignment.partitions().forEach((topicId, partitions) -> topics.add(
                DescribedConsumerGroup.DescribedTopicPartitions.newBuilder()
                        .setTopicId(ConsumerGroupRpcs.toBytes(topicId))
                        .setTopicName(topicNames.getOrDefault(topicId, ""))
                        .addAllPartitions(partitions).build()));
        return topics;
    }
}
