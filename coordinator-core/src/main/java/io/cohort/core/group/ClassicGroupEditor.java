package io.cohort.core.group;

import io.cohort.core.Bytes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A private, mutable working copy of a {@link ClassicGroup} that a handler edits while it decides
 * what to do; {@link #build()} turns it back into the value the handler puts in a record. Editing
 * never touches the shard: only replaying the resulting record does.
 */
public final class ClassicGroupEditor implements GroupMembership {
    private final String groupId;
    private ClassicGroupState state;
    private ClassicGroupState previousState;
    private long stateTimestampMs;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private final LinkedHashMap<String, ClassicGroupMember> members;
    private final LinkedHashMap<String, Integer> pendingMembers;
    private final LinkedHashSet<String> pendingSyncMembers;
    private Set<String> subscribedTopics;
    private JoinTimer joinTimer;
    private boolean newMemberAdded;
    private SyncTimer syncTimer;

    ClassicGroupEditor(ClassicGroup group) {
        this.groupId = group.groupId();
        this.state = group.state();
        this.previousState = group.previousState();
        this.stateTimestampMs = group.stateTimestampMs();
        this.generationId = group.generationId();
        this.protocolType = group.protocolType();
        this.protocolName = group.protocolName();
        this.leaderId = group.leaderId();
        this.members = new LinkedHashMap<>(group.members());
        this.pendingMembers = new LinkedHashMap<>(group.pendingMembers());
        this.pendingSyncMembers = new LinkedHashSet<>(group.pendingSyncMembers());
        this.subscribedTopics = group.subscribedTopics();
        this.joinTimer = group.joinTimer();
        this.newMemberAdded = group.newMemberAdded();
        this.syncTimer = group.syncTimer();
    }

    public ClassicGroup build() {
        return new ClassicGroup(groupId, state, previousState, stateTimestampMs, generationId, protocolType,
                protocolName, leaderId, members, pendingMembers, pendingSyncMembers, subscribedTopics, joinTimer,
                newMemberAdded, syncTimer);
    }

    /** The current edited value (a fresh immutable copy). */
    public ClassicGroup view() {
        return build();
    }

    public String groupId() {
        return groupId;
    }

    public ClassicGroupState state() {
        return state;
    }

    public ClassicGroupState previousState() {
        return previousState;
    }

    public boolean isInState(ClassicGroupState candidate) {
        return state == candidate;
    }

    public int generationId() {
        return generationId;
    }

    public String protocolType() {
        return protocolType;
    }

    public String protocolName() {
        return protocolName;
    }

    public String leaderId() {
        return leaderId;
    }

    public boolean isLeader(String memberId) {
        return memberId != null && memberId.equals(leaderId);
    }

    @Override
    public boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    public ClassicGroupMember member(String memberId) {
        return members.get(memberId);
    }

    /** Members in join order; a copy, so callers may edit while iterating. */
    public List<ClassicGroupMember> allMembers() {
        return new ArrayList<>(members.values());
    }

    public int numMembers() {
        return members.size();
    }

    public boolean isPendingMember(String memberId) {
        return pendingMembers.containsKey(memberId);
    }

    public Set<String> pendingSyncMembers() {
        return new LinkedHashSet<>(pendingSyncMembers);
    }

    public JoinTimer joinTimer() {
        return joinTimer;
    }

    public SyncTimer syncTimer() {
        return syncTimer;
    }

    public boolean newMemberAdded() {
        return newMemberAdded;
    }

    @Override
    public String staticMemberId(String groupInstanceId) {
        return ClassicGroup.staticMemberId(members.values(), groupInstanceId);
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

    public boolean hasAllMembersJoined() {
        return members.size() == numAwaitingJoin() && pendingMembers.isEmpty();
    }

    public int rebalanceTimeoutMs() {
        int max = 0;
        for (ClassicGroupMember member : members.values()) {
            max = Math.max(max, member.rebalanceTimeoutMs());
        }
        return max;
    }

    /** Moves to {@code target}, enforcing the state machine of {@link ClassicGroupState}. */
    public void transitionTo(ClassicGroupState target, long nowMs) {
        if (!target.validPreviousStates().contains(state)) {
            throw new IllegalStateException("Group " + groupId + " should be in one of "
                    + target.validPreviousStates() + " before moving to " + target + ", but is " + state);
        }
        previousState = state;
        state = target;
        stateTimestampMs = nowMs;
    }

    /** Adds a member; the first member of an empty group sets the protocol type and leads. */
    public void add(ClassicGroupMember member) {
        if (member.groupInstanceId() != null && staticMemberId(member.groupInstanceId()) != null) {
            throw new IllegalStateException("Static member with instance id " + member.groupInstanceId()
                    + " already exists in group " + groupId);
        }
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        members.put(member.memberId(), member);
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        pendingMembers.remove(member.memberId());
    }

    /** Replaces a member's value in place (same id, same position). */
    public void update(ClassicGroupMember member) {
        if (!members.containsKey(member.memberId())) {
            throw new IllegalStateException("Member " + member.memberId() + " is not in group " + groupId);
        }
        members.put(member.memberId(), member);
    }

    /** Removes a member (or pending member); a removed leader is succeeded by the next in join order. */
    public void remove(String memberId) {
        members.remove(memberId);
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
        pendingMembers.remove(memberId);
        pendingSyncMembers.remove(memberId);
    }

    public void addPendingMember(String memberId, int sessionTimeoutMs) {
        if (members.containsKey(memberId)) {
            throw new IllegalStateException("Pending member " + memberId + " is already a member of " + groupId);
        }
        pendingMembers.put(memberId, sessionTimeoutMs);
    }

    /**
     * Moves a static member to a new member id, keeping its assignment, timeouts and protocols; the
     * replaced id keeps leadership and pending-sync status. Returns the new member.
     */
    public ClassicGroupMember replaceStaticMember(String groupInstanceId, String oldMemberId, String newMemberId) {
        ClassicGroupMember removed = members.remove(oldMemberId);
        if (removed == null) {
            throw new IllegalStateException("Cannot replace non-existing member " + oldMemberId + " of " + groupId);
        }
        ClassicGroupMember replacement = removed.replacedBy(newMemberId);
        members.put(newMemberId, replacement);
        if (isLeader(oldMemberId)) {
            leaderId = newMemberId;
        }
        if (pendingSyncMembers.remove(oldMemberId)) {
            pendingSyncMembers.add(newMemberId);
        }
        if (!groupInstanceId.equals(replacement.groupInstanceId())) {
            throw new IllegalStateException("Instance id mismatch replacing " + oldMemberId);
        }
        return replacement;
    }

    public void addPendingSyncMember(String memberId) {
        pendingSyncMembers.add(memberId);
    }

    public boolean removePendingSyncMember(String memberId) {
        return pendingSyncMembers.remove(memberId);
    }

    public void clearPendingSyncMembers() {
        pendingSyncMembers.clear();
    }

    public boolean hasReceivedSyncFromAllMembers() {
        return pendingSyncMembers.isEmpty();
    }

    public void setJoinTimer(JoinTimer timer) {
        this.joinTimer = timer;
    }

    public void setSyncTimer(SyncTimer timer) {
        this.syncTimer = timer;
    }

    public void setNewMemberAdded(boolean value) {
        this.newMemberAdded = value;
    }

    /**
     * Whether a member of protocol type {@code memberProtocolType} offering {@code memberProtocols}
     * may join: an empty group takes any non-empty type with at least one protocol; otherwise the type
     * must match and one offered protocol must be supported by every current member.
     */
    public boolean supportsProtocols(String memberProtocolType, List<Protocol> memberProtocols) {
        if (state == ClassicGroupState.EMPTY) {
            return memberProtocolType != null && !memberProtocolType.isEmpty() && !memberProtocols.isEmpty();
        }
        if (protocolType == null || !protocolType.equals(memberProtocolType)) {
            return false;
        }
        Map<String, Integer> support = supportedProtocolCounts();
        for (Protocol protocol : memberProtocols) {
            if (support.getOrDefault(protocol.name(), 0) == members.size()) {
                return true;
            }
        }
        return false;
    }

    private Map<String, Integer> supportedProtocolCounts() {
        Map<String, Integer> counts = new HashMap<>();
        for (ClassicGroupMember member : members.values()) {
            Set<String> names = new HashSet<>();
            for (Protocol protocol : member.protocols()) {
                if (names.add(protocol.name())) {
                    counts.merge(protocol.name(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /** Protocol names supported by every member. */
    public Set<String> candidateProtocols() {
        Map<String, Integer> counts = supportedProtocolCounts();
        Set<String> candidates = new TreeSet<>();
        counts.forEach((name, count) -> {
            if (count == members.size()) {
                candidates.add(name);
            }
        });
        return candidates;
    }

    /**
     * The protocol every member supports that most members prefer. Kafka leaves ties to hash order;
     * Cohort breaks them deterministically by the preference order of the first member in join order,
     * so every replica selects the same protocol.
     */
    public String selectProtocol() {
        if (members.isEmpty()) {
            throw new IllegalStateException("Cannot select a protocol for empty group " + groupId);
        }
        Set<String> candidates = candidateProtocols();
        Map<String, Integer> votes = new HashMap<>();
        for (ClassicGroupMember member : members.values()) {
            votes.merge(member.vote(candidates), 1, Integer::sum);
        }
        String best = null;
        int bestVotes = -1;
        for (Protocol protocol : members.values().iterator().next().protocols()) {
            int count = votes.getOrDefault(protocol.name(), 0);
            if (count > bestVotes) {
                best = protocol.name();
                bestVotes = count;
            }
        }
        return best;
    }

    /**
     * If the leader has not rejoined, hands leadership to the first member that has. Returns whether
     * the group has a leader that rejoined.
     */
    public boolean maybeElectNewJoinedLeader() {
        if (leaderId == null) {
            return false;
        }
        ClassicGroupMember leader = members.get(leaderId);
        if (leader != null && leader.awaitingJoin()) {
            return true;
        }
        for (ClassicGroupMember member : members.values()) {
            if (member.awaitingJoin()) {
                leaderId = member.memberId();
                return true;
            }
        }
        return false;
    }

    /**
     * Completes a join phase: generation + 1, the protocol selected (cleared without members), the
     * subscribed topics recomputed, and the group moved to CompletingRebalance or Empty.
     */
    public void initNextGeneration(long nowMs) {
        generationId++;
        if (!members.isEmpty()) {
            protocolName = selectProtocol();
            subscribedTopics = computeSubscribedTopics();
            transitionTo(ClassicGroupState.COMPLETING_REBALANCE, nowMs);
        } else {
            protocolName = null;
            subscribedTopics = computeSubscribedTopics();
            transitionTo(ClassicGroupState.EMPTY, nowMs);
        }
        pendingSyncMembers.clear();
    }

    private Set<String> computeSubscribedTopics() {
        if (protocolType == null) {
            return null;
        }
        if (members.isEmpty()) {
            return Set.of();
        }
        if (!ClassicGroup.CONSUMER_PROTOCOL_TYPE.equals(protocolType) || protocolName == null) {
            return null;
        }
        Set<String> topics = new TreeSet<>();
        for (ClassicGroupMember member : members.values()) {
            Bytes metadata = member.metadata(protocolName);
            List<String> parsed = metadata == null ? null : ConsumerSubscriptionReader.topics(metadata);
            if (parsed == null) {
                return null;
            }
            topics.addAll(parsed);
        }
        return topics;
    }

    /** Sets every member's assignment (members missing from {@code assignments} get an empty one). */
    public void setAssignments(Map<String, Bytes> assignments) {
        for (ClassicGroupMember member : allMembers()) {
            members.put(member.memberId(), member.withAssignment(assignments.getOrDefault(member.memberId(), Bytes.EMPTY)));
        }
    }

    public void clearAssignments() {
        setAssignments(Map.of());
    }
}
