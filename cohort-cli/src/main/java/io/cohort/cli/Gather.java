package io.cohort.cli;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.api.v1.ErrorCode;
import io.cohort.cli.Model.ClusterView;
import io.cohort.cli.Model.ConsumerGroupDescription;
import io.cohort.cli.Model.ConsumerMember;
import io.cohort.cli.Model.DescribedGroup;
import io.cohort.cli.Model.GroupDescription;
import io.cohort.cli.Model.GroupListing;
import io.cohort.cli.Model.Member;
import io.cohort.cli.Model.NodeRow;
import io.cohort.cli.Model.PartitionRow;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.Coordinator;
import io.cohort.client.TopicPartition;
import io.cohort.client.internal.ConsumerProtocol;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The calls on {@link CohortClient} behind the commands, and the pure conversions of their
 * answers into {@link Model} values (unit-tested apart from any cluster).
 */
final class Gather {
    /** The protocol type whose assignments the CLI decodes (consumer_protocol.proto). */
    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private Gather() {
    }

    // ---------------------------------------------------------------------------------------------
    // groups

    /** Every group in one of {@code states} (all if empty), sorted by group id. */
    static List<GroupListing> listGroups(CohortClient client, Collection<String> states) {
        List<GroupListing> groups = new ArrayList<>();
        for (ListGroupsResponse.Group g : client.listGroups(states)) {
            groups.add(new GroupListing(g.getGroupId(), g.getGroupState(), g.getProtocolType()));
        }
        groups.sort(Comparator.comparing(GroupListing::groupId));
        return groups;
    }

    /** Describes {@code groupId} with its coordinator; empty if the group does not exist. */
    static Optional<GroupDescription> describeGroup(CohortClient client, String groupId) {
        Optional<DescribeGroupsResponse.Group> group = client.describeGroup(groupId);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        // The node that just answered is the coordinator; ask only if the client forgot it since.
        Coordinator coordinator = client.cachedCoordinator(groupId).orElseGet(() -> client.findCoordinator(groupId));
        return Optional.of(toDescription(group.get(), coordinator));
    }

    /**
     * Describes {@code groupId} whichever its protocol: ConsumerGroupDescribe first; a group that is
     * not a consumer-protocol group (GROUP_ID_NOT_FOUND), or a cluster that does not serve that call
     * (UNSUPPORTED_VERSION), falls back to the classic DescribeGroups, as Kafka's admin client does.
     * Empty if the group does not exist.
     */
    static Optional<DescribedGroup> describeAnyGroup(CohortClient client, String groupId) {
        DescribedConsumerGroup consumer = null;
        try {
            consumer = client.describeConsumerGroups(List.of(groupId)).get(0);
        } catch (CohortException e) {
            if (e.errorCode() != ErrorCode.UNSUPPORTED_VERSION) {
                throw e;
            }
        }
        if (consumer != null && consumer.getErrorCode() == ErrorCode.NONE) {
            Coordinator coordinator = client.cachedCoordinator(groupId).orElseGet(() -> client.findCoordinator(groupId));
            return Optional.of(toConsumerDescription(consumer, coordinator));
        }
        if (consumer != null && consumer.getErrorCode() != ErrorCode.GROUP_ID_NOT_FOUND) {
            throw new CohortException(consumer.getErrorCode(), consumer.getErrorMessage());
        }
        return describeGroup(client, groupId).map(g -> g);
    }

    static ConsumerGroupDescription toConsumerDescription(DescribedConsumerGroup g, Coordinator coordinator) {
        List<ConsumerMember> members = new ArrayList<>();
        for (DescribedConsumerGroup.Member m : g.getMembersList()) {
            members.add(new ConsumerMember(m.getMemberId(), m.hasInstanceId() ? m.getInstanceId() : null,
                    m.hasRackId() ? m.getRackId() : null, m.getClientId(), m.getClientHost(), m.getMemberEpoch(),
                    m.getMemberState(), m.getMemberType(), m.getSubscribedTopicNamesList(),
                    m.hasSubscribedTopicRegex() ? m.getSubscribedTopicRegex() : null,
                    partitions(m.getAssignmentList()), partitions(m.getTargetAssignmentList())));
        }
        return new ConsumerGroupDescription(g.getGroupId(), coordinator, g.getGroupState(), g.getGroupEpoch(),
                g.getAssignmentEpoch(), g.getAssignorName(), members);
    }

    /** By topic name; a topic without a name (deleted since) shows its id. */
    private static List<TopicPartition> partitions(List<DescribedConsumerGroup.DescribedTopicPartitions> topics) {
        List<TopicPartition> out = new ArrayList<>();
        for (DescribedConsumerGroup.DescribedTopicPartitions topic : topics) {
            String name = topic.getTopicName().isEmpty() ? topicIdText(topic.getTopicId()) : topic.getTopicName();
            topic.getPartitionsList().forEach(p -> out.add(new TopicPartition(name, p)));
        }
        return out;
    }

    private static String topicIdText(com.google.protobuf.ByteString id) {
        if (id.size() != 16) {
            return "<topic id " + id.size() + " bytes>";
        }
        java.nio.ByteBuffer buffer = id.asReadOnlyByteBuffer();
        return new java.util.UUID(buffer.getLong(), buffer.getLong()).toString();
    }

    static GroupDescription toDescription(DescribeGroupsResponse.Group g, Coordinator coordinator) {
        List<Member> members = new ArrayList<>();
        for (DescribeGroupsResponse.Member m : g.getMembersList()) {
            members.add(toMember(m, g.getProtocolType()));
        }
        return new GroupDescription(g.getGroupId(), coordinator, g.getGroupState(), g.getProtocolType(),
                g.getProtocolData(), g.getGenerationId(), g.getLeaderId(), members);
    }

