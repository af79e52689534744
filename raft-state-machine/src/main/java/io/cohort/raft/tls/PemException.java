package io.cohort.raft.tls;

/** A PEM file that cannot be used: missing, unreadable, not PEM, encrypted, or a key that does not match its certificate. */
public final class PemException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PemException(String message) {
        super(message);
    }

    public PemException(String message, Throwable cause) {
        super(message, cause);
    }
}
