package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import java.util.EnumSet;
import java.util.Set;

/** Kafka's classification of the error codes, as the client acts on them. */
public final class ErrorCodes {
    /** Kafka's RetriableException subclasses among the codes Cohort can return. */
    private static final Set<ErrorCode> RETRIABLE = EnumSet.of(
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.REQUEST_TIMED_OUT,
            ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
            ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_ENOUGH_REPLICAS,
            ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.UNSTABLE_OFFSET_COMMIT);

    /** The codes that mean "this node cannot serve the group now": re-route and retry. */
    private static final Set<ErrorCode> ROUTING = EnumSet.of(
            ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);

    private ErrorCodes() {
    }

    /** Whether Kafka classifies {@code code} as retriable. */
    public static boolean isRetriable(ErrorCode code) {
        return RETRIABLE.contains(code);
    }

    /**
     * Whether {@code code} says the request reached a node that cannot serve the group now
     * (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS). The client
     * retries these itself, re-finding the coordinator except after LOAD_IN_PROGRESS.
     */
    public static boolean isRouting(ErrorCode code) {
        return ROUTING.contains(code);
    }

    /** Throws a CohortException for {@code code} unless it is NONE; {@code what} names the call. */
    static void throwIfError(ErrorCode code, String message, String what) {
        if (code != ErrorCode.NONE) {
            throw new CohortException(code, what + (message.isEmpty() ? "" : ": " + message));
        }
    }
}
