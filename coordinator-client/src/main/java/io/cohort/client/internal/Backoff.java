package io.cohort.client.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter, as Kafka's {@code ExponentialBackoff}: attempt {@code n} waits
 * {@code initial * 2^n}, capped at {@code max}, then spread by +-20% so that clients which failed
 * together do not retry together.
 */
public final class Backoff {
    static final double JITTER = 0.2;

    private final long initialMs;
    private final long maxMs;

    public Backoff(long initialMs, long maxMs) {
        if (initialMs <= 0 || maxMs < initialMs) {
            throw new IllegalArgumentException("need 0 < initial <= max, got " + initialMs + " and " + maxMs);
        }
        this.initialMs = initialMs;
        this.maxMs = maxMs;
    }

    /** The wait before retry number {@code attempt} (0 for the first retry), in ms. */
    public long delayMs(int attempt) {
        double base = Math.min(maxMs, initialMs * Math.pow(2, Math.min(attempt, 30)));
        double spread = 1 + JITTER * (2 * ThreadLocalRandom.current().nextDouble() - 1);
        return Math.max(1, Math.round(base * spread));
    }

    /**
     * The retries of one call: answers that only say the coordinator is moving (a leader transfer,
     * an election, a new leader applying its backlog: each over within about a second) are polled
     * at the initial backoff for the first {@value #ROUTING_POLLS} of them, so the call goes through
     * within one initial backoff of the move's end instead of after a wait that grew meanwhile;
     * transport failures, and routing answers beyond those, wait with the growing backoff.
     */
    public Schedule schedule() {
        return new Schedule();
    }

    /** How many routing answers per call are polled at the initial backoff (8 x 50 ms by default). */
    public static final int ROUTING_POLLS = 8;

    /** See {@link #schedule()}; one per call, not thread-safe. */
    public final class Schedule {
        private int routingPolls;
        private int growing;

        private Schedule() {
        }

        /** The wait before the next retry, after a routing answer or after a failure. */
        public long nextDelayMs(boolean routingAnswer) {
            if (routingAnswer && routingPolls < ROUTING_POLLS) {
                routingPolls++;
                return delayMs(0);
            }
            return delayMs(growing++);
        }
    }

    public long initialMs() {
        return initialMs;
    }

    public long maxMs() {
        return maxMs;
    }
}
