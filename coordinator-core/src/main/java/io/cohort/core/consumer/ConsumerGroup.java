package io.cohort.core.consumer;

import io.cohort.core.topic.TopicMetadata;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * An immutable value of one consumer group (KIP-848), as the replayed records built it: the group
 * and assignment epochs, the members, every member's target assignment, the metadata of the
 * subscribed topics as last stored, and the resolutions of the members' regexes. The owner of each
 * partition (Kafka's currentPartitionEpoch) is derived from the members' assigned and
 * pending-revocation partitions and cached, so it never needs its own record.
 *
 * <p>Values are replaced whole in the shard's concurrent map, so readers on other threads see a
 * consistent group; every {@code with...} method returns a new value.
 */
public final class ConsumerGroup {
    private final String groupId;
    private final int groupEpoch;
    private final int assignmentEpoch;
    private final SortedMap<String, ConsumerGroupMember> members;
    private final SortedMap<String, Assignment> targetAssignment;
    private final SortedMap<String, TopicMetadata> subscriptionMetadata;
    private final SortedMap<String, SortedSet<String>> regexResolutions;
    /** topic id -> partition -> owning member id; built on first use. */
    private volatile Map<UUID, Map<Integer, String>> owners;

    private ConsumerGroup(String groupId, int groupEpoch, int assignmentEpoch,
                          SortedMap<String, ConsumerGroupMember> members, SortedMap<String, Assignment> targetAssignment,
                          SortedMap<String, TopicMetadata> subscriptionMetadata,
                          SortedMap<String, SortedSet<String>> regexResolutions) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.groupEpoch = groupEpoch;
        this.assignmentEpoch = assignmentEpoch;
        this.members = Collections.unmodifiableSortedMap(members);
        this.targetAssignment = Collections.unmodifiableSortedMap(targetAssignment);
        this.subscriptionMetadata = Collections.unmodifiableSortedMap(subscriptionMetadata);
        this.regexResolutions = Collections.unmodifiableSortedMap(regexResolutions);
    }

    /** A group with no members at epoch 0: what the first record of a new group is applied to. */
    public static ConsumerGroup newEmpty(String groupId) {
        return new ConsumerGroup(groupId, 0, 0, new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
    }

    public String groupId() {
        return groupId;
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int assignmentEpoch() {
        return assignmentEpoch;
    }

    public SortedMap<String, ConsumerGroupMember> members() {
        return members;
    }

    public ConsumerGroupMember member(String memberId) {
        return members.get(memberId);
    }

    public SortedMap<String, Assignment> targetAssignment() {
        return targetAssignment;
    }

    /** A member's target assignment, empty if none was computed for it yet. */
    public Assignment targetAssignment(String memberId) {
        return targetAssignment.getOrDefault(memberId, Assignment.EMPTY);
    }

    /** The metadata of the subscribed topics as last stored, by topic name. */
    public SortedMap<String, TopicMetadata> subscriptionMetadata() {
        return subscriptionMetadata;
    }

    /** Each regex some member subscribes to, and the topic names it resolved to. */
    public SortedMap<String, SortedSet<String>> regexResolutions() {
        return regexResolutions;
    }

    public boolean isEmpty() {
        return members.isEmpty();
    }

    /** Derived as Kafka does: Empty, Assigning, Reconciling or Stable. */
    public ConsumerGroupState state() {
        if (members.isEmpty()) {
            return ConsumerGroupState.EMPTY;
        }
        if (groupEpoch > assignmentEpoch) {
            return ConsumerGroupState.ASSIGNING;
        }
        for (ConsumerGroupMember member : members.values()) {
            if (!member.isReconciledTo(assignmentEpoch)) {
                return ConsumerGroupState.RECONCILING;
            }
        }
        return ConsumerGroupState.STABLE;
    }

    /** The member holding static instance id {@code instanceId}, or null. */
    public ConsumerGroupMember staticMember(String instanceId) {
        if (instanceId == null) {
            return null;
        }
        for (ConsumerGroupMember member : members.values()) {
            if (instanceId.equals(member.instanceId())) {
                return member;
            }
        }
        return null;
    }

    /** The member owning a partition (assigned or pending revocation), or null if it is free. */
    public String ownerOf(UUID topicId, int partition) {
        Map<Integer, String> byPartition = owners().get(topicId);
        return byPartition == null ? null : byPartition.get(partition);
    }

    private Map<UUID, Map<Integer, String>> owners() {
        Map<UUID, Map<Integer, String>> built = owners;
        if (built == null) {
            built = new HashMap<>();
            for (ConsumerGroupMember member : members.values()) {
                addOwner(built, member.memberId(), member.assignedPartitions());
                addOwner(built, member.memberId(), member.partitionsPendingRevocation());
            }
            owners = built;
        }
        return built;
    }

    private void addOwner(Map<UUID, Map<Integer, String>> owners, String memberId, Assignment partitions) {
        partitions.partitions().forEach((topicId, set) -> {
            Map<Integer, String> byPartition = owners.computeIfAbsent(topicId, t -> new HashMap<>());
            for (int partition : set) {
                String previous = byPartition.put(partition, memberId);
                if (previous != null && !previous.equals(memberId)) {
                    throw new IllegalStateException("Group " + groupId + ": partition " + topicId + "-" + partition
                            + " owned by both " + previous + " and " + memberId);
                }
            }
        });
    }

    /**
     * The topic names the group subscribes to: every member's names and the topics its regex
     * resolved to (what ConsumerGroup.subscribedTopicNames is in Kafka).
     */
    public SortedSet<String> subscribedTopicNames() {
        SortedSet<String> names = new TreeSet<>();
        for (ConsumerGroupMember member : members.values()) {
            names.addAll(member.metadata().subscribedTopicNames());
            String regex = member.metadata().subscribedTopicRegex();
            if (regex != null) {
                names.addAll(regexResolutions.getOrDefault(regex, Collections.emptySortedSet()));
            }
        }
        return names;
    }

    /** Whether some member consumes {@code topic} (its offsets are kept and not deletable). */
    public boolean isSubscribedToTopic(String topic) {
        return subscribedTopicNames().contains(topic);
    }

    /** The names of the topics in the subscription metadata, by topic id (for describing assignments). */
    public Map<UUID, String> topicNames() {
        Map<UUID, String> names = new TreeMap<>();
        subscriptionMetadata.values().forEach(topic -> names.put(topic.topicId(), topic.name()));
        return names;
    }

    /**
     * The assignor the group uses: the one most members ask for among {@code supported} (ties go to
     * the smaller name, so every replica picks the same), else the first supported one; null if
     * none is supported.
     */
    public String preferredAssignor(List<String> supported) {
        Map<String, Integer> counts = new TreeMap<>();
        for (ConsumerGroupMember member : members.values()) {
            String name = member.metadata().serverAssignor();
            if (name != null && supported.contains(name)) {
                counts.merge(name, 1, Integer::sum);
            }
        }
        String best = null;
        int bestCount = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (e.getValue() > bestCount) {
                best = e.getKey();
                bestCount = e.getValue();
            }
        }
        if (best != null) {
            return best;
        }
        return supported.isEmpty() ? null : supported.get(0);
    }

    // ---- replay: each returns the new value; invariants broken by a record throw ----

    public ConsumerGroup withGroupEpoch(int epoch) {
        if (epoch < groupEpoch) {
            throw new IllegalStateException("Group " + groupId + ": epoch " + epoch + " < current " + groupEpoch);
        }
        return new ConsumerGroup(groupId, epoch, assignmentEpoch, members, targetAssignment, subscriptionMetadata,
                regexResolutions);
    }

    public ConsumerGroup withAssignmentEpoch(int epoch) {
        if (epoch > groupEpoch) {
            throw new IllegalStateException("Group " + groupId + ": assignment epoch " + epoch + " > group epoch "
                    + groupEpoch);
        }
        return new ConsumerGroup(groupId, groupEpoch, epoch, members, targetAssignment, subscriptionMetadata,
                regexResolutions);
    }

    public ConsumerGroup withSubscriptionMetadata(SortedMap<String, TopicMetadata> metadata) {
        return new ConsumerGroup(groupId, groupEpoch, assignmentEpoch, members, targetAssignment,
                new TreeMap<>(metadata), regexResolutions);
    }

    public ConsumerGroup withRegexResolutions(SortedMap<String, SortedSet<String>> resolutions) {
        return new ConsumerGroup(groupId, groupEpoch, assignmentEpoch, members, targetAssignment, subscriptionMetadata,
                new TreeMap<>(resolutions));
    }

    /** Sets a member's metadata, adding the member (epoch 0, nothing owned) if it is new. */
    public ConsumerGroup withMemberMetadata(String memberId, ConsumerMemberMetadata metadata) {
        ConsumerGroupMember old = members.get(memberId);
        ConsumerGroupMember updated = old == null
                ? new ConsumerGroupMember(memberId, metadata, ConsumerMemberAssignment.JOINING)
                : old.withMetadata(metadata);
        TreeMap<String, ConsumerGroupMember> newMembers = new TreeMap<>(members);
        newMembers.put(memberId, updated);
        return new ConsumerGroup(groupId, groupEpoch, assignmentEpoch, newMembers, targetAssignment,
                subscriptionMetadata, regexResolutions);
    }

    /** Sets a member's target assignment; the member must exist. */
    public ConsumerGroup withTargetAssignment(String memberId, Assignment target) {
        requireMember(memberId, "target assignment");
        TreeMap<String, Assignment> newTargets = new TreeMap<>(targetAssignment);
        newTargets.put(memberId, target);
        return new ConsumerGroup(groupId, groupEpoch, assignmentEpoch, members, newTargets, subscriptionMetadata,
                regexResolutions);
    }

    /**
     * Sets a member's current assignment; the member must exist and none of its partitions may be
     * owned by another member (revoke before assign, checked on every replica).
     */
    public ConsumerGroup withCurrentAssignment(String memberId, ConsumerMemberAssignment current) {
        ConsumerGroupMember old = requireMember(memberId, "current assignment");
        TreeMap<String, ConsumerGroupMember> newMembers = new TreeMap<>(members);
        newMembers.put(memberId, old.withCurrent(current));
        ConsumerGroup updated = new ConsumerGroup(groupId, groupEpoch, assignmentEpoch, newMembers, targetAssignment,
                subscriptionMetadata, regexResolutions);
        updated.owners();
        return updated;
    }

    /** Removes a member, its target assignment and so its partitions. */
    public ConsumerGroup withoutMember(String memberId) {
        requireMember(memberId, "member tombstone");
        TreeMap<String, ConsumerGroupMember> newMembers = new TreeMap<>(members);
        newMembers.remove(memberId);
        TreeMap<String, Assignment> newTargets = new TreeMap<>(targetAssignment);
        newTargets.remove(memberId);
        return new ConsumerGroup(groupId, groupEpoch, assignmentEpoch, newMembers, newTargets, subscriptionMetadata,
                regexResolutions);
    }

    private ConsumerGroupMember requireMember(String memberId, String what) {
        ConsumerGroupMember member = members.get(memberId);
        if (member == null) {
            throw new IllegalStateException("Group " + groupId + ": " + what + " for unknown member " + memberId);
        }
        return member;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConsumerGroup g && groupId.equals(g.groupId) && groupEpoch == g.groupEpoch
                && assignmentEpoch == g.assignmentEpoch && members.equals(g.members)
                && targetAssignment.equals(g.targetAssignment) && subscriptionMetadata.equals(g.subscriptionMetadata)
                && regexResolutions.equals(g.regexResolutions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(groupId, groupEpoch, assignmentEpoch, members, targetAssignment);
    }

    @Override
    public String toString() {
        return "ConsumerGroup[" + groupId + ", epoch=" + groupEpoch + ", assignmentEpoch=" + assignmentEpoch
                + ", members=" + members + ", target=" + targetAssignment + "]";
    }
}
