package io.cohort.core.consumer.assignor;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.topic.TopicMetadata;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The input of a {@link ServerAssignor}: every member of the group (sorted by member id) and the
 * metadata of every topic some member subscribes to (sorted by topic id). A subscribed topic id
 * missing from {@link #topics()} does not exist (it is skipped, as Kafka skips unknown topics).
 */
public record AssignmentSpec(SortedMap<String, MemberSpec> members, SortedMap<UUID, TopicMetadata> topics) {

    public AssignmentSpec {
        members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        topics = Collections.unmodifiableSortedMap(new TreeMap<>(topics));
    }

    /**
     * One member as the assignor sees it.
     *
     * @param rackId             the member's rack, or null
     * @param subscribedTopicIds the topics it subscribes to (names and regex already resolved)
     * @param currentTarget      its target assignment before this computation (stickiness input);
     *                           for a static member that rejoined under a new member id, the old
     *                           member's
     */
    public record MemberSpec(String rackId, SortedSet<UUID> subscribedTopicIds, Assignment currentTarget) {
        public MemberSpec {
            subscribedTopicIds = Collections.unmodifiableSortedSet(new TreeSet<>(subscribedTopicIds));
            Objects.requireNonNull(currentTarget, "currentTarget");
        }
    }

    /** Whether every member subscribes to the same topics (Kafka's HOMOGENEOUS subscription type). */
    public boolean homogeneous() {
        SortedSet<UUID> first = null;
        for (MemberSpec member : members.values()) {
            if (first == null) {
                first = member.subscribedTopicIds();
            } else if (!first.equals(member.subscribedTopicIds())) {
                return false;
            }
        }
        return true;
    }
}