    /** A member, with its assignment decoded if the group speaks the consumer protocol and the bytes parse. */
    static Member toMember(DescribeGroupsResponse.Member m, String protocolType) {
        List<TopicPartition> assignment = null;
        if (CONSUMER_PROTOCOL_TYPE.equals(protocolType)) {
            try {
                assignment = ConsumerProtocol.decodeAssignment(m.getMemberAssignment()).partitions();
            } catch (IllegalArgumentException e) {
                assignment = null; // not a ConsumerAssignment: shown by its size
            }
        }
        return new Member(m.getMemberId(), m.hasGroupInstanceId() ? m.getGroupInstanceId() : null, m.getClientId(),
                m.getClientHost(), m.getMemberAssignment().size(), assignment);
    }

    // ---------------------------------------------------------------------------------------------
    // cluster

    /** Asks every node for its view; a node that does not answer is DOWN, not a failure. */
    static ClusterView clusterStatus(CohortClient client) {
        Map<Integer, String> nodes = client.nodes();
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        Map<Integer, String> failures = new LinkedHashMap<>();
        for (int nodeId : nodes.keySet()) {
            try {
                answers.put(nodeId, client.clusterStatus(nodeId, false));
            } catch (CohortException e) {
                failures.put(nodeId, whyDown(e));
            }
        }
        return toClusterView(nodes, answers, failures);
    }

    /** The gRPC status of a node that did not answer (e.g. UNAVAILABLE), else the error. */
    private static String whyDown(CohortException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StatusRuntimeException s) {
                return s.getStatus().getCode().name();
            }
        }
        return e.getMessage();
    }

    /**
     * Combines the nodes' answers: each partition's leader, term and commit index come from the
     * answer of the node that reports itself as the leader (the highest term wins if two do, as
     * during an election); without one, the partition has no leader and the highest term and
     * commit index any node reported are shown. Every answering node contributes its applied index.
     *
     * @param nodes every configured node's client endpoint, by node id
     * @param answers the answers of the nodes that answered, by node id
     * @param failures why each other node did not answer, by node id
     */
    static ClusterView toClusterView(Map<Integer, String> nodes, Map<Integer, ClusterStatusResponse> answers,
            Map<Integer, String> failures) {
        Map<Integer, Integer> raftPorts = new HashMap<>();
        Map<Integer, String> roles = new HashMap<>();
        int partitionCount = 0;
        // Partition 0's leader knows the latest membership; the other answers fill in after it.
        List<ClusterStatusResponse> ordered = new ArrayList<>(answers.values());
        ordered.sort(java.util.Comparator.comparing((ClusterStatusResponse a) -> {
            PartitionStatus zero = partition(a, 0);
            return zero == null || zero.getLeaderNodeId() != a.getNodeId();
        }));
        for (ClusterStatusResponse answer : ordered) {
            partitionCount = Math.max(partitionCount, answer.getPartitionCount());
            for (NodeStatus node : answer.getNodesList()) {
                raftPorts.putIfAbsent(node.getNodeId(), node.getRaftPort());
                roles.putIfAbsent(node.getNodeId(), roleName(node.getRole()));
            }
        }
        List<NodeRow> nodeRows = new ArrayList<>();
        new TreeMap<>(nodes).forEach((id, endpoint) -> nodeRows.add(new NodeRow(id, endpoint, raftPorts.get(id),
                roles.getOrDefault(id, "-"), answers.containsKey(id),
                answers.containsKey(id) ? null : failures.getOrDefault(id, "no answer"))));

        List<PartitionRow> partitionRows = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            Map<Integer, Long> applied = new TreeMap<>();
            Integer preferred = null;
            PartitionStatus leaderView = null;
            Integer leader = null;
            long maxTerm = 0;
            long maxCommit = 0;
            for (Map.Entry<Integer, ClusterStatusResponse> answer : answers.entrySet()) {
                PartitionStatus status = partition(answer.getValue(), p);
                if (status != null && preferred == null && status.getReplicaNodeIdsCount() > 0) {
                    preferred = status.getReplicaNodeIds(0);
                }
                // A node that holds no replica of p (replication factor below N) has no index to show.
                if (status == null || (!status.getHosted() && status.getReplicaNodeIdsCount() > 0)) {
                    continue;
                }
                int nodeId = answer.getKey();
                applied.put(nodeId, status.getAppliedIndex());
                maxTerm = Math.max(maxTerm, status.getTerm());
                maxCommit = Math.max(maxCommit, status.getCommitIndex());
                if (status.getLeaderNodeId() == nodeId
                        && (leaderView == null || status.getTerm() > leaderView.getTerm())) {
                    leaderView = status;
                    leader = nodeId;
                }
            }
            if (leaderView != null && leaderView.getReplicaNodeIdsCount() > 0) {
                preferred = leaderView.getReplicaNodeIds(0);
            }
            partitionRows.add(leaderView != null
                    ? new PartitionRow(p, leader, leaderView.getLeaderReady(), leaderView.getTerm(),
                            leaderView.getCommitIndex(), applied, preferred,
                            answers.get(leader).getLeaderRebalanceDisabled())
                    : new PartitionRow(p, null, false, maxTerm, maxCommit, applied, preferred, false));
        }
        return new ClusterView(nodeRows, partitionRows);
    }

    private static String roleName(io.cohort.api.v1.MemberRole role) {
        return switch (role) {
            case MEMBER_ROLE_VOTER -> "voter";
            case MEMBER_ROLE_LISTENER -> "listener";
            default -> "-";
        };
    }

    private static PartitionStatus partition(ClusterStatusResponse answer, int partition) {
        for (PartitionStatus status : answer.getPartitionsList()) {
            if (status.getPartitionIndex() == partition) {
                return status;
            }
        }
        return null;
    }
}
