package io.cohort.server.rpc;

import com.google.common.util.concurrent.ListenableFuture;
import io.cohort.api.v1.AddNodeRequest;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.DescribeMembershipRequest;
import io.cohort.api.v1.DescribeMembershipResponse;
import io.cohort.api.v1.HostReplicaRequest;
import io.cohort.api.v1.JoinInfoRequest;
import io.cohort.api.v1.JoinInfoResponse;
import io.cohort.api.v1.Member;
import io.cohort.api.v1.MemberProgress;
import io.cohort.api.v1.MemberRole;
import io.cohort.api.v1.MembershipChangeResponse;
import io.cohort.api.v1.MembershipFailure;
import io.cohort.api.v1.MovePartitionRequest;
import io.cohort.api.v1.RemoveNodeRequest;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.api.v1.TransferLeadershipResponse;
import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.raft.ClusterMetadata;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.LeaderHandover;
import io.cohort.raft.Membership;
import io.cohort.raft.MembershipChanges;
import io.cohort.raft.MembershipException;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.PartitionStatus;
import io.cohort.raft.ReplicaPeers;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The membership RPCs of the ClusterAdmin service (membership.proto): AddNode and RemoveNode run
 * on partition 0's leader ({@link MembershipChanges}); a node that does not lead it forwards the
 * request once to the node that does, as TransferLeadership does. DescribeMembership and JoinInfo
 * answer from the local view.
 */
