package io.cohort.server.rpc;

import io.cohort.api.v1.NodeEndpoint;
import io.cohort.core.ErrorCode;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.ProposalException;
import io.cohort.server.auth.AclsNotLoadedException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping table at the edge (Kafka's {@code CoordinatorOperationExceptionHelper}, etcd's
 * {@code v3rpc/util.go}): core error codes to the public enum, and every way a proposal or a read can
 * fail to the Kafka error a client sees.
 *
 * <p>Core and public codes share Kafka's numbers, so the mapping is by number, never by ordinal or
 * name. Failures map as Kafka maps append failures (reference 1.0 item 6):
 * <ul>
 *   <li>{@code NOT_LEADER} (Kafka's NOT_LEADER_OR_FOLLOWER) → NOT_COORDINATOR, with the leader's
 *       client endpoint as hint when this node knows it;</li>
 *   <li>{@code NOT_READY} (leader elected, first entry of its term not applied; or handing the
 *       partition over to another node) → COORDINATOR_LOAD_IN_PROGRESS;</li>
 *   <li>{@code INDETERMINATE} (timed out, leadership lost in flight: Kafka's REQUEST_TIMED_OUT and
 *       NOT_ENOUGH_REPLICAS) → COORDINATOR_NOT_AVAILABLE;</li>
 *   <li>{@code SHUTTING_DOWN} → COORDINATOR_NOT_AVAILABLE: reference 1.0 item 2 answers "coordinator
 *       shutting down" with it, and the write's outcome is unknown, which is what
 *       COORDINATOR_NOT_AVAILABLE tells a client (re-find, resend); NOT_COORDINATOR would claim that
 *       another node leads, and no hint could name it;</li>
 *   <li>anything else → UNKNOWN_SERVER_ERROR, logged, since it is a bug or an unforeseen failure.</li>
 * </ul>
 */
public final class ErrorTable {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorTable.class);

    private static final Map<ErrorCode, String> DESCRIPTIONS = descriptions();

    private ErrorTable() {
    }

    /** The public error with the same Kafka number as {@code code}. */
    public static io.cohort.api.v1.ErrorCode toProto(ErrorCode code) {
        io.cohort.api.v1.ErrorCode mapped = io.cohort.api.v1.ErrorCode.forNumber(code.code());
        if (mapped == null) {
            // ErrorTableTest proves every core code has a public twin; this is a guard, not a path.
            LOG.error("core error {} ({}) has no public error code; answering UNKNOWN_SERVER_ERROR", code, code.code());
            return io.cohort.api.v1.ErrorCode.UNKNOWN_SERVER_ERROR;
        }
        return mapped;
    }

    /**
     * Heartbeat answers NONE where other calls answer COORDINATOR_LOAD_IN_PROGRESS (Kafka's "blind"
     * heartbeat while the coordinator loads: the member stays, and learns of a rebalance later).
     */
    public static ErrorCode forHeartbeat(ErrorCode code) {
        return code == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.NONE : code;
    }

    /** A sentence explaining {@code code} for {@code error_message}; "" for NONE. */
    public static String describe(ErrorCode code) {
        return DESCRIPTIONS.getOrDefault(code, code.name());
    }

    /**
     * Why a call was not (or may not have been) served.
     *
     * @param leaderHint the partition leader's client endpoint, or null; only with NOT_COORDINATOR
     */
    public record Failure(ErrorCode code, String message, NodeEndpoint leaderHint) {
    }

    /** Maps a failed proposal or read (possibly wrapped by a future) to the error a client sees. */
    public static Failure failureOf(Throwable error, CohortRaftNode node) {
        return failureOf(error, node.spec(), node.nodeId());
    }

    /**
     * {@link #failureOf(Throwable, CohortRaftNode)} for node {@code selfNodeId} of {@code spec}: the
     * leader hint of NOT_LEADER becomes that peer's client endpoint (never this node's own).
     */
    public static Failure failureOf(Throwable error, ClusterSpec spec, int selfNodeId) {
        Throwable cause = unwrap(error);
        if (cause instanceof ProposalException proposal) {
            return switch (proposal.kind()) {
                case NOT_LEADER -> notCoordinator(spec, selfNodeId, proposal.leaderHint(), proposal.getMessage());
                case NOT_READY -> new Failure(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, proposal.getMessage(), null);
                case INDETERMINATE -> new Failure(ErrorCode.COORDINATOR_NOT_AVAILABLE,
                        proposal.getMessage() + " (the change may or may not have been applied; resending is safe)",
                        null);
                case SHUTTING_DOWN -> new Failure(ErrorCode.COORDINATOR_NOT_AVAILABLE,
                        "node " + selfNodeId + " is shutting down; find the coordinator again", null);
            };
        }
        if (cause instanceof AclsNotLoadedException loading) {
            return new Failure(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, loading.getStatus().getDescription(), null);
        }
        LOG.error("unexpected failure while serving a request; answering UNKNOWN_SERVER_ERROR", cause);
        return new Failure(ErrorCode.UNKNOWN_SERVER_ERROR, "unexpected server error: " + cause, null);
    }

    /**
     * The routing answer for {@code partition} on this node: null if this node is its leader-ready
     * leader, else NOT_COORDINATOR (with the leader as hint) or COORDINATOR_LOAD_IN_PROGRESS.
     */
    public static Failure routingFailure(CohortRaftNode node, int partition) {
        if (node.isLeaderReady(partition)) {
            return null;
        }
        if (node.isLeader(partition)) {
            return new Failure(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, "node " + node.nodeId()
                    + " leads partition " + partition + " but is not ready yet; retry shortly", null);
        }
        return notCoordinator(node.spec(), node.nodeId(), node.leaderOf(partition),
                "node " + node.nodeId() + " does not lead partition " + partition);
    }

    /** NOT_COORDINATOR, naming the leader when it is known and is another node than this one. */
    public static Failure notCoordinator(ClusterSpec spec, int selfNodeId, int leaderNodeId, String reason) {
        NodeEndpoint hint = leaderNodeId == selfNodeId ? null : endpointOf(spec, leaderNodeId);
        String message = hint == null
                ? reason + "; no other leader known: find the coordinator again"
                : reason + "; the leader is node " + hint.getNodeId() + " at " + hint.getHost() + ":" + hint.getPort();
        return new Failure(ErrorCode.NOT_COORDINATOR, message, hint);
    }

    /** The client endpoint of node {@code nodeId}, or null if it is -1 or not a peer. */
    public static NodeEndpoint endpointOf(ClusterSpec spec, int nodeId) {
        if (nodeId < 0 || !spec.hasPeer(nodeId)) {
            return null;
        }
        NodeAddress peer = spec.peer(nodeId);
        return NodeEndpoint.newBuilder().setNodeId(nodeId).setHost(peer.host()).setPort(peer.clientPort()).build();
    }

    static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static Map<ErrorCode, String> descriptions() {
        Map<ErrorCode, String> d = new EnumMap<>(ErrorCode.class);
        d.put(ErrorCode.NONE, "");
        d.put(ErrorCode.UNKNOWN_SERVER_ERROR, "unexpected server error");
        d.put(ErrorCode.OFFSET_METADATA_TOO_LARGE, "committed_metadata is longer than offset.metadata.max.bytes");
        d.put(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, "the coordinator is not ready yet; retry shortly");
        d.put(ErrorCode.COORDINATOR_NOT_AVAILABLE,
                "the coordinator is not available (group being deleted, write failed, or node stopping); "
                        + "find the coordinator again and retry");
        d.put(ErrorCode.NOT_COORDINATOR, "this node is not the group's coordinator; find the coordinator again");
        d.put(ErrorCode.ILLEGAL_GENERATION, "generation_id is not the group's current generation; rejoin");
        d.put(ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
                "the protocol type or protocols do not match the group's");
        d.put(ErrorCode.INVALID_GROUP_ID, "group_id must not be empty for this call");
        d.put(ErrorCode.UNKNOWN_MEMBER_ID, "the member is not known to the group; rejoin with member_id \"\"");
        d.put(ErrorCode.INVALID_SESSION_TIMEOUT, "session_timeout_ms is outside the node's allowed range");
        d.put(ErrorCode.REBALANCE_IN_PROGRESS, "the group is rebalancing; rejoin");
        d.put(ErrorCode.INVALID_REQUEST, "the request is not valid in the group's current state");
        d.put(ErrorCode.NON_EMPTY_GROUP, "the group still has members");
        d.put(ErrorCode.GROUP_ID_NOT_FOUND, "the group does not exist");
        d.put(ErrorCode.MEMBER_ID_REQUIRED, "join again with the member_id returned in this response");
        d.put(ErrorCode.GROUP_MAX_SIZE_REACHED, "the group has reached group.max.size members");
        d.put(ErrorCode.INVALID_COMMIT_OFFSET_SIZE,
                "the commit would exceed a limit on the offsets or metadata the partition holds");
        d.put(ErrorCode.FENCED_INSTANCE_ID, "another member with the same group_instance_id replaced this one");
        d.put(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, "the group is subscribed to the topic");
        d.put(ErrorCode.REQUEST_TIMED_OUT, "the operation did not finish in time; it may still happen");
        return d;
    }

    /** The first error that is not NONE, for metrics; "NONE" if there is none. */
    static String firstError(List<io.cohort.api.v1.ErrorCode> codes) {
        for (io.cohort.api.v1.ErrorCode code : codes) {
            if (code != io.cohort.api.v1.ErrorCode.NONE) {
                return code.name();
            }
        }
        return io.cohort.api.v1.ErrorCode.NONE.name();
    }

    /** COORDINATOR_NOT_AVAILABLE of a node that is stopping: the client finds the coordinator again. */
    static Failure shuttingDown(int nodeId) {
        return new Failure(ErrorCode.COORDINATOR_NOT_AVAILABLE,
                "node " + nodeId + " is shutting down; find the coordinator again", null);
    }
}
