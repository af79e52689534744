package io.cohort.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.RaftClientReply;

/** The waits of a membership change and the failures they turn into. */
final class MembershipWaits {
    /** How long one configuration change may take, a new replica's catch-up included. */
    static final long CONF_CHANGE_TIMEOUT_MS = 180_000;
    /** How long a partition's leader may take to hand it over (or move it) before the change gives up. */
    static final long HANDOVER_TIMEOUT_MS = 30_000;
    /** How often a change looks at its progress (a catch-up, a handover). */
    static final long POLL_MS = 100;

    private MembershipWaits() {
    }

    /**
     * Waits for a step of a change (a configuration change, a transfer, a replica created) up to
     * {@link #CONF_CHANGE_TIMEOUT_MS}; a failed Ratis reply, a timeout or an interrupt becomes the
     * {@link MembershipException} the operator sees.
     */
    static <T> T await(CompletableFuture<T> future, String what) {
        try {
            T result = future.get(CONF_CHANGE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (result instanceof RaftClientReply reply && !reply.isSuccess()) {
                throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, what + " failed: " + reply.getException());
            }
            return result;
        } catch (TimeoutException e) {
            throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, what + ": no answer in " + CONF_CHANGE_TIMEOUT_MS
                    + " ms; re-run the command to resume");
        } catch (ExecutionException e) {
            if (String.valueOf(e.getCause()).contains("ReconfigurationInProgress")) {
                throw new MembershipException(MembershipException.Failure.IN_PROGRESS, -1, what + ": the group is still changing its "
                        + "configuration (a node being added is staged until it answers and catches up): start that "
                        + "node, then re-run; " + e.getCause());
            }
            throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, what + " failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, what + ": interrupted");
        }
    }

    /** Sleeps between polls of a change's progress; an interrupt ends the change. */
    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MembershipException(MembershipException.Failure.TIMEOUT, -1, "interrupted");
        }
    }
}
