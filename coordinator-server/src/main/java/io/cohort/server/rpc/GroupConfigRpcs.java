package io.cohort.server.rpc;

import io.cohort.api.v1.AlterGroupConfigRequest;
import io.cohort.api.v1.AlterGroupConfigResponse;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.DescribeGroupConfigRequest;
import io.cohort.api.v1.DescribeGroupConfigResponse;
import io.cohort.api.v1.PartitionAlterResult;
import io.cohort.api.v1.PartitionGroupConfig;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.command.Command;
import io.cohort.core.response.GroupConfigResponse;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.log.LogCodec;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * ClusterAdmin's online group settings: DescribeGroupConfig reads the settings each partition held
 * here has applied; AlterGroupConfig writes new settings into every partition's log.
 *
 * <p>AlterGroupConfig, on the node asked: (1) refuses unless every node of the cluster reads log
 * format 3 ({@link LogFormatGate}: each node's ClusterStatus {@code max_log_format_version}; a node
 * that does not answer counts as not confirmed), since a SetGroupConfig command travels in a format-3 entry and a node
 * that reads only format 2 stops applying the partition when it meets one; (2) reads every node's
 * DescribeGroupConfig and takes the greatest settings any partition holds as the base, so a change
 * that reached only some partitions is not lost by the next one; (3) merges the requested values,
 * checks them (INVALID_ARGUMENT), picks the next version, and proposes {@code SetGroupConfig} to
 * each partition's leader: itself for those it leads, else a forwarded AlterGroupConfig naming the
 * partitions, the version and the complete settings (never forwarded again). Each partition
 * applies the settings at that point of its log on every replica. A partition whose leader moves
 * or is being elected meanwhile (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
 * COORDINATOR_NOT_AVAILABLE) is proposed again, to its leader of the moment, with the same version,
 * for up to {@link #RETRY_BUDGET_MS} (as Kafka's admin client retries retriable errors until its
 * api timeout): that is safe because a SetGroupConfig that does not supersede the partition's
 * settings applies as "unchanged". A partition still not reached then is reported, and running the
 * same change again brings it up to date.
 */
final class GroupConfigRpcs {
    static final int REQUIRED_LOG_FORMAT = LogCodec.FORMAT_VERSION_GROUP_CONFIG;
    private static final long PEER_CALL_TIMEOUT_MS = 5_000;
    private static final long FORWARD_TIMEOUT_MS = 30_000;
    /** How long a change keeps re-proposing to partitions whose leadership moved, after the first try. */
    static final long RETRY_BUDGET_MS = 10_000;
    /**
     * Left of the caller's deadline when the retries stop, so that the last try's answer (a
     * forwarded proposal or a local one) reaches the caller before its deadline does.
     */
    private static final long DEADLINE_MARGIN_MS = 3_000;
    private static final long FIRST_BACKOFF_MS = 100;
    private static final long MAX_BACKOFF_MS = 1_000;
    /** The answers that mean "not this node, not now": the partition's leadership is moving. */
    private static final Set<io.cohort.api.v1.ErrorCode> RETRIABLE = EnumSet.of(
            io.cohort.api.v1.ErrorCode.NOT_COORDINATOR, io.cohort.api.v1.ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
            io.cohort.api.v1.ErrorCode.COORDINATOR_NOT_AVAILABLE);

    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    private final IntFunction<ManagedChannel> channelToNode;
    private final LogFormatGate formatGate;
    private final ForwardedIdentity forwarding;

    GroupConfigRpcs(CohortRaftNode node, RequestAuthorizer authorizer, ForwardedIdentity forwarding,
            IntFunction<ManagedChannel> channelToNode) {
        this.forwarding = forwarding;
        this.node = node;
        this.authorizer = authorizer;
        this.channelToNode = channelToNode;
        this.formatGate = new LogFormatGate(node, channelToNode);
    }

    // ---- DescribeGroupConfig ----

    DescribeGroupConfigResponse describe(DescribeGroupConfigRequest request) {
        if (!authorizer.allowCluster("DescribeGroupConfig", AclOperation.DESCRIBE)) {
            return DescribeGroupConfigResponse.newBuilder().setNodeId(node.nodeId())
                    .setErrorCode(ErrorTable.toProto(ErrorCode.CLUSTER_AUTHORIZATION_FAILED))
                    .setErrorMessage(Principals.principal() + " may not DESCRIBE the cluster").build();
        }
        return localDescription();
    }

