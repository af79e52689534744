package io.cohort.client;

import io.cohort.api.v1.ErrorCode;

/**
 * A call failed with a protocol error (a Kafka error code) or, with {@link ErrorCode#UNKNOWN_SERVER_ERROR}
 * and a cause, with a transport failure that outlived the call's retries.
 *
 * <p>{@link #retriable()} is Kafka's notion: the same request may succeed later. The client has
 * already retried retriable routing errors until the call's timeout, so a retriable code here
 * means the cluster did not recover within that time.
 */
public class CohortException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode errorCode;

    public CohortException(ErrorCode errorCode, String message) {
        super(message(errorCode, message));
        this.errorCode = errorCode;
    }

    public CohortException(ErrorCode errorCode, String message, Throwable cause) {
        this(errorCode, message, cause, true);
    }

    /**
     * With {@code codeInMessage} false, {@code message} is the whole message, without the code's name
     * in front: for failures that are not the server's ({@link TransportSecurityException}), where
     * "UNKNOWN_SERVER_ERROR (-1)" would send the reader to the wrong place.
     */
    protected CohortException(ErrorCode errorCode, String message, Throwable cause, boolean codeInMessage) {
        super(codeInMessage ? message(errorCode, message) : message, cause);
        this.errorCode = errorCode;
    }

    /** The Kafka error code; {@link ErrorCode#UNKNOWN_SERVER_ERROR} for a transport failure. */
    public ErrorCode errorCode() {
        return errorCode;
    }

    /** Whether Kafka classifies the code as retriable. */
    public boolean retriable() {
        return ErrorCodes.isRetriable(errorCode);
    }

    private static String message(ErrorCode code, String message) {
        String name = code.name() + " (" + code.getNumber() + ")";
        return message == null || message.isEmpty() ? name : name + ": " + message;
    }
}
