package io.cohort.core.shard;

import io.cohort.core.command.Command;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * The periodic offset-expiration job (KIP-211, reference 3.4), judged at the command's leader time.
 * Expired offsets get tombstones; an Empty group left with no offsets is deleted.
 */
final class OffsetExpiryHandler {
    private final Map<String, ClassicGroup> groups;
    private final Map<String, ConsumerGroup> consumerGroups;
    private final OffsetStore offsets;

    OffsetExpiryHandler(Map<String, ClassicGroup> groups, Map<String, ConsumerGroup> consumerGroups,
                        OffsetStore offsets) {
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.offsets = offsets;
    }

    void expire(ResultBuilder result) {
        // Sorted, so every replica emits the same records in the same order.
        for (String groupId : new TreeSet<>(groups.keySet())) {
            if (cleanupExpiredOffsets(groups.get(groupId), result)
                    && groups.get(groupId).isInState(ClassicGroupState.EMPTY)) {
                result.record(new CoordinatorRecord.GroupTombstone(groupId));
            }
        }
        for (String groupId : new TreeSet<>(consumerGroups.keySet())) {
            ConsumerGroup group = consumerGroups.get(groupId);
            if (cleanupExpiredConsumerGroupOffsets(group, result) && group.isEmpty()) {
                result.record(new CoordinatorRecord.ConsumerGroupTombstone(groupId));
            }
        }
        long nextRunMs = result.nowMs + result.config.offsetsRetentionCheckIntervalMs();
        result.schedule(io.cohort.core.shard.TimerOp.Keys.EXPIRE_OFFSETS, nextRunMs, new Command.ExpireOffsets());
    }

    /** Tombstones the group's expired offsets; returns whether none is left. */
    private boolean cleanupExpiredOffsets(ClassicGroup group, ResultBuilder result) {
        if (!offsets.hasOffsets(group.groupId())) {
            return true;
        }
        ToLongFunction<OffsetAndMetadata> baseTimestamp = expirationBase(group);
        if (baseTimestamp == null) {
            return false;
        }
        boolean allExpired = true;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.offsets(group.groupId()).entrySet()) {
            TopicPartition partition = entry.getKey();
            if (!group.isSubscribedToTopic(partition.topic())
                    && isExpired(entry.getValue(), baseTimestamp, result)) {
                result.record(new CoordinatorRecord.OffsetTombstone(group.groupId(), partition.topic(),
                        partition.partition()));
            } else {
                allExpired = false;
            }
        }
        return allExpired;
    }

    /**
     * A consumer group's offsets expire as Kafka's ConsumerGroup decides: counted from each commit,
     * except for topics some member subscribes to, which never expire. Returns whether none is left.
     */
    private boolean cleanupExpiredConsumerGroupOffsets(ConsumerGroup group, ResultBuilder result) {
        boolean allExpired = true;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.offsets(group.groupId()).entrySet()) {
            TopicPartition partition = entry.getKey();
            if (!group.isSubscribedToTopic(partition.topic())
                    && isExpired(entry.getValue(), OffsetAndMetadata::commitTimestampMs, result)) {
                result.record(new CoordinatorRecord.OffsetTombstone(group.groupId(), partition.topic(),
                        partition.partition()));
            } else {
                allExpired = false;
            }
        }
        return allExpired;
    }

    /**
     * The timestamp retention counts from, or null when nothing of this group may expire: an Empty
     * group with a protocol counts from when it became Empty; a Stable consumer group with known
     * subscriptions and a simple group count from each commit; a rebalancing group never expires
     * offsets (KAFKA-13636).
     */
    private static ToLongFunction<OffsetAndMetadata> expirationBase(ClassicGroup group) {
        if (group.protocolType() == null) {
            return OffsetAndMetadata::commitTimestampMs;
        }
        if (group.isInState(ClassicGroupState.EMPTY)) {
            long becameEmptyMs = group.stateTimestampMs();
            return offset -> becameEmptyMs >= 0 ? becameEmptyMs : offset.commitTimestampMs();
        }
        if (group.usesConsumerProtocol() && group.subscribedTopics() != null
                && group.isInState(ClassicGroupState.STABLE)) {
            return OffsetAndMetadata::commitTimestampMs;
        }
        return null;
    }

    private static boolean isExpired(OffsetAndMetadata offset, ToLongFunction<OffsetAndMetadata> baseTimestamp,
                                     ResultBuilder result) {
        if (offset.hasExpireTimestamp()) {
            return result.nowMs >= offset.expireTimestampMs();
        }
        return result.nowMs - baseTimestamp.applyAsLong(offset) >= result.config.offsetsRetentionMs();
    }
}
