package io.cohort.client;

import io.cohort.api.v1.ErrorCode;

/**
 * The client and a node do not agree on TLS: the node requires TLS and the client speaks plaintext,
 * the node's certificate is not trusted, the node refused the client's certificate (or wants one),
 * or the client speaks TLS to a plaintext node. Retrying cannot help, so the call fails at once
 * (code {@link ErrorCode#UNKNOWN_SERVER_ERROR}, not retriable) with a message that says what to change;
 * the message does not start with the code's name, as other {@link CohortException}s' do, because no
 * server answered with it.
 */
public final class TransportSecurityException extends CohortException {
    private static final long serialVersionUID = 1L;

    public TransportSecurityException(String message, Throwable cause) {
        super(ErrorCode.UNKNOWN_SERVER_ERROR, message, cause, false);
    }
}