    private DescribeGroupConfigResponse localDescription() {
        DescribeGroupConfigResponse.Builder response = DescribeGroupConfigResponse.newBuilder()
                .setNodeId(node.nodeId()).setErrorCode(io.cohort.api.v1.ErrorCode.NONE);
        for (int partition : node.hostedPartitions()) {
            GroupSettings settings = node.shard(partition).settings();
            response.addPartitions(PartitionGroupConfig.newBuilder()
                    .setPartitionIndex(partition)
                    .setVersion(settings.version())
                    .addAllEntries(GroupSettingsText.entries(settings))
                    .setAppliedIndex(node.stateMachine(partition).lastAppliedIndex())
                    .setLeader(node.isLeader(partition)));
        }
        return response.build();
    }

    // ---- AlterGroupConfig ----

    /**
     * The change; the future fails with {@link IllegalArgumentException} for malformed or inconsistent
     * settings (gRPC INVALID_ARGUMENT), before anything is written.
     */
    CompletableFuture<AlterGroupConfigResponse> alter(AlterGroupConfigRequest request) {
        if (!authorizer.allowCluster("AlterGroupConfig", AclOperation.ALTER)) {
            return CompletableFuture.completedFuture(error(ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                    Principals.principal() + " may not ALTER the cluster"));
        }
        if (request.getForwardedVersion() > 0 || request.getForwardedPartitionsCount() > 0) {
            if (CallContext.FORWARDED_BY.get() == null) {
                throw new IllegalArgumentException("forwarded_version and forwarded_partitions are set only by nodes");
            }
            GroupSettings settings = GroupSettingsText.complete(request.getEntriesList(), request.getForwardedVersion());
            return proposeHere(request.getForwardedPartitionsList(), settings)
                    .thenApply(results -> response(settings, results));
        }
        Map<String, Long> changes = GroupSettingsText.parse(request.getEntriesList());
        if (changes.isEmpty()) {
            throw new IllegalArgumentException("no setting given; name at least one of " + GroupSettingsText.NAMES);
        }
        Context call = Context.current();
        long retryDeadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryBudgetMs(call));
        return formatGate.refusal(REQUIRED_LOG_FORMAT, "changing group settings online").thenCompose(refusal -> {
            if (refusal != null) {
                return CompletableFuture.completedFuture(error(ErrorCode.UNSUPPORTED_VERSION, refusal));
            }
            return latestSettings().thenCompose(latest -> {
                GroupSettings next = GroupSettingsText.merge(latest, changes, latest.version() + 1);
                return proposeUntilTaken(allPartitions(), next, call, retryDeadlineNanos, FIRST_BACKOFF_MS,
                        new TreeMap<>()).thenApply(results -> response(next, results));
            });
        });
    }

    /** The greatest settings any partition holds, as this node and every node that answers report them. */
    private CompletableFuture<GroupSettings> latestSettings() {
        List<CompletableFuture<DescribeGroupConfigResponse>> answers = new ArrayList<>();
        for (NodeAddress peer : node.spec().peers()) {
            if (peer.nodeId() == node.nodeId()) {
                answers.add(CompletableFuture.completedFuture(localDescription()));
            } else {
                answers.add(ListenableFutures.toCompletable(stubTo(peer.nodeId(), PEER_CALL_TIMEOUT_MS)
                        .describeGroupConfig(DescribeGroupConfigRequest.getDefaultInstance()))
                        .exceptionally(failure -> null));
            }
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            GroupSettings latest = node.shard(0).settings();
            for (CompletableFuture<DescribeGroupConfigResponse> answer : answers) {
                DescribeGroupConfigResponse described = answer.join();
                if (described == null || described.getErrorCode() != io.cohort.api.v1.ErrorCode.NONE) {
                    continue;
                }
                for (PartitionGroupConfig partition : described.getPartitionsList()) {
                    GroupSettings settings = GroupSettingsText.complete(partition.getEntriesList(), partition.getVersion());
                    if (settings.supersedes(latest)) {
                        latest = settings;
                    }
                }
            }
            return latest;
        });
    }

    /** The caller's retry budget: {@link #RETRY_BUDGET_MS}, less if the call's deadline is nearer. */
    private static long retryBudgetMs(Context call) {
        Deadline deadline = call.getDeadline();
        long budget = RETRY_BUDGET_MS;
        if (deadline != null) {
            budget = Math.min(budget, deadline.timeRemaining(TimeUnit.MILLISECONDS) - DEADLINE_MARGIN_MS);
        }
        return Math.max(0, budget);
    }

    private List<Integer> allPartitions() {
        List<Integer> partitions = new ArrayList<>();
        for (int partition = 0; partition < node.partitions(); partition++) {
            partitions.add(partition);
        }
        return partitions;
    }

    /**
     * Proposes {@code settings} to {@code partitions}, then again, after a growing pause, to those
     * that answered a retriable error, until none did or the deadline would pass; {@code results}
     * gathers each partition's latest answer. Each try runs on the caller's gRPC context {@code
     * call} whatever thread starts it, since a forwarded proposal carries the caller's identity
     * from there.
     */
    private CompletableFuture<Map<Integer, PartitionAlterResult>> proposeUntilTaken(List<Integer> partitions,
            GroupSettings settings, Context call, long deadlineNanos, long backoffMs,
            Map<Integer, PartitionAlterResult> results) {
        CompletableFuture<Attempt> attempted;
        Context previous = call.attach();
        try {
            attempted = proposeToLeaders(partitions, settings);
        } finally {
            call.detach(previous);
        }
        return attempted.thenCompose(attempt -> {
            results.putAll(attempt.results());
            long leftNanos = deadlineNanos - System.nanoTime();
            if (attempt.retriable().isEmpty() || call.isCancelled()
                    || leftNanos < TimeUnit.MILLISECONDS.toNanos(backoffMs)) {
                return CompletableFuture.completedFuture(results);
            }
            Executor afterPause = CompletableFuture.delayedExecutor(backoffMs, TimeUnit.MILLISECONDS);
            return CompletableFuture.runAsync(() -> { }, afterPause).thenCompose(ignored ->
                    proposeUntilTaken(attempt.retriable(), settings, call, deadlineNanos,
                            Math.min(backoffMs * 2, MAX_BACKOFF_MS), results));
        });
    }

    /** One try's answers, and the partitions among them worth trying again. */
    private record Attempt(Map<Integer, PartitionAlterResult> results, List<Integer> retriable) {
    }

    /** Proposes to each partition's leader as this node knows it now: itself, or forwarded. */
    private CompletableFuture<Attempt> proposeToLeaders(List<Integer> partitions, GroupSettings settings) {
        Map<Integer, List<Integer>> byLeader = new TreeMap<>();
        Map<Integer, PartitionAlterResult> results = new TreeMap<>();
        Map<Integer, PartitionAlterResult> refused = new TreeMap<>();
        for (int partition : partitions) {
            int leader = node.leaderOf(partition);
            if (leader < 0) {
                results.put(partition, result(partition, ErrorCode.COORDINATOR_NOT_AVAILABLE,
                        "partition " + partition + " has no known leader (an election may be under way)"));
            } else {
                byLeader.computeIfAbsent(leader, l -> new ArrayList<>()).add(partition);
            }
        }
        List<CompletableFuture<Map<Integer, PartitionAlterResult>>> parts = new ArrayList<>();
        byLeader.forEach((leader, led) -> {
            if (leader == node.nodeId()) {
                parts.add(proposeHere(led, settings));
                return;
            }
            // Refused for the caller's identity, not for where leadership is: trying again cannot help.
            String refusal = forwarding.refusal(leader, "partitions " + led);
            if (refusal != null) {
                led.forEach(partition -> refused.put(partition, result(partition, ErrorCode.NOT_COORDINATOR, refusal)));
            } else {
                parts.add(forward(leader, led, settings));
            }
        });
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            parts.forEach(part -> results.putAll(part.join()));
            List<Integer> retriable = results.values().stream()
                    .filter(r -> RETRIABLE.contains(r.getErrorCode()))
                    .map(PartitionAlterResult::getPartitionIndex).toList();
            results.putAll(refused);
            return new Attempt(results, retriable);
        });
    }

    private CompletableFuture<Map<Integer, PartitionAlterResult>> proposeHere(List<Integer> partitions,
                                                                             GroupSettings settings) {
        List<CompletableFuture<PartitionAlterResult>> proposals = new ArrayList<>();
        for (int partition : partitions) {
            if (partition < 0 || partition >= node.partitions()) {
                proposals.add(CompletableFuture.completedFuture(result(partition, ErrorCode.INVALID_REQUEST,
                        "partition " + partition + " does not exist")));
                continue;
            }
            proposals.add(node.submit(partition, new Command.SetGroupConfig(settings)).handle((applied, failure) -> {
                if (failure != null) {
                    ErrorTable.Failure mapped = ErrorTable.failureOf(failure, node);
                    return result(partition, mapped.code(), mapped.message());
                }
                GroupConfigResponse answer = (GroupConfigResponse) applied.immediateResponse();
                return PartitionAlterResult.newBuilder().setPartitionIndex(partition)
                        .setErrorCode(ErrorTable.toProto(answer.error())).setErrorMessage(answer.message())
                        .setChanged(answer.changed()).setGroupsRebalanced(answer.groupsRebalanced()).build();
            }));
        }
        return CompletableFuture.allOf(proposals.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            Map<Integer, PartitionAlterResult> results = new TreeMap<>();
            proposals.forEach(p -> results.put(p.join().getPartitionIndex(), p.join()));
            return results;
        });
    }

    private CompletableFuture<Map<Integer, PartitionAlterResult>> forward(int leader, List<Integer> partitions,
                                                                         GroupSettings settings) {
        AlterGroupConfigRequest forwarded = AlterGroupConfigRequest.newBuilder()
                .addAllEntries(GroupSettingsText.entries(settings))
                .setForwardedVersion(settings.version())
                .addAllForwardedPartitions(partitions).build();
        CompletableFuture<AlterGroupConfigResponse> answered =
                ListenableFutures.toCompletable(stubTo(leader, FORWARD_TIMEOUT_MS).alterGroupConfig(forwarded));
        return answered.handle((answer, failure) -> {
            Map<Integer, PartitionAlterResult> results = new TreeMap<>();
            for (int partition : partitions) {
                results.put(partition, result(partition, ErrorCode.COORDINATOR_NOT_AVAILABLE, "forwarding to node "
                        + leader + ", the leader of partition " + partition + ", failed: "
                        + (failure != null ? failure : answer.getErrorCode() + " " + answer.getErrorMessage())));
            }
            if (failure == null) {
                answer.getPartitionsList().forEach(r -> results.put(r.getPartitionIndex(), r));
            }
            return results;
        });
    }

    private ClusterAdminGrpc.ClusterAdminFutureStub stubTo(int nodeId, long timeoutMs) {
        Metadata headers = CallContext.forwardingHeaders(node.nodeId(), Principals.bearerHeader());
        return ClusterAdminGrpc.newFutureStub(channelToNode.apply(nodeId))
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
    }

    private static AlterGroupConfigResponse response(GroupSettings settings, Map<Integer, PartitionAlterResult> results) {
        List<PartitionAlterResult> failed = results.values().stream()
                .filter(r -> r.getErrorCode() != io.cohort.api.v1.ErrorCode.NONE).toList();
        AlterGroupConfigResponse.Builder response = AlterGroupConfigResponse.newBuilder()
                .setVersion(settings.version())
                .addAllEntries(GroupSettingsText.entries(settings))
                .addAllPartitions(results.values())
                .setErrorCode(failed.isEmpty() ? io.cohort.api.v1.ErrorCode.NONE : failed.get(0).getErrorCode());
        if (!failed.isEmpty()) {
            response.setErrorMessage(failed.size() + " of " + results.size() + " partitions did not take the change ("
                    + failed.stream().map(r -> r.getPartitionIndex() + ": " + r.getErrorCode() + " "
                    + r.getErrorMessage()).collect(Collectors.joining("; "))
                    + "); run the same change again to bring them up to date");
        }
        return response.build();
    }

    private static PartitionAlterResult result(int partition, ErrorCode code, String message) {
        return PartitionAlterResult.newBuilder().setPartitionIndex(partition).setErrorCode(ErrorTable.toProto(code))
                .setErrorMessage(message).build();
    }

    private static AlterGroupConfigResponse error(ErrorCode code, String message) {
        return AlterGroupConfigResponse.newBuilder().setErrorCode(ErrorTable.toProto(code)).setErrorMessage(message)
                .build();
    }

}
