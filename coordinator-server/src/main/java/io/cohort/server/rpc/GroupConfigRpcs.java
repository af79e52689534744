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
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
 * applies the settings at that point of its log on every replica; a partition that could not be
 * reached is reported, and running the same change again brings it up to date.
 */
final class GroupConfigRpcs {
    static final int REQUIRED_LOG_FORMAT = LogCodec.FORMAT_VERSION_GROUP_CONFIG;
    private static final long PEER_CALL_TIMEOUT_MS = 5_000;
    private static final long FORWARD_TIMEOUT_MS = 30_000;

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
        return formatGate.refusal(REQUIRED_LOG_FORMAT, "changing group settings online").thenCompose(refusal -> {
            if (refusal != null) {
                return CompletableFuture.completedFuture(error(ErrorCode.UNSUPPORTED_VERSION, refusal));
            }
            return latestSettings().thenCompose(latest -> {
                GroupSettings next = GroupSettingsText.merge(latest, changes, latest.version() + 1);
                return proposeEverywhere(next).thenApply(results -> response(next, results));
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

    private CompletableFuture<Map<Integer, PartitionAlterResult>> proposeEverywhere(GroupSettings settings) {
        Map<Integer, List<Integer>> byLeader = new TreeMap<>();
        Map<Integer, PartitionAlterResult> results = new TreeMap<>();
        for (int partition = 0; partition < node.partitions(); partition++) {
            int leader = node.leaderOf(partition);
            if (leader < 0) {
                results.put(partition, result(partition, ErrorCode.COORDINATOR_NOT_AVAILABLE,
                        "partition " + partition + " has no known leader (an election may be under way)"));
            } else {
                byLeader.computeIfAbsent(leader, l -> new ArrayList<>()).add(partition);
            }
        }
        List<CompletableFuture<Map<Integer, PartitionAlterResult>>> parts = new ArrayList<>();
        byLeader.forEach((leader, partitions) -> parts.add(leader == node.nodeId()
                ? proposeHere(partitions, settings) : forward(leader, partitions, settings)));
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            parts.forEach(part -> results.putAll(part.join()));
            return results;
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
        String refusal = forwarding.refusal(leader, "partitions " + partitions);
        if (refusal != null) {
            Map<Integer, PartitionAlterResult> refused = new TreeMap<>();
            partitions.forEach(partition -> refused.put(partition, result(partition, ErrorCode.NOT_COORDINATOR, refusal)));
            return CompletableFuture.completedFuture(refused);
        }
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
