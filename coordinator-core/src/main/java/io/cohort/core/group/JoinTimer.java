package io.cohort.core.group;

/**
 * The replicated description of a group's armed join-phase timer, so that a new Raft leader can
 * re-arm it at the same deadline, and a stale timer command (an older deadline) is ignored.
 *
 * @param deadlineMs  when the timer fires, in leader time
 * @param initial     an initial-rebalance delay timer (section 2.6) rather than the rebalance timeout
 * @param delayMs     for an initial timer: the delay this firing waited
 * @param remainingMs for an initial timer: the budget left before the rebalance timeout bound
 */
public record JoinTimer(long deadlineMs, boolean initial, int delayMs, int remainingMs) {
    public static JoinTimer initialDelay(long deadlineMs, int delayMs, int remainingMs) {
        return new JoinTimer(deadlineMs, true, delayMs, remainingMs);
    }

    public static JoinTimer rebalanceTimeout(long deadlineMs) {
        return new JoinTimer(deadlineMs, false, 0, 0);
    }
}
