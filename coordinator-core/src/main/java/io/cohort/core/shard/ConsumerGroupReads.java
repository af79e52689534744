package io.cohort.core.shard;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.response.DescribedConsumerGroup;
import io.cohort.core.response.DescribedGroup;
import io.cohort.core.response.ListedGroup;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The read-only views of consumer groups: ConsumerGroupDescribe, the classic DescribeGroups and
 * ListGroups shapes of a consumer group, and what the leader must look up before proposing a
 * heartbeat. Reads immutable group values, so it may run beside the apply thread.
 */
final class ConsumerGroupReads {
    private final Map<String, ConsumerGroup> consumerGroups;
    private final Map<String, ClassicGroup> classicGroups;

    ConsumerGroupReads(Map<String, ConsumerGroup> consumerGroups, Map<String, ClassicGroup> classicGroups) {
        this.consumerGroups = consumerGroups;
        this.classicGroups = classicGroups;
    }

    DescribedConsumerGroup describe(String groupId, List<String> supportedAssignors) {
        ConsumerGroup group = groupId == null ? null : consumerGroups.get(groupId);
        if (group == null) {
            boolean classic = groupId != null && classicGroups.containsKey(groupId);
            return DescribedConsumerGroup.absent(groupId == null ? "" : groupId, ErrorCode.GROUP_ID_NOT_FOUND,
                    classic ? "Group " + groupId + " is not a consumer group."
                            : "Group " + groupId + " not found.");
        }
        List<DescribedConsumerGroup.Member> members = new ArrayList<>();
        for (ConsumerGroupMember member : group.members().values()) {
            members.add(new DescribedConsumerGroup.Member(member.memberId(), member.instanceId(),
                    member.metadata().rackId(), member.memberEpoch(), member.metadata().clientId(),
                    member.metadata().clientHost(), List.copyOf(member.metadata().subscribedTopicNames()),
                    member.metadata().subscribedTopicRegex(), member.assignedPartitions(),
                    group.targetAssignment(member.memberId()), member.state().name(),
                    DescribedConsumerGroup.CONSUMER_MEMBER_TYPE));
        }
        String assignor = group.preferredAssignor(supportedAssignors);
        return new DescribedConsumerGroup(groupId, ErrorCode.NONE, null, group.state().displayName(),
                group.groupEpoch(), group.assignmentEpoch(), assignor == null ? "" : assignor, members,
                group.topicNames());
    }

    /**
     * The classic DescribeGroups shape of a consumer group (Kafka answers DescribeGroups for it
     * too): protocol type "consumer", the assignor as protocol, the group epoch as generation, each
     * member's subscription as its metadata (cohort.v1.ConsumerSubscription); assignments are not
     * converted to the classic encoding and stay empty.
     */
    DescribedGroup describeClassicShape(ConsumerGroup group, List<String> supportedAssignors) {
        List<DescribedGroup.DescribedMember> members = new ArrayList<>();
        for (ConsumerGroupMember member : group.members().values()) {
            members.add(new DescribedGroup.DescribedMember(member.memberId(), member.instanceId(),
                    member.metadata().clientId(), member.metadata().clientHost(),
                    subscriptionBytes(member.metadata().subscribedTopicNames()), Bytes.EMPTY));
        }
        String assignor = group.preferredAssignor(supportedAssignors);
        return new DescribedGroup(group.groupId(), ErrorCode.NONE, group.state().displayName(),
                ClassicGroup.CONSUMER_PROTOCOL_TYPE, assignor == null ? "" : assignor, group.groupEpoch(), "",
                members);
    }

    ListedGroup listed(ConsumerGroup group) {
        return new ListedGroup(group.groupId(), ClassicGroup.CONSUMER_PROTOCOL_TYPE, group.state().displayName(),
                ListedGroup.CONSUMER_TYPE);
    }

    GroupCoordinatorShard.ConsumerGroupInterest interest(String groupId) {
        ConsumerGroup group = consumerGroups.get(groupId);
        SortedSet<String> names = new TreeSet<>();
        SortedSet<String> regexes = new TreeSet<>();
        if (group != null) {
            for (ConsumerGroupMember member : group.members().values()) {
                names.addAll(member.metadata().subscribedTopicNames());
                if (member.metadata().subscribedTopicRegex() != null) {
                    regexes.add(member.metadata().subscribedTopicRegex());
                }
            }
        }
        return new GroupCoordinatorShard.ConsumerGroupInterest(names, regexes);
    }

    /** cohort.v1.ConsumerSubscription with field 1 (repeated string topics) only, in wire format. */
    static Bytes subscriptionBytes(SortedSet<String> topics) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String topic : topics) {
            byte[] utf8 = topic.getBytes(StandardCharsets.UTF_8);
            out.write(0x0A);
            int length = utf8.length;
            while ((length & ~0x7F) != 0) {
                out.write((length & 0x7F) | 0x80);
                length >>>= 7;
            }
            out.write(length);
            out.write(utf8, 0, utf8.length);
        }
        return Bytes.copyOf(out.toByteArray());
    }
}
