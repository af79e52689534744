package io.cohort.core.consumer;

/**
 * The state of a consumer group (Kafka's {@code ConsumerGroup.ConsumerGroupState}), derived from
 * its members and epochs, never stored.
 */
public enum ConsumerGroupState {
    /** No members. */
    EMPTY("Empty"),
    /** The group epoch moved past the assignment epoch: a new target assignment is due. */
    ASSIGNING("Assigning"),
    /** Some member is not yet at the assignment epoch, or not STABLE. */
    RECONCILING("Reconciling"),
    /** Every member is STABLE at the assignment epoch. */
    STABLE("Stable"),
    /** Reported for a group that does not exist. */
    DEAD("Dead");

    private final String displayName;

    ConsumerGroupState(String displayName) {
        this.displayName = displayName;
    }

    /** Kafka's name, as ListGroups and ConsumerGroupDescribe report it. */
    public String displayName() {
        return displayName;
    }
}
