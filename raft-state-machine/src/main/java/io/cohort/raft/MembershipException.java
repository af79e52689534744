package io.cohort.raft;

/** A refused or failed membership change ({@link MembershipChanges}); the message is for the operator. */
public final class MembershipException extends RuntimeException {
    /** Why a change was refused or failed. */
    public enum Failure {
        /** This node does not lead the partition: ask {@link MembershipException#leader()}. */
        NOT_LEADER,
        /** The change would leave the cluster without a working quorum (strict reconfiguration check). */
        QUORUM,
        /** Another membership change is running or was left halfway (finish or undo it first). */
        IN_PROGRESS,
        /** The request names an id or address that conflicts with the membership. */
        INVALID,
        /** The change is not possible here (kept for the API: nothing raises it since replica moves). */
        UNSUPPORTED,
        /** A step did not finish in time (the new node is down or cannot catch up). */
        TIMEOUT,
        /** The node to remove led partition 0 here; leadership moved to {@link MembershipException#leader()}. */
        LEADERSHIP_MOVED
    }

    private static final long serialVersionUID = 1L;
    private final Failure failure;
    private final int leader;

    MembershipException(Failure failure, int leader, String message) {
        super(message);
        this.failure = failure;
        this.leader = leader;
    }

    /** A failure another node reported for its part of a change ({@link ReplicaPeers}). */
    public static MembershipException reported(Failure failure, int leader, String message) {
        return new MembershipException(failure, leader, message);
    }

    public Failure failure() {
        return failure;
    }

    /** The leader to ask instead (NOT_LEADER, LEADERSHIP_MOVED), or -1. */
    public int leader() {
        return leader;
    }
}
