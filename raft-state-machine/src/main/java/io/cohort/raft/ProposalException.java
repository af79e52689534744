package io.cohort.raft;

/**
 * Why a command could not be (or may not have been) committed. The server maps each kind to a
 * Kafka error code in its one error table; the client may retry all of them after re-finding the
 * coordinator, since OffsetCommit is idempotent and the rest are re-validated by the shard.
 */
public final class ProposalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public enum Kind {
        /** This node does not lead the partition; {@link #leaderHint()} names the leader if known. */
        NOT_LEADER,
        /**
         * This node leads but cannot take commands yet: it has not applied its term's first entry,
         * or it is handing the partition to another node. The command was not appended.
         */
        NOT_READY,
        /** The command may or may not have been committed (timeout, leadership lost in flight). */
        INDETERMINATE,
        /** The node is shutting down. */
        SHUTTING_DOWN
    }

    private final Kind kind;
    private final int leaderHint;

    public ProposalException(Kind kind, int leaderHint, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.leaderHint = leaderHint;
    }

    public Kind kind() {
        return kind;
    }

    /** The node id of the partition's leader as this node knows it, or -1. */
    public int leaderHint() {
        return leaderHint;
    }
}
