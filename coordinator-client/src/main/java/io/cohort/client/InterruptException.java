package io.cohort.client;

/**
 * The calling thread was interrupted while a client call waited (Kafka's {@code InterruptException}).
 * The thread's interrupt flag is set again before this is thrown.
 */
public class InterruptException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InterruptException(InterruptedException cause) {
        super("interrupted while waiting", cause);
        Thread.currentThread().interrupt();
    }
}
