package io.cohort.core.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * The five states of a classic group (reference section 2.1). Each state documents what the
 * coordinator does in it and how it is left; {@link #validPreviousStates()} is enforced as an
 * invariant on every transition.
 */
public enum ClassicGroupState {
    /**
     * The group has no members; it may still hold offsets ("simple" groups only ever commit).
     *
     * <p>action: JoinGroup from new members is accepted; SyncGroup and Heartbeat get
     * UNKNOWN_MEMBER_ID; OffsetCommit is accepted only with generation -1; OffsetFetch is allowed.
     * <p>transition: a member is added → PreparingRebalance (the initial rebalance, delayed by
     * group.initial.rebalance.delay.ms); the group is deleted or all its offsets expire → Dead.
     */
    EMPTY("Empty"),

    /**
     * The join phase: JoinGroup calls are parked until every known member has rejoined or the
     * rebalance timeout fires.
     *
     * <p>action: Heartbeat and SyncGroup get REBALANCE_IN_PROGRESS; LeaveGroup removes members;
     * commits from members of the current (old) generation are accepted.
     * <p>transition: join phase completes with members → CompletingRebalance (generation + 1);
     * with none → Empty (generation + 1); deleted → Dead.
     */
    PREPARING_REBALANCE("PreparingRebalance"),

    /**
     * Waiting for the leader's SyncGroup with the assignment.
     *
     * <p>action: followers' SyncGroup calls are parked; Heartbeat answers NONE; OffsetCommit gets
     * REBALANCE_IN_PROGRESS.
     * <p>transition: the leader's assignment is committed → Stable; a member joins, changes its
     * metadata, leaves, expires or misses the sync deadline → PreparingRebalance.
     */
    COMPLETING_REBALANCE("CompletingRebalance"),

    /**
     * The assignment is distributed.
     *
     * <p>action: heartbeats answer NONE; SyncGroup returns the stored assignment; an unchanged
     * follower's JoinGroup gets the current generation; commits of the current generation accepted.
     * <p>transition: the leader rejoins, a follower changes metadata, a member joins, leaves or
     * expires, or a member never syncs → PreparingRebalance.
     */
    STABLE("Stable"),

    /**
     * The group is being removed. Cohort never leaves a group in this state after a command (a
     * deleted group is removed from the shard), but a Dead group is still answered as Kafka does.
     *
     * <p>action: Join, Sync, Heartbeat, Leave and Commit get COORDINATOR_NOT_AVAILABLE; fetches
     * return -1 offsets.
     * <p>transition: none.
     */
    DEAD("Dead");

    private final String displayName;

    ClassicGroupState(String displayName) {
        this.displayName = displayName;
    }

    /** The state's name as Kafka reports it in DescribeGroups and ListGroups. */
    public String displayName() {
        return displayName;
    }

    /** The states this state may be entered from. */
    public Set<ClassicGroupState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY);
            case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
            case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
            case DEAD -> EnumSet.allOf(ClassicGroupState.class);
        };
    }

    /** The state for a display name, case-insensitively; null if none matches. */
    public static ClassicGroupState fromDisplayName(String name) {
        for (ClassicGroupState state : values()) {
            if (state.displayName.equalsIgnoreCase(name)) {
                return state;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return displayName;
    }
}
