package io.cohort.core.shard;

import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.CoordinatorRecord.ConsumerGroupEpochValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberTombstone;
import io.cohort.core.record.CoordinatorRecord.ConsumerRegexResolutionsValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerSubscriptionMetadataValue;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The records one consumer-group command produces, applied as they are added to a working copy of
 * the group, so that each step (member update, target assignment, reconciliation) reads the
 * previous steps' result. Nothing reaches the shard unless the whole command succeeds
 * ({@link #commitTo}).
 */
final class ConsumerGroupChange {
    private ConsumerGroup group;
    private final List<CoordinatorRecord> records = new ArrayList<>();

    ConsumerGroupChange(ConsumerGroup group) {
        this.group = group;
    }

    ConsumerGroup group() {
        return group;
    }

    void add(CoordinatorRecord record) {
        group = ConsumerGroupReplay.apply(group, record);
        records.add(record);
    }

    boolean isEmpty() {
        return records.isEmpty();
    }

    void commitTo(ResultBuilder result) {
        records.forEach(result::record);
    }

    /**
     * Brings the group's regex resolutions and subscription metadata in line with its members and
     * {@code lookup}: a regex or topic name the lookup covers takes the lookup's answer, others keep
     * what is stored; regexes and topics no member subscribes to any more are dropped. Returns
     * whether either changed (which bumps the group epoch, as a metadata change does in Kafka).
     */
    boolean updateSubscriptionState(TopicLookup lookup) {
        SortedMap<String, SortedSet<String>> resolutions = new TreeMap<>();
        for (ConsumerGroupMember member : group.members().values()) {
            String regex = member.metadata().subscribedTopicRegex();
            if (regex != null && !resolutions.containsKey(regex)) {
                SortedSet<String> resolved = lookup.regexResolutions().get(regex);
                if (resolved == null) {
                    resolved = group.regexResolutions().getOrDefault(regex, Collections.emptySortedSet());
                }
                resolutions.put(regex, new TreeSet<>(resolved));
            }
        }
        boolean changed = false;
        if (!resolutions.equals(group.regexResolutions())) {
            add(new ConsumerRegexResolutionsValue(group.groupId(), resolutions));
            changed = true;
        }
        SortedMap<String, TopicMetadata> metadata = new TreeMap<>();
        for (String name : group.subscribedTopicNames()) {
            TopicMetadata topic = lookup.lookedUp(name) ? lookup.found().get(name)
                    : group.subscriptionMetadata().get(name);
            if (topic != null) {
                metadata.put(name, topic);
            }
        }
        if (!metadata.equals(group.subscriptionMetadata())) {
            add(new ConsumerSubscriptionMetadataValue(group.groupId(), metadata));
            changed = true;
        }
        return changed;
    }

    void bumpGroupEpoch() {
        add(new ConsumerGroupEpochValue(group.groupId(), group.groupEpoch() + 1));
    }

    /**
     * Kafka's fencing of a member (leave, session expiry, rebalance timeout): the member and its
     * assignments go, its partitions are free at once, and the group epoch moves so the next
     * heartbeat of another member computes a new target assignment.
     */
    void removeMember(String memberId, ResultBuilder result) {
        add(new ConsumerMemberTombstone(group.groupId(), memberId));
        updateSubscriptionState(TopicLookup.NONE);
        bumpGroupEpoch();
        result.cancel(TimerOp.Keys.consumerSession(group.groupId(), memberId));
        result.cancel(TimerOp.Keys.consumerRebalance(group.groupId(), memberId));
    }
}
