package io.cohort.core.simulation;

import io.cohort.core.group.ClassicGroup.JoinedMember;
import io.cohort.core.group.Protocol;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.shard.ParkKey;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated consumer: what a real client knows about its membership (member id, generation,
 * leadership, assignment) and which call it is waiting on. The driver moves it through its phases
 * as answers arrive; the client never looks at the shard's state.
 */
final class SimClient {
    /** Where the client is in the classic protocol. */
    enum Phase {
        /** Not running (closed, crashed, or stopped by a fatal error). */
        STOPPED,
        /** Running and must (re)join, with {@link #memberId} ("" when it has none). */
        UNJOINED,
        /** Its JoinGroup is parked; the answer comes as a completion for {@link #parked}. */
        JOIN_PARKED,
        /** JoinGroup answered; must send SyncGroup for {@link #generation}. */
        SYNC_NEEDED,
        /** Its SyncGroup is parked. */
        SYNC_PARKED,
        /** Has the assignment of {@link #generation}; heartbeats and commits. */
        STABLE
    }

    final int index;
    final String clientId;
    final String groupId;
    final String instanceId;
    final short joinVersion;
    List<String> protocolNames;
    List<String> topics;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;

    Phase phase = Phase.STOPPED;
    String memberId = "";
    int generation = -1;
    String protocolName;
    boolean leader;
    boolean skipAssignment;
    List<JoinedMember> leaderMembers = List.of();
    ParkKey parked;
    List<TopicPartition> assignment = List.of();
    /** The last request it sent (Join, Sync, Commit or Leave), which the network may deliver again. */
    io.cohort.core.command.Command lastRequest;

    SimClient(int index, String groupId, String instanceId, short joinVersion, List<String> protocolNames,
              List<String> topics, int sessionTimeoutMs, int rebalanceTimeoutMs) {
        this.index = index;
        this.clientId = "c" + index;
        this.groupId = groupId;
        this.instanceId = instanceId;
        this.joinVersion = joinVersion;
        this.protocolNames = protocolNames;
        this.topics = topics;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    }

    boolean isStatic() {
        return instanceId != null;
    }

    boolean isRunning() {
        return phase != Phase.STOPPED;
    }

    /** The protocols it offers, each with a subscription naming its topics and the protocol. */
    List<Protocol> protocols() {
        List<Protocol> protocols = new ArrayList<>();
        for (String name : protocolNames) {
            protocols.add(new Protocol(name, SimCodec.subscription(topics, name)));
        }
        return protocols;
    }

    /** Who owns an assignment: a static instance keeps its identity across member ids. */
    static String ownerKey(String memberId, String instanceId) {
        return instanceId != null ? "instance:" + instanceId : "member:" + memberId;
    }

    String ownerKey() {
        return ownerKey(memberId, instanceId);
    }

    /** Forgets the membership and rejoins as a new member (after UNKNOWN_MEMBER_ID, or a restart). */
    void resetMembership() {
        memberId = "";
        generation = -1;
        leader = false;
        skipAssignment = false;
        leaderMembers = List.of();
        protocolName = null;
        assignment = List.of();
    }

    /** Keeps the member id, drops the generation's state and rejoins (REBALANCE_IN_PROGRESS and co). */
    void rejoin() {
        phase = Phase.UNJOINED;
        parked = null;
    }

    void stop() {
        resetMembership();
        phase = Phase.STOPPED;
        parked = null;
    }

    @Override
    public String toString() {
        return clientId + "[" + groupId + (instanceId != null ? "," + instanceId : "") + ",v" + joinVersion + ","
                + phase + ",member=" + (memberId.isEmpty() ? "-" : memberId) + ",gen=" + generation
                + (leader ? ",leader" : "") + "]";
    }
}