final class MembershipRpcs {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipRpcs.class);
    /** A forwarded change may take as long as a catch-up plus the promotion. */
    private static final long FORWARD_DEADLINE_MS = 300_000;
    /** A partition's leader hands it to the node running a change within this (Ratis's transfer timeout). */
    private static final long HANDOVER_TIMEOUT_MS = 10_000;
    private static final long HANDOVER_DEADLINE_MS = HANDOVER_TIMEOUT_MS + 5_000;
    /** A node asked to create a replica answers at once; this covers one that is starting. */
    private static final long HOST_REPLICA_DEADLINE_MS = 30_000;

    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    private final IntFunction<ManagedChannel> channels;
    private final ForwardedIdentity forwarding;
    /** Where HostReplica creates a replica (it waits for Ratis); one at a time, as the node's lifecycle takes them. */
    private final ExecutorService hostReplicaThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cohort-host-replica");
        t.setDaemon(true);
        return t;
    });

    MembershipRpcs(CohortRaftNode node, RequestAuthorizer authorizer, ForwardedIdentity forwarding,
                   IntFunction<ManagedChannel> channels) {
        this.forwarding = forwarding;
        this.node = node;
        this.authorizer = authorizer;
        this.channels = channels;
    }

    CompletableFuture<MembershipChangeResponse> addNode(AddNodeRequest request) {
        MembershipChangeResponse refusal = refusal("AddNode");
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal);
        }
        NodeAddress address;
        try {
            if (request.getNodeId() <= 0) {
                throw new IllegalArgumentException("node_id must be > 0, got " + request.getNodeId());
            }
            String[] raft = hostPort(request.getRaftAddress(), "raft_address");
            String[] client = hostPort(request.getClientAddress(), "client_address");
            if (!raft[0].equals(client[0])) {
                throw new IllegalArgumentException("raft_address and client_address must name the same host");
            }
            address = new NodeAddress(request.getNodeId(), raft[0], Integer.parseInt(raft[1]),
                    Integer.parseInt(client[1]));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(response(ErrorCode.INVALID_REQUEST, e.getMessage(),
                    MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of()));
        }
        if (!node.isLeaderReady(0)) {
            return forward(stub -> stub.addNode(request));
        }
        return outcome(node.membershipChanges().addNode(address, step -> { }, handover(), replicaPeers()),
                stub -> stub.addNode(request));
    }

    CompletableFuture<MembershipChangeResponse> removeNode(RemoveNodeRequest request) {
        MembershipChangeResponse refusal = refusal("RemoveNode");
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal);
        }
        if (request.getNodeId() < 0) {
            return CompletableFuture.completedFuture(response(ErrorCode.INVALID_REQUEST, "node_id must be >= 0",
                    MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of()));
        }
        if (!node.isLeaderReady(0)) {
            return forward(stub -> stub.removeNode(request));
        }
        return outcome(node.membershipChanges().removeNode(request.getNodeId(), step -> { }, handover(),
                replicaPeers()), stub -> stub.removeNode(request));
    }

    /** A replica move's first step on this node: an empty replica of the partition, waiting to be added. */
    CompletableFuture<MembershipChangeResponse> hostReplica(HostReplicaRequest request) {
        MembershipChangeResponse refusal = refusal("HostReplica");
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal);
        }
        int partition = request.getPartitionIndex();
        if (partition < 0 || partition >= node.partitions()) {
            return CompletableFuture.completedFuture(response(ErrorCode.INVALID_REQUEST, "partition " + partition
                    + " does not exist; the cluster has " + node.partitions(), MembershipFailure.MEMBERSHIP_FAILURE_NONE,
                    List.of()));
        }
        // On this class's own thread: creating the replica waits for Ratis, which creates the group on
        // the common ForkJoinPool (two threads here); a wait there could take both.
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean created = node.hostReplica(partition);
                return response(ErrorCode.NONE, "", MembershipFailure.MEMBERSHIP_FAILURE_NONE,
                        List.of("partition " + partition + ": " + (created ? "created an empty replica on node "
                                : "a replica is already on node ") + node.nodeId()));
            } catch (java.io.IOException e) {
                return response(ErrorCode.COORDINATOR_NOT_AVAILABLE, e.getMessage(),
                        MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of());
            }
        }, hostReplicaThread);
    }

    /** A replica move's second step, on a voter of the partition: its group changed to the replicas given. */
    CompletableFuture<MembershipChangeResponse> movePartition(MovePartitionRequest request) {
        MembershipChangeResponse refusal = refusal("MovePartition");
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal);
        }
        int partition = request.getPartitionIndex();
        List<NodeAddress> replicas = new ArrayList<>();
        for (Member member : request.getReplicasList()) {
            replicas.add(new NodeAddress(member.getNodeId(), member.getHost(), member.getRaftPort(),
                    member.getClientPort()));
        }
        if (partition <= 0 || partition >= node.partitions() || replicas.isEmpty()) {
            return CompletableFuture.completedFuture(response(ErrorCode.INVALID_REQUEST, "partition " + partition
                    + " cannot be moved to " + replicas.size() + " replicas (partition 0 moves with the membership)",
                    MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of()));
        }
        return node.membershipChanges().movePartitionHere(partition, replicas, step -> { }, handover())
                .handle((steps, error) -> {
                    if (error == null) {
                        return response(ErrorCode.NONE, "", MembershipFailure.MEMBERSHIP_FAILURE_NONE, steps);
                    }
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    if (cause instanceof MembershipException m) {
                        return failed(m);
                    }
                    LOG.error("moving partition {} failed", partition, cause);
                    return response(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(cause),
                            MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of());
                });
    }

    /**
     * How a change asks other nodes for their part of a replica move: HostReplica and MovePartition
     * on their client ports, as the caller of the change (as {@link #handover()}).
     */
    private ReplicaPeers replicaPeers() {
        String bearer = Principals.bearerHeader();
        return new ReplicaPeers() {
            @Override
            public CompletableFuture<?> hostReplica(int nodeId, int partition) {
                // Waits for the node's channel to be ready: a node started again a moment ago (its
                // channel still backing off) must not fail the change. A node being added may answer
                // UNAVAILABLE until it holds the ACLs: asked again (UntilLoaded).
                long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HOST_REPLICA_DEADLINE_MS);
                HostReplicaRequest request = HostReplicaRequest.newBuilder().setPartitionIndex(partition).build();
                return call(nodeId, () -> UntilLoaded.call(() -> send(nodeId, bearer, stub -> stub.withWaitForReady()
                        .withDeadlineAfter(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                        .hostReplica(request)), deadlineNanos))
                        .thenApply(MembershipChangeResponse::getStepsList);
            }

            @Override
            public CompletableFuture<List<String>> movePartition(int nodeId, int partition,
                                                                 List<NodeAddress> replicas) {
                MovePartitionRequest.Builder request = MovePartitionRequest.newBuilder().setPartitionIndex(partition);
                for (NodeAddress replica : replicas) {
                    request.addReplicas(Member.newBuilder().setNodeId(replica.nodeId()).setHost(replica.host())
                            .setRaftPort(replica.raftPort()).setClientPort(replica.clientPort())
                            .setRole(MemberRole.MEMBER_ROLE_VOTER));
                }
                return call(nodeId, () -> send(nodeId, bearer, stub -> stub.movePartition(request.build())))
                        .thenApply(MembershipChangeResponse::getStepsList);
            }

            private CompletableFuture<MembershipChangeResponse> call(
                    int nodeId, Supplier<CompletableFuture<MembershipChangeResponse>> sent) {
                return sent.get().handle((response, error) -> {
                    if (error != null) {
                        Status status = Status.fromThrowable(error);
                        throw MembershipException.reported(MembershipException.Failure.NOT_LEADER, -1, "node " + nodeId
                                + " did not answer: " + status.getCode() + " " + status.getDescription());
                    }
                    if (response.getErrorCode() != ErrorTable.toProto(ErrorCode.NONE)) {
                        // With a bearer token the other node checked the caller; with a certificate, this node.
                        boolean denied = bearer == null && response.getErrorCode()
                                == ErrorTable.toProto(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
                        throw MembershipException.reported(failureOf(response), -1, "node " + nodeId + " answered "
                                + response.getErrorCode() + ": " + response.getErrorMessage() + (denied
                                ? " (a certificate caller's change calls the other nodes as this node: give the nodes'"
                                + " principals ALTER on the cluster or list them in super.users, docs/SECURITY.md)"
                                : ""));
                    }
                    return response;
                });
            }
        };
    }

    /** The failure another node's response reports, as {@link #failed} mapped it. */
    private static MembershipException.Failure failureOf(MembershipChangeResponse response) {
        return switch (response.getFailure()) {
            case MEMBERSHIP_FAILURE_QUORUM -> MembershipException.Failure.QUORUM;
            case MEMBERSHIP_FAILURE_CHANGE_IN_PROGRESS -> MembershipException.Failure.IN_PROGRESS;
            case MEMBERSHIP_FAILURE_CONFLICT, MEMBERSHIP_FAILURE_UNSUPPORTED -> MembershipException.Failure.INVALID;
            case MEMBERSHIP_FAILURE_TIMEOUT -> MembershipException.Failure.TIMEOUT;
            default -> response.getErrorCode() == ErrorTable.toProto(ErrorCode.COORDINATOR_NOT_AVAILABLE)
                    ? MembershipException.Failure.NOT_LEADER : MembershipException.Failure.TIMEOUT;
        };
    }

    /** Stops the HostReplica thread; a request it has not started fails. */
    void close() {
        hostReplicaThread.shutdownNow();
    }

    DescribeMembershipResponse describe(DescribeMembershipRequest request) {
        DescribeMembershipResponse.Builder out = DescribeMembershipResponse.newBuilder().setNodeId(node.nodeId());
        if (!authorizer.allowCluster("DescribeMembership", AclOperation.DESCRIBE)) {
            return out.setErrorCode(ErrorTable.toProto(ErrorCode.CLUSTER_AUTHORIZATION_FAILED))
                    .setErrorMessage(Principals.principal() + " may not DESCRIBE the cluster").build();
        }
        Membership membership = node.membershipNow();
        out.setRemoved(node.removedFromCluster()).setConfigurationIndex(membership.confIndex())
                .addAllMembers(members(membership));
        for (int p : node.hostedPartitions()) {
            if (!node.isLeader(p)) {
                continue;
            }
            PartitionStatus status = node.status(p);
            out.addProgress(MemberProgress.newBuilder().setPartitionIndex(p).setNodeId(node.nodeId())
                    .setRole(MemberRole.MEMBER_ROLE_VOTER).setMatchIndex(status.commitIndex()).setLagEntries(0));
            for (PartitionStatus.Replica replica : status.replicas()) {
                out.addProgress(MemberProgress.newBuilder().setPartitionIndex(p).setNodeId(replica.nodeId())
                        .setRole(membership.isListener(replica.nodeId()) ? MemberRole.MEMBER_ROLE_LISTENER
                                : MemberRole.MEMBER_ROLE_VOTER)
                        .setMatchIndex(replica.matchIndex()).setLagEntries(replica.lagEntries()));
            }
        }
        return out.build();
    }

    /** Open to any caller, like routing-only ClusterStatus: a joining node has no principal yet. */
    JoinInfoResponse joinInfo(JoinInfoRequest request) {
        Membership membership = node.membershipNow();
        LOG.info("node {} asks to join; answering with the cluster settings and {}", request.getNodeId(),
                membership.describe());
        // The replication factor as the cluster was created, not as the current member count caps it
        // (after a shrink to 2 of a factor-3 cluster, the node joining as the third gets factor 3).
        Map<String, String> settings = new java.util.TreeMap<>(ClusterMetadata.clusterSettings(node.spec()));
        settings.put(ClusterMetadata.REPLICATION_FACTOR, Integer.toString(node.createdReplicationFactor()));
        return JoinInfoResponse.newBuilder()
                .putAllClusterSettings(settings)
                .addAllMembers(members(membership))
                .build();
    }

    static List<Member> members(Membership membership) {
        List<Member> out = new ArrayList<>();
        for (NodeAddress member : membership.all()) {
            out.add(Member.newBuilder().setNodeId(member.nodeId()).setHost(member.host())
                    .setRaftPort(member.raftPort()).setClientPort(member.clientPort())
                    .setRole(membership.isListener(member.nodeId()) ? MemberRole.MEMBER_ROLE_LISTENER
                            : MemberRole.MEMBER_ROLE_VOTER)
                    .build());
        }
        return out;
    }

    private MembershipChangeResponse refusal(String rpc) {
        if (!authorizer.allowCluster(rpc, AclOperation.ALTER)) {
            return response(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, Principals.principal()
                    + " may not ALTER the cluster", MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of());
        }
        if (node.removedFromCluster()) {
            return response(ErrorCode.COORDINATOR_NOT_AVAILABLE, "node " + node.nodeId()
                    + " was removed from the cluster; ask a member", MembershipFailure.MEMBERSHIP_FAILURE_NONE,
                    List.of());
        }
        return null;
    }

    private interface Call {
        ListenableFuture<MembershipChangeResponse> on(ClusterAdminGrpc.ClusterAdminFutureStub stub);
    }

    private CompletableFuture<MembershipChangeResponse> outcome(CompletableFuture<List<String>> change,
                                                                Call retryElsewhere) {
        return change.handle((steps, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(response(ErrorCode.NONE, "",
                        MembershipFailure.MEMBERSHIP_FAILURE_NONE, steps));
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof MembershipException m) {
                // Partition 0's leadership moved away: the node that has it now runs the change. A
                // change that failed because another partition was not handed here is answered as
                // it is (forwarding would hide its reason behind "does not lead partition 0").
                if ((m.failure() == MembershipException.Failure.LEADERSHIP_MOVED
                        || m.failure() == MembershipException.Failure.NOT_LEADER) && !node.isLeaderReady(0)) {
                    return forward(retryElsewhere);
                }
                return CompletableFuture.completedFuture(failed(m));
            }
            LOG.error("membership change failed", cause);
            return CompletableFuture.completedFuture(response(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(cause),
                    MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of()));
        }).thenCompose(f -> f);
    }

    private static MembershipChangeResponse failed(MembershipException m) {
        return switch (m.failure()) {
            case QUORUM -> response(ErrorCode.NOT_ENOUGH_REPLICAS, m.getMessage(),
                    MembershipFailure.MEMBERSHIP_FAILURE_QUORUM, List.of());
            case IN_PROGRESS -> response(ErrorCode.REBALANCE_IN_PROGRESS, m.getMessage(),
                    MembershipFailure.MEMBERSHIP_FAILURE_CHANGE_IN_PROGRESS, List.of());
            case INVALID -> response(ErrorCode.INVALID_REQUEST, m.getMessage(),
                    MembershipFailure.MEMBERSHIP_FAILURE_CONFLICT, List.of());
            case UNSUPPORTED -> response(ErrorCode.INVALID_REQUEST, m.getMessage(),
                    MembershipFailure.MEMBERSHIP_FAILURE_UNSUPPORTED, List.of());
            case TIMEOUT -> response(ErrorCode.REQUEST_TIMED_OUT, m.getMessage(),
                    MembershipFailure.MEMBERSHIP_FAILURE_TIMEOUT, List.of());
            case NOT_LEADER, LEADERSHIP_MOVED -> response(ErrorCode.COORDINATOR_NOT_AVAILABLE, m.getMessage()
                    + "; retry", MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of());
        };
    }

    /**
     * How the change gets the partitions other nodes lead handed to this node: their
     * TransferLeadership, as the caller of the change (its bearer token, read here on the call's
     * thread; with client certificates, this node's own). Marked forwarded, so a node that no longer
     * leads the partition answers instead of passing it on.
     */
    private LeaderHandover handover() {
        String bearer = Principals.bearerHeader();
        return (partition, target) -> {
            int leader = node.leaderOf(partition);
            if (leader < 0 || leader == node.nodeId()) {
                return CompletableFuture.failedFuture(new IllegalStateException("partition " + partition
                        + " has no leader on another node right now"));
            }
            CompletableFuture<TransferLeadershipResponse> answer = new CompletableFuture<>();
            ClusterAdminGrpc.newStub(channels.apply(leader))
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(
                            CallContext.forwardingHeaders(node.nodeId(), bearer)))
                    .withDeadlineAfter(HANDOVER_DEADLINE_MS, TimeUnit.MILLISECONDS)
                    .transferLeadership(TransferLeadershipRequest.newBuilder().setPartitionIndex(partition)
                            .setTargetNodeId(target).setTimeoutMs((int) HANDOVER_TIMEOUT_MS).build(),
                            new io.grpc.stub.StreamObserver<>() {
                                @Override
                                public void onNext(TransferLeadershipResponse response) {
                                    if (response.getErrorCode() == ErrorTable.toProto(ErrorCode.NONE)) {
                                        answer.complete(response);
                                    } else {
                                        answer.completeExceptionally(new IllegalStateException("node " + leader
                                                + " answered " + response.getErrorCode() + ": "
                                                + response.getErrorMessage()));
                                    }
                                }

                                @Override
                                public void onError(Throwable t) {
                                    answer.completeExceptionally(t);
                                }

                                @Override
                                public void onCompleted() {
                                    answer.complete(null);
                                }
                            });
            return answer;
        };
    }

    /** Sends the request to partition 0's leader, once; a forwarded request is answered, never forwarded. */
    private CompletableFuture<MembershipChangeResponse> forward(Call call) {
        int leader = node.leaderOf(0);
        if (leader < 0 || leader == node.nodeId() || CallContext.FORWARDED_BY.get() != null) {
            return CompletableFuture.completedFuture(response(ErrorCode.COORDINATOR_NOT_AVAILABLE, "node "
                    + node.nodeId() + " does not lead partition 0 (whose configuration is the membership) and "
                    + "knows no other leader; retry", MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of()));
        }
        String refusal = forwarding.refusal(leader, "partition 0, whose configuration is the membership");
        if (refusal != null) {
            return CompletableFuture.completedFuture(response(ErrorCode.NOT_COORDINATOR, refusal,
                    MembershipFailure.MEMBERSHIP_FAILURE_NONE, List.of()));
        }
        return send(leader, Principals.bearerHeader(), call).exceptionally(e -> {
            Status status = Status.fromThrowable(e);
            return response(status.getCode() == Status.Code.DEADLINE_EXCEEDED ? ErrorCode.REQUEST_TIMED_OUT
                    : ErrorCode.COORDINATOR_NOT_AVAILABLE, "forwarding to node " + leader
                    + ", the leader of partition 0, failed: " + status, MembershipFailure.MEMBERSHIP_FAILURE_NONE,
                    List.of());
        });
    }

    /**
     * {@code call} on node {@code nodeId}'s client port, as the caller of the change, marked
     * forwarded. Asynchronous: a change waits minutes for a catch-up, and no thread is held for it
     * (these calls once blocked the common ForkJoinPool, two threads on a 2-core machine, which Ratis
     * also runs work on).
     */
    private CompletableFuture<MembershipChangeResponse> send(int nodeId, String bearer, Call call) {
        ClusterAdminGrpc.ClusterAdminFutureStub stub = ClusterAdminGrpc.newFutureStub(channels.apply(nodeId))
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(
                        CallContext.forwardingHeaders(node.nodeId(), bearer)))
                .withDeadlineAfter(FORWARD_DEADLINE_MS, TimeUnit.MILLISECONDS);
        return ListenableFutures.toCompletable(call.on(stub));
    }

    private MembershipChangeResponse withMembers(MembershipChangeResponse response) {
        return response.toBuilder().addAllMembers(members(node.membership())).build();
    }

    private static MembershipChangeResponse response(ErrorCode code, String message, MembershipFailure failure,
                                                     List<String> steps) {
        return MembershipChangeResponse.newBuilder().setErrorCode(ErrorTable.toProto(code)).setErrorMessage(message)
                .setFailure(failure).addAllSteps(steps).build();
    }

    private static String[] hostPort(String text, String field) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException(field + " '" + text + "' is not host:port");
        }
        String port = text.substring(colon + 1);
        try {
            int value = Integer.parseInt(port);
            if (value <= 0 || value > 65_535) {
                throw new IllegalArgumentException(field + " '" + text + "': port out of range");
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " '" + text + "' has a non-numeric port");
        }
        return new String[] {text.substring(0, colon), port};
    }

    /** Adds the members as the answering node sees them to a change's response. */
    CompletableFuture<MembershipChangeResponse> withMembers(CompletableFuture<MembershipChangeResponse> response) {
        return response.thenApply(this::withMembers);
    }
}
