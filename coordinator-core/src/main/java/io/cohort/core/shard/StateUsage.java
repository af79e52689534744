package io.cohort.core.shard;

import io.cohort.core.StateLimits;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.Protocol;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one partition holds, counted against its {@link StateLimits}: offsets per group, offsets in
 * all, and metadata bytes (offset metadata chars, member protocol metadata and assignment bytes).
 * The number of groups is the group map's size.
 *
 * <p>The counters change only in replay (one call per record, O(1) per offset record, O(members)
 * per group record, which is the size of the record itself), so a snapshot restore, which replays,
 * rebuilds them. They live on the apply thread only.
 *
 * <p>{@link #growthViolation} projects the records one command produced over the current counts
 * without applying them: a command may not grow any count beyond its limit, but a command that does
 * not grow a count is accepted even when the count is already over the limit (state accepted by an
 * older build or under a higher limit is kept and may be updated or deleted).
 */
final class StateUsage {
    private final Map<String, Integer> offsetsByGroup = new HashMap<>();
    private long offsets;
    private long metadataBytes;

    long offsets() {
        return offsets;
    }

    long metadataBytes() {
        return metadataBytes;
    }

    int offsets(String groupId) {
        return offsetsByGroup.getOrDefault(groupId, 0);
    }

    void clear() {
        offsetsByGroup.clear();
        offsets = 0;
        metadataBytes = 0;
    }

    // ---- replay ----

    void onGroupReplaced(ClassicGroup old, ClassicGroup value) {
        metadataBytes += metadataBytes(value) - metadataBytes(old);
    }

    void onOffsetReplaced(String groupId, OffsetAndMetadata old, OffsetAndMetadata value) {
        if (old == null) {
            offsets++;
            offsetsByGroup.merge(groupId, 1, Integer::sum);
        }
        metadataBytes += metadataBytes(value) - metadataBytes(old);
    }

    void onOffsetRemoved(String groupId, OffsetAndMetadata old) {
        if (old == null) {
            return;
        }
        offsets--;
        if (offsetsByGroup.merge(groupId, -1, Integer::sum) == 0) {
            offsetsByGroup.remove(groupId);
        }
        metadataBytes -= metadataBytes(old);
    }

    /** Offset metadata is counted in chars, as offset.metadata.max.bytes is (Kafka compares length()). */
    static long metadataBytes(OffsetAndMetadata value) {
        return value == null ? 0 : value.metadata().length();
    }

    /** Every member's protocol metadata and assignment, in bytes. */
    static long metadataBytes(ClassicGroup group) {
        if (group == null) {
            return 0;
        }
        long bytes = 0;
        for (ClassicGroupMember member : group.members().values()) {
            for (Protocol protocol : member.protocols()) {
                bytes += protocol.metadata().size();
            }
            bytes += member.assignment().size();
        }
        return bytes;
    }

    // ---- projection ----

    /**
     * Why applying {@code records} would grow the partition beyond {@code limits}: a sentence naming
     * the limit's key and value, or null if they fit.
     */
    String growthViolation(List<CoordinatorRecord> records, Map<String, ClassicGroup> groups, OffsetStore store,
                           StateLimits limits) {
        Projection p = new Projection(groups, store);
        records.forEach(p::add);
        if (p.groupsAdded > 0 && groups.size() + p.groupsAdded > limits.maxGroupsPerPartition()) {
            return refusal(StateLimits.MAX_GROUPS_PER_PARTITION, limits.maxGroupsPerPartition(),
                    "the partition holds " + groups.size() + " groups and this request would add " + p.groupsAdded);
        }
        for (Map.Entry<String, Integer> added : p.offsetsAddedByGroup.entrySet()) {
            int held = offsets(added.getKey());
            if (added.getValue() > 0 && (long) held + added.getValue() > limits.maxOffsetsPerGroup()) {
                return refusal(StateLimits.MAX_OFFSETS_PER_GROUP, limits.maxOffsetsPerGroup(), "group "
                        + added.getKey() + " holds " + held + " offsets and this request would add "
                        + added.getValue());
            }
        }
        if (p.offsetsAdded > 0 && offsets + p.offsetsAdded > limits.maxOffsetsPerPartition()) {
            return refusal(StateLimits.MAX_OFFSETS_PER_PARTITION, limits.maxOffsetsPerPartition(),
                    "the partition holds " + offsets + " offsets and this request would add " + p.offsetsAdded);
        }
        if (p.metadataBytesAdded > 0 && metadataBytes + p.metadataBytesAdded > limits.maxMetadataBytesPerPartition()) {
            return refusal(StateLimits.MAX_METADATA_BYTES_PER_PARTITION, limits.maxMetadataBytesPerPartition(),
                    "the partition holds " + metadataBytes + " bytes of metadata and this request would add "
                            + p.metadataBytesAdded);
        }
        return null;
    }

    private static String refusal(String key, long limit, String detail) {
        return key + "=" + limit + " would be exceeded: " + detail + "; nothing of the request was applied";
    }

    /** The effect of a command's records on the counts, with later records seeing earlier ones. */
    private static final class Projection {
        private final Map<String, ClassicGroup> groups;
        private final OffsetStore store;
        /** Group values as the records leave them; an empty value is a group the records delete. */
        private final Map<String, Optional<ClassicGroup>> groupOverlay = new HashMap<>();
        private final Map<OffsetKey, Optional<OffsetAndMetadata>> offsetOverlay = new HashMap<>();
        /** In record order, so the first group named in a refusal is the same on every replica. */
        private final Map<String, Integer> offsetsAddedByGroup = new LinkedHashMap<>();
        private int groupsAdded;
        private int offsetsAdded;
        private long metadataBytesAdded;

        Projection(Map<String, ClassicGroup> groups, OffsetStore store) {
            this.groups = groups;
            this.store = store;
        }

        void add(CoordinatorRecord record) {
            if (record instanceof CoordinatorRecord.GroupValue r) {
                ClassicGroup old = group(r.groupId());
                groupsAdded += old == null ? 1 : 0;
                metadataBytesAdded += metadataBytes(r.group()) - metadataBytes(old);
                groupOverlay.put(r.groupId(), Optional.of(r.group()));
            } else if (record instanceof CoordinatorRecord.GroupTombstone r) {
                ClassicGroup old = group(r.groupId());
                groupsAdded -= old == null ? 0 : 1;
                metadataBytesAdded -= metadataBytes(old);
                groupOverlay.put(r.groupId(), Optional.empty());
            } else if (record instanceof CoordinatorRecord.OffsetValue r) {
                if (group(r.groupId()) == null) {
                    // Replay creates a simple group for offsets of an unknown group.
                    groupsAdded++;
                    groupOverlay.put(r.groupId(), Optional.of(ClassicGroup.newEmpty(r.groupId(), 0)));
                }
                OffsetKey key = new OffsetKey(r.groupId(), new TopicPartition(r.topic(), r.partition()));
                OffsetAndMetadata old = offset(key);
                if (old == null) {
                    offsetsAdded++;
                    offsetsAddedByGroup.merge(r.groupId(), 1, Integer::sum);
                }
                metadataBytesAdded += metadataBytes(r.value()) - metadataBytes(old);
                offsetOverlay.put(key, Optional.of(r.value()));
            } else if (record instanceof CoordinatorRecord.OffsetTombstone r) {
                OffsetKey key = new OffsetKey(r.groupId(), new TopicPartition(r.topic(), r.partition()));
                OffsetAndMetadata old = offset(key);
                if (old != null) {
                    offsetsAdded--;
                    offsetsAddedByGroup.merge(r.groupId(), -1, Integer::sum);
                    metadataBytesAdded -= metadataBytes(old);
                }
                offsetOverlay.put(key, Optional.empty());
            } else if (record instanceof CoordinatorRecord.AclValue || record instanceof CoordinatorRecord.AclTombstone
                    || record instanceof CoordinatorRecord.GroupConfigValue) {
                // ACLs and group settings are cluster settings, not group state: no state limit counts them.
            } else {
                throw new IllegalStateException("Unknown record type " + record);
            }
        }

        private ClassicGroup group(String groupId) {
            Optional<ClassicGroup> projected = groupOverlay.get(groupId);
            return projected != null ? projected.orElse(null) : groups.get(groupId);
        }

        private OffsetAndMetadata offset(OffsetKey key) {
            Optional<OffsetAndMetadata> projected = offsetOverlay.get(key);
            return projected != null ? projected.orElse(null) : store.get(key.groupId(), key.partition());
        }
    }

    private record OffsetKey(String groupId, TopicPartition partition) {
    }
}
