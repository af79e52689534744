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

    public long initialMs() {
        return initialMs;
    }

    public long maxMs() {
        return maxMs;
    }
}
