package io.cohort.core.consumer.assignor;

/** A server assignor could not compute an assignment. */
public final class AssignorException extends RuntimeException {
    public AssignorException(String message) {
        super(message);
    }
}
