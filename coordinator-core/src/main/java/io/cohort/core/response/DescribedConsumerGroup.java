package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.consumer.Assignment;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * ConsumerGroupDescribe for one group (the fields of consumer_group.proto's DescribedConsumerGroup).
 *
 * @param errorMessage null when there is nothing to say
 * @param groupState   "Empty", "Assigning", "Reconciling", "Stable" or "Dead"
 * @param assignorName the assignor the group uses now ("" if none)
 * @param topicNames   the names of the topics the assignments mention, by topic id (from the group's
 *                     stored subscription metadata; an id without a name belongs to a topic no
 *                     longer subscribed)
 */
public record DescribedConsumerGroup(String groupId, ErrorCode error, String errorMessage, String groupState,
                                     int groupEpoch, int assignmentEpoch, String assignorName, List<Member> members,
                                     Map<UUID, String> topicNames) {
    public static final String CONSUMER_MEMBER_TYPE = "consumer";

    public DescribedConsumerGroup {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(error, "error");
        members = List.copyOf(members);
        topicNames = Collections.unmodifiableMap(new TreeMap<>(topicNames));
    }

    /** A group that cannot be described (unknown, or a classic group). */
    public static DescribedConsumerGroup absent(String groupId, ErrorCode error, String message) {
        return new DescribedConsumerGroup(groupId, error, message, "Dead", -1, -1, "", List.of(), Map.of());
    }

    /**
     * One member.
     *
     * @param instanceId           null if dynamic
     * @param rackId               null if none
     * @param subscribedTopicRegex null if none
     * @param assignment           what it owns now (assigned partitions)
     * @param targetAssignment     what the coordinator wants it to own
     * @param memberState          "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS" or "UNKNOWN"
     * @param memberType           "consumer"
     */
    public record Member(String memberId, String instanceId, String rackId, int memberEpoch, String clientId,
                         String clientHost, List<String> subscribedTopicNames, String subscribedTopicRegex,
                         Assignment assignment, Assignment targetAssignment, String memberState,
                         String memberType) {
        public Member {
            subscribedTopicNames = List.copyOf(subscribedTopicNames);
            Objects.requireNonNull(assignment, "assignment");
            Objects.requireNonNull(targetAssignment, "targetAssignment");
        }
    }
}
