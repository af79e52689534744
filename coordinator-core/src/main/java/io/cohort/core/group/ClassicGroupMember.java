package io.cohort.core.group;

import io.cohort.core.Bytes;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * An immutable member of a classic group. Besides what Kafka persists, it carries the flags that
 * Kafka keeps only in memory (awaiting join, awaiting sync, new), because in Cohort the whole
 * state, in-flight rebalances included, is replicated: a new Raft leader continues a rebalance.
 *
 * @param memberId            the member's id, unique in the group
 * @param groupInstanceId     the static instance id, or null for a dynamic member
 * @param clientId            the client id the member joined with
 * @param clientHost          the client's host as the front end saw it
 * @param rebalanceTimeoutMs  how long the member may take to rejoin during a rebalance
 * @param sessionTimeoutMs    how long the member may go without a heartbeat
 * @param protocolType        for example "consumer"
 * @param protocols           supported protocols in the member's order of preference
 * @param assignment          the member's assignment of the current generation (empty if none)
 * @param awaitingJoin        a JoinGroup of this member is parked (Kafka's awaitingJoinFuture)
 * @param awaitingSync        a SyncGroup of this member is parked (Kafka's awaitingSyncFuture)
 * @param isNew               added by a JoinGroup that has not completed yet (KAFKA-7610 timeout)
 */
public record ClassicGroupMember(
        String memberId,
        String groupInstanceId,
        String clientId,
        String clientHost,
        int rebalanceTimeoutMs,
        int sessionTimeoutMs,
        String protocolType,
        List<Protocol> protocols,
        Bytes assignment,
        boolean awaitingJoin,
        boolean awaitingSync,
        boolean isNew) {

    public ClassicGroupMember {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        Objects.requireNonNull(protocolType, "protocolType");
        protocols = List.copyOf(protocols);
        Objects.requireNonNull(assignment, "assignment");
    }

    public boolean isStatic() {
        return groupInstanceId != null;
    }

    /** The metadata this member sent for {@code protocolName}, or null if it does not support it. */
    public Bytes metadata(String protocolName) {
        for (Protocol protocol : protocols) {
            if (protocol.name().equals(protocolName)) {
                return protocol.metadata();
            }
        }
        return null;
    }

    /** Whether a rejoin with {@code other} protocols changes nothing (same names, order and bytes). */
    public boolean matches(List<Protocol> other) {
        return protocols.equals(other);
    }

    /** The first protocol in this member's preference order that is among {@code candidates}. */
    public String vote(Set<String> candidates) {
        for (Protocol protocol : protocols) {
            if (candidates.contains(protocol.name())) {
                return protocol.name();
            }
        }
        throw new IllegalStateException("Member " + memberId + " does not support any of " + candidates);
    }

    /**
     * Kafka's hasSatisfiedHeartbeat: a new member can expire even while awaiting join; a member
     * awaiting a rebalance response counts as alive; otherwise the next heartbeat is required.
     */
    public boolean hasSatisfiedHeartbeat() {
        if (isNew) {
            return false;
        }
        return awaitingJoin || awaitingSync;
    }

    public ClassicGroupMember withAwaitingJoin(boolean value) {
        return new ClassicGroupMember(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, protocols, assignment, value, awaitingSync, isNew);
    }

    public ClassicGroupMember withAwaitingSync(boolean value) {
        return new ClassicGroupMember(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, protocols, assignment, awaitingJoin, value, isNew);
    }

    public ClassicGroupMember withIsNew(boolean value) {
        return new ClassicGroupMember(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, protocols, assignment, awaitingJoin, awaitingSync, value);
    }

    public ClassicGroupMember withAssignment(Bytes value) {
        return new ClassicGroupMember(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, protocols, value, awaitingJoin, awaitingSync, isNew);
    }

    /** The member after a rejoin: new protocols and timeouts, everything else kept. */
    public ClassicGroupMember withJoinRequest(List<Protocol> newProtocols, int newRebalanceTimeoutMs,
                                              int newSessionTimeoutMs) {
        return new ClassicGroupMember(memberId, groupInstanceId, clientId, clientHost, newRebalanceTimeoutMs,
                newSessionTimeoutMs, protocolType, newProtocols, assignment, awaitingJoin, awaitingSync, isNew);
    }

    /** A copy under a new member id, with no parked calls (static member replacement). */
    public ClassicGroupMember replacedBy(String newMemberId) {
        return new ClassicGroupMember(newMemberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, protocols, assignment, false, false, false);
    }
}
