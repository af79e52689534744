package io.cohort.core.group;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * An immutable snapshot of one classic group: everything needed to continue it on any replica,
 * including the parts Kafka keeps only in memory (pending members, parked calls, pending syncs,
 * armed join and sync timers). Handlers read it and edit a private {@link ClassicGroupEditor}
 * copy; the shard only ever stores values built by replaying records.
 *
 * @param groupId            the group id
 * @param state              the current state
 * @param previousState      the state before the last transition (the initial rebalance test)
 * @param stateTimestampMs   leader time of the last transition (Kafka's currentStateTimestamp), -1 unknown
 * @param generationId       the generation, +1 per completed join phase
 * @param protocolType       set by the first member of an empty group; null for simple groups
 * @param protocolName       the selected protocol of the current generation, or null
 * @param leaderId           the leader's member id, or null
 * @param members            members in join order (the leader election order)
 * @param pendingMembers     ids handed out with MEMBER_ID_REQUIRED, to their session timeout in ms
 * @param pendingSyncMembers members of this generation that have not sent SyncGroup yet
 * @param subscribedTopics   topics the group consumes, computed at each new generation; null = unknown
 * @param joinTimer          the armed join-phase timer, or null
 * @param newMemberAdded     a member joined since the last initial-delay firing
 * @param syncTimer          the armed pending-sync timer, or null
 */
public record ClassicGroup(
        String groupId,
        ClassicGroupState state,
        ClassicGroupState previousState,
        long stateTimestampMs,
        int generationId,
        String protocolType,
        String protocolName,
        String leaderId,
        Map<String, ClassicGroupMember> members,
        Map<String, Integer> pendingMembers,
        Set<String> pendingSyncMembers,
        Set<String> subscribedTopics,
        JoinTimer joinTimer,
        boolean newMemberAdded,
        SyncTimer syncTimer) implements GroupMembership {

    /** The protocol type of Kafka consumers, whose metadata the coordinator can parse. */
    public static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    public ClassicGroup {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(previousState, "previousState");
        members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
        pendingMembers = Collections.unmodifiableMap(new LinkedHashMap<>(pendingMembers));
        pendingSyncMembers = Collections.unmodifiableSet(new LinkedHashSet<>(pendingSyncMembers));
        subscribedTopics = subscribedTopics == null ? null : Collections.unmodifiableSet(new TreeSet<>(subscribedTopics));
    }

    /** A new, empty group at generation 0, as created by a first JoinGroup or a simple commit. */
    public static ClassicGroup newEmpty(String groupId, long nowMs) {
        return new ClassicGroup(groupId, ClassicGroupState.EMPTY, ClassicGroupState.EMPTY, nowMs, 0, null, null,
                null, Map.of(), Map.of(), Set.of(), null, null, false, null);
    }

    public ClassicGroupEditor edit() {
        return new ClassicGroupEditor(this);
    }

    public boolean isInState(ClassicGroupState candidate) {
        return state == candidate;
    }

    @Override
    public boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    public ClassicGroupMember member(String memberId) {
        return members.get(memberId);
    }

    public boolean isPendingMember(String memberId) {
        return pendingMembers.containsKey(memberId);
    }

    public boolean isLeader(String memberId) {
        return memberId != null && memberId.equals(leaderId);
    }

    @Override
    public String staticMemberId(String groupInstanceId) {
        return staticMemberId(members.values(), groupInstanceId);
    }

    static String staticMemberId(Iterable<ClassicGroupMember> members, String groupInstanceId) {
        if (groupInstanceId == null) {
            return null;
        }
        for (ClassicGroupMember member : members) {
            if (groupInstanceId.equals(member.groupInstanceId())) {
                return member.memberId();
            }
        }
        return null;
    }

    public boolean usesConsumerProtocol() {
        return CONSUMER_PROTOCOL_TYPE.equals(protocolType);
    }

    /**
     * Whether offsets of {@code topic} are protected as subscribed. An unknown subscription (no
     * protocol type, or unparsable metadata) counts as "subscribed to everything" for consumer groups.
     */
    public boolean isSubscribedToTopic(String topic) {
        if (subscribedTopics == null) {
            return usesConsumerProtocol();
        }
        return subscribedTopics.contains(topic);
    }

    /** The group-level rebalance timeout: the largest of its members' (0 without members). */
    public int rebalanceTimeoutMs() {
        int max = 0;
        for (ClassicGroupMember member : members.values()) {
            max = Math.max(max, member.rebalanceTimeoutMs());
        }
        return max;
    }

    public int numAwaitingJoin() {
        int count = 0;
        for (ClassicGroupMember member : members.values()) {
            if (member.awaitingJoin()) {
                count++;
            }
        }
        return count;
    }

    /** Every member has a parked JoinGroup and no MEMBER_ID_REQUIRED id is outstanding. */
    public boolean hasAllMembersJoined() {
        return members.size() == numAwaitingJoin() && pendingMembers.isEmpty();
    }

    /** The member list the leader receives: metadata for the selected protocol, in join order. */
    public List<JoinedMember> joinedMembersForLeader() {
        return members.values().stream()
                .map(m -> new JoinedMember(m.memberId(), m.groupInstanceId(), m.metadata(protocolName)))
                .toList();
    }

    /** A member entry of the leader's JoinGroup response. */
    public record JoinedMember(String memberId, String groupInstanceId, io.cohort.core.Bytes metadata) {
    }
}
