package io.cohort.core.consumer;

/**
 * Where a consumer-protocol member stands in reconciling its current assignment with its target
 * (Kafka's {@code MemberState}). The numbers are persisted (current-assignment records): never
 * persist the ordinal.
 */
public enum MemberState {
    /**
     * The member owns what the target of its epoch gives it. Transition: to UNREVOKED_PARTITIONS
     * when a newer target takes partitions away, else to the new epoch (STABLE or UNRELEASED).
     */
    STABLE(0),
    /**
     * The member must give up {@code partitionsPendingRevocation} and keeps its epoch until its
     * heartbeat no longer reports them; a rebalance timer fences it if it does not in time.
     */
    UNREVOKED_PARTITIONS(1),
    /**
     * The member is at the target epoch but some target partitions are still owned by others; it
     * picks them up on later heartbeats, as their owners release them.
     */
    UNRELEASED_PARTITIONS(2),
    /** A state written by a newer build: the member is fenced unless it reports owning nothing. */
    UNKNOWN(127);

    private final int value;

    MemberState(int value) {
        this.value = value;
    }

    /** The persisted number. */
    public int value() {
        return value;
    }

    /** The state for a persisted number; UNKNOWN for a number this build does not know. */
    public static MemberState forValue(int value) {
        for (MemberState state : values()) {
            if (state.value == value) {
                return state;
            }
        }
        return UNKNOWN;
    }
}
