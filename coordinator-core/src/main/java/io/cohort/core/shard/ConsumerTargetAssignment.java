package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.consumer.ConsumerProtocolException;
import io.cohort.core.consumer.assignor.AssignmentSpec;
import io.cohort.core.consumer.assignor.AssignorException;
import io.cohort.core.consumer.assignor.GroupAssignment;
import io.cohort.core.consumer.assignor.ServerAssignor;
import io.cohort.core.record.CoordinatorRecord.ConsumerAssignmentEpochValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerTargetAssignmentValue;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Step 2 of a heartbeat (Kafka's TargetAssignmentBuilder): runs the group's server assignor over
 * every member, with the previous target as stickiness input, and records the members whose target
 * changed and then the new assignment epoch.
 */
final class ConsumerTargetAssignment {
    /** The assignors members may use, in group.consumer.assignors order (the first is the default). */
    private final Map<String, ServerAssignor> assignors;

    ConsumerTargetAssignment(List<ServerAssignor> registered, List<String> configuredNames) {
        Map<String, ServerAssignor> byName = new TreeMap<>();
        registered.forEach(a -> byName.put(a.name(), a));
        Map<String, ServerAssignor> supported = new LinkedHashMap<>();
        for (String name : configuredNames) {
            if (byName.containsKey(name)) {
                supported.put(name, byName.get(name));
            }
        }
        this.assignors = supported;
    }

    /** The names members may ask for, the default first. */
    List<String> supportedNames() {
        return new ArrayList<>(assignors.keySet());
    }

    /**
     * Computes and records the target assignment for the group epoch.
     *
     * @param inheritedTargets targets to start from for members that replace a static member
     * @throws ConsumerProtocolException UNSUPPORTED_ASSIGNOR when no assignor is available,
     *                                   UNKNOWN_SERVER_ERROR when the assignor fails
     */
    void update(ConsumerGroupChange change, Map<String, Assignment> inheritedTargets) {
        ConsumerGroup group = change.group();
        String assignorName = group.preferredAssignor(supportedNames());
        if (assignorName == null) {
            throw new ConsumerProtocolException(ErrorCode.UNSUPPORTED_ASSIGNOR,
                    "No server assignor is configured on this coordinator.");
        }
        SortedMap<UUID, TopicMetadata> topics = new TreeMap<>();
        group.subscriptionMetadata().values().forEach(t -> topics.put(t.topicId(), t));
        SortedMap<String, AssignmentSpec.MemberSpec> members = new TreeMap<>();
        for (ConsumerGroupMember member : group.members().values()) {
            Assignment current = inheritedTargets.containsKey(member.memberId())
                    ? inheritedTargets.get(member.memberId()) : group.targetAssignment(member.memberId());
            members.put(member.memberId(), new AssignmentSpec.MemberSpec(member.metadata().rackId(),
                    subscribedTopicIds(group, member), current));
        }
        AssignmentSpec spec = new AssignmentSpec(members, topics);
        GroupAssignment assignment;
        try {
            assignment = assignors.get(assignorName).assign(spec);
        } catch (AssignorException e) {
            throw new ConsumerProtocolException(ErrorCode.UNKNOWN_SERVER_ERROR, "Failed to compute a new target"
                    + " assignment for epoch " + group.groupEpoch() + ": " + e.getMessage() + ".");
        }
        throwIfInvalid(spec, assignment, assignorName);
        for (String memberId : members.keySet()) {
            Assignment target = assignment.members().getOrDefault(memberId, Assignment.EMPTY);
            if (!group.targetAssignment().containsKey(memberId) || !group.targetAssignment(memberId).equals(target)) {
                change.add(new ConsumerTargetAssignmentValue(group.groupId(), memberId, target));
            }
        }
        if (change.group().assignmentEpoch() != group.groupEpoch()) {
            change.add(new ConsumerAssignmentEpochValue(group.groupId(), group.groupEpoch()));
        }
    }

    /** The ids of the topics a member subscribes to by name or regex that the group has metadata for. */
    static SortedSet<UUID> subscribedTopicIds(ConsumerGroup group, ConsumerGroupMember member) {
        Set<String> names = new TreeSet<>(member.metadata().subscribedTopicNames());
        String regex = member.metadata().subscribedTopicRegex();
        if (regex != null) {
            names.addAll(group.regexResolutions().getOrDefault(regex, new TreeSet<>()));
        }
        SortedSet<UUID> ids = new TreeSet<>();
        for (String name : names) {
            TopicMetadata topic = group.subscriptionMetadata().get(name);
            if (topic != null) {
                ids.add(topic.topicId());
            }
        }
        return ids;
    }

    /**
     * A plugged-in assignor's output is checked before it is recorded: no unknown member, no
     * partition of a topic the member does not subscribe to or beyond its partition count, no
     * partition twice. A wrong assignment is the assignor's failure (UNKNOWN_SERVER_ERROR), never a
     * state that breaks revoke-before-assign.
     */
    private static void throwIfInvalid(AssignmentSpec spec, GroupAssignment assignment, String assignorName) {
        Set<String> seen = new HashSet<>();
        for (Map.Entry<String, Assignment> e : assignment.members().entrySet()) {
            AssignmentSpec.MemberSpec member = spec.members().get(e.getKey());
            if (member == null) {
                throw invalid(assignorName, "assigned partitions to unknown member " + e.getKey());
            }
            for (Map.Entry<UUID, SortedSet<Integer>> topic : e.getValue().partitions().entrySet()) {
                TopicMetadata metadata = spec.topics().get(topic.getKey());
                if (metadata == null || !member.subscribedTopicIds().contains(topic.getKey())) {
                    throw invalid(assignorName, "assigned topic " + topic.getKey() + " to " + e.getKey()
                            + ", which does not subscribe to it");
                }
                for (int partition : topic.getValue()) {
                    if (partition < 0 || partition >= metadata.partitionCount()
                            || !seen.add(topic.getKey() + "-" + partition)) {
                        throw invalid(assignorName, "assigned partition " + metadata.name() + "-" + partition
                                + " out of range or twice");
                    }
                }
            }
        }
    }

    private static ConsumerProtocolException invalid(String assignorName, String what) {
        return new ConsumerProtocolException(ErrorCode.UNKNOWN_SERVER_ERROR,
                "Server assignor " + assignorName + " " + what + ".");
    }
}
