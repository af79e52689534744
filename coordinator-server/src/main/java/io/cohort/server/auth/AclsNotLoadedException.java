package io.cohort.server.auth;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * This node's ACLs are not loaded yet (its replica of partition 0 is still applying the log it held
 * at start, or, on a node being added, the log up to its add), so it authorizes nothing: the call
 * ends with gRPC UNAVAILABLE, or, where a service answers errors in its response,
 * COORDINATOR_LOAD_IN_PROGRESS; clients retry either.
 */
public final class AclsNotLoadedException extends StatusRuntimeException {
    /** The status description, by which another node tells this refusal from other UNAVAILABLEs. */
    public static final String DESCRIPTION = "this node is still applying partition 0's log, which holds the ACLs, since"
            + " its start or its add to the cluster; it authorizes no call until then: retry, or try another node";

    AclsNotLoadedException() {
        super(Status.UNAVAILABLE.withDescription(DESCRIPTION));
    }

    /** Whether {@code status}, as a caller received it, is this refusal. */
    public static boolean isNotLoaded(Status status) {
        return status.getCode() == Status.Code.UNAVAILABLE && DESCRIPTION.equals(status.getDescription());
    }
}
