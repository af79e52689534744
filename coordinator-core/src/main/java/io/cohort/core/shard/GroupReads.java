package io.cohort.core.shard;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.DescribedGroup;
import io.cohort.core.response.ListedGroup;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.response.OffsetFetchResponse.PartitionOffset;
import io.cohort.core.response.OffsetFetchResponse.TopicOffsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The shard's reads of groups and offsets: OffsetFetch, DescribeGroups and ListGroups (the javadoc
 * of each is on {@link GroupCoordinatorShard}'s method of the same name). Reads immutable group
 * values and the offsets' concurrent maps, so it may run beside the apply thread.
 */
final class GroupReads {
    private final Map<String, ClassicGroup> groups;
    private final Map<String, ConsumerGroup> consumerGroups;
    private final OffsetStore offsets;
    private final ConsumerGroupReads consumerReads;
    private final List<String> supportedAssignors;

    GroupReads(Map<String, ClassicGroup> groups, Map<String, ConsumerGroup> consumerGroups, OffsetStore offsets,
               ConsumerGroupReads consumerReads, List<String> supportedAssignors) {
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.offsets = offsets;
        this.consumerReads = consumerReads;
        this.supportedAssignors = List.copyOf(supportedAssignors);
    }

    OffsetFetchResponse fetchOffsets(String groupId, Map<String, List<Integer>> topics, String memberId,
                                            int memberEpoch) {
        if (groupId == null) {
            return new OffsetFetchResponse(null, ErrorCode.INVALID_GROUP_ID, List.of());
        }
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null && (memberId != null || memberEpoch >= 0)) {
            ConsumerGroupMember member = memberId == null ? null : consumerGroup.member(memberId);
            if (member == null) {
                return new OffsetFetchResponse(groupId, ErrorCode.UNKNOWN_MEMBER_ID, List.of());
            }
            if (member.memberEpoch() != memberEpoch) {
                return new OffsetFetchResponse(groupId, ErrorCode.STALE_MEMBER_EPOCH, List.of());
            }
        }
        ClassicGroup group = groups.get(groupId);
        boolean noOffsets = group == null ? !consumerGroups.containsKey(groupId) : group.isInState(ClassicGroupState.DEAD);
        NavigableMap<TopicPartition, OffsetAndMetadata> committed = offsets.offsets(groupId);
        List<TopicOffsets> result = new ArrayList<>();
        if (topics == null) {
            if (!noOffsets) {
                Map<String, List<PartitionOffset>> byTopic = new TreeMap<>();
                committed.forEach((tp, value) -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                        .add(toPartitionOffset(tp.partition(), value)));
                byTopic.forEach((topic, partitions) -> result.add(new TopicOffsets(topic, partitions)));
            }
            return new OffsetFetchResponse(groupId, ErrorCode.NONE, result);
        }
        topics.forEach((topic, partitions) -> result.add(new TopicOffsets(topic, partitions.stream()
                .map(p -> {
                    OffsetAndMetadata value = noOffsets ? null : committed.get(new TopicPartition(topic, p));
                    return value == null ? PartitionOffset.none(p) : toPartitionOffset(p, value);
                })
                .toList())));
        return new OffsetFetchResponse(groupId, ErrorCode.NONE, result);
    }

    private static PartitionOffset toPartitionOffset(int partition, OffsetAndMetadata value) {
        return new PartitionOffset(partition, value.offset(), value.leaderEpoch(), value.metadata(), ErrorCode.NONE);
    }

    List<DescribedGroup> describeGroups(List<String> groupIds, short apiVersion) {
        List<DescribedGroup> described = new ArrayList<>();
        for (String groupId : groupIds) {
            described.add(describeGroup(groupId, apiVersion));
        }
        return described;
    }

    private DescribedGroup describeGroup(String groupId, short apiVersion) {
        if (groupId == null) {
            return DescribedGroup.absent(null, ErrorCode.INVALID_GROUP_ID, "");
        }
        ClassicGroup group = groups.get(groupId);
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null) {
            return consumerReads.describeClassicShape(consumerGroup, supportedAssignors);
        }
        if (group == null) {
            ErrorCode error = apiVersion >= 6 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NONE;
            return DescribedGroup.absent(groupId, error, ClassicGroupState.DEAD.displayName());
        }
        boolean stable = group.isInState(ClassicGroupState.STABLE);
        List<DescribedGroup.DescribedMember> members = new ArrayList<>();
        for (ClassicGroupMember member : group.members().values()) {
            Bytes metadata = stable ? member.metadata(group.protocolName()) : Bytes.EMPTY;
            members.add(new DescribedGroup.DescribedMember(member.memberId(), member.groupInstanceId(),
                    member.clientId(), member.clientHost(), metadata == null ? Bytes.EMPTY : metadata,
                    member.assignment()));
        }
        return new DescribedGroup(groupId, ErrorCode.NONE, group.state().displayName(),
                group.protocolType() == null ? "" : group.protocolType(),
                stable && group.protocolName() != null ? group.protocolName() : "", group.generationId(),
                group.leaderId() == null ? "" : group.leaderId(), members);
    }

    List<ListedGroup> listGroups(Collection<String> statesFilter, Collection<String> typesFilter) {
        Set<String> states = lowerCase(statesFilter);
        Set<String> types = lowerCase(typesFilter);
        TreeMap<String, ListedGroup> listed = new TreeMap<>();
        if (types.isEmpty() || types.contains(ListedGroup.CLASSIC_TYPE)) {
            for (ClassicGroup group : groups.values()) {
                listed.put(group.groupId(), new ListedGroup(group.groupId(),
                        group.protocolType() == null ? "" : group.protocolType(), group.state().displayName(),
                        ListedGroup.CLASSIC_TYPE));
            }
        }
        if (types.isEmpty() || types.contains(ListedGroup.CONSUMER_TYPE)) {
            for (ConsumerGroup group : consumerGroups.values()) {
                listed.put(group.groupId(), consumerReads.listed(group));
            }
        }
        listed.values().removeIf(g -> !states.isEmpty() && !states.contains(g.state().toLowerCase(Locale.ROOT)));
        return new ArrayList<>(listed.values());
    }

    private static Set<String> lowerCase(Collection<String> values) {
        if (values == null) {
            return Set.of();
        }
        return values.stream().map(v -> v.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }
}
