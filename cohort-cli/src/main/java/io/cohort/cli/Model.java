package io.cohort.cli;

import io.cohort.api.v1.ErrorCode;
import io.cohort.client.Coordinator;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * What the commands gather and print: plain values, filled by {@link Gather} from the client's
 * answers and turned into text by {@link Render}. A {@code null} field means "not known" and
 * prints as "-" (table) or {@code null} (JSON).
 */
final class Model {
    private Model() {
    }

    /** One row of {@code groups list}. */
    record GroupListing(String groupId, String state, String protocolType) {
    }

    /**
     * One group of {@code groups describe}.
     *
     * @param coordinator the node that answered for the group; null if it could not be told
     * @param protocol the selected protocol (DescribeGroups' protocol_data), "" unless Stable
     * @param leaderId the leader's member id, "" if none
     */
    record GroupDescription(String groupId, Coordinator coordinator, String state, String protocolType,
            String protocol, int generationId, String leaderId, List<Member> members) implements DescribedGroup {
        GroupDescription {
            members = List.copyOf(members);
        }
    }

    /**
     * One member of a described group.
     *
     * @param instanceId the static instance id; null for a dynamic member
     * @param assignmentBytes the size of the member's assignment
     * @param assignment the decoded assignment (protocol type "consumer"); null if not decoded
     */
    record Member(String memberId, String instanceId, String clientId, String host, int assignmentBytes,
            List<TopicPartition> assignment) {
        Member {
            assignment = assignment == null ? null : List.copyOf(assignment);
        }
    }

    /** One group of {@code groups describe}, of either protocol, printed in the order asked. */
    sealed interface DescribedGroup permits GroupDescription, ConsumerGroupDescription {
        String groupId();
    }

    /**
     * One consumer-protocol (KIP-848) group of {@code groups describe} (ConsumerGroupDescribe).
     *
     * @param coordinator the node that answered for the group; null if it could not be told
     * @param assignmentEpoch the group epoch the target assignment was computed for
     */
    record ConsumerGroupDescription(String groupId, Coordinator coordinator, String state, int groupEpoch,
            int assignmentEpoch, String assignor, List<ConsumerMember> members) implements DescribedGroup {
        ConsumerGroupDescription {
            members = List.copyOf(members);
        }
    }

    /**
     * One member of a consumer-protocol group.
     *
     * @param instanceId the static instance id; null for a dynamic member
     * @param rackId null if not given
     * @param state STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS or UNKNOWN
     * @param subscribedRegex null without a regex subscription
     * @param assignment what the member owns now
     * @param targetAssignment what the coordinator wants it to own
     */
    record ConsumerMember(String memberId, String instanceId, String rackId, String clientId, String host,
            int memberEpoch, String state, String memberType, List<String> subscribedTopics, String subscribedRegex,
            List<TopicPartition> assignment, List<TopicPartition> targetAssignment) {
        ConsumerMember {
            subscribedTopics = List.copyOf(subscribedTopics);
            assignment = List.copyOf(assignment);
            targetAssignment = List.copyOf(targetAssignment);
        }
    }

    /** The committed offsets of one group (all of them, or those of one topic), ordered by partition. */
    record GroupOffsets(String groupId, SortedMap<TopicPartition, OffsetAndMetadata> offsets) {
    }

    /** One row of {@code find-coordinator}. */
    record GroupCoordinator(String groupId, Coordinator coordinator) {
    }

    /** The result of deleting one group: NONE, GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP. */
    record GroupDeletion(String groupId, ErrorCode result) {
    }

    /** The per-partition results of {@code offsets delete}: NONE or GROUP_SUBSCRIBED_TO_TOPIC. */
    record OffsetDeletion(String groupId, SortedMap<TopicPartition, ErrorCode> results) {
    }

    /**
     * One node of {@code cluster status}.
     *
     * @param client the node's client endpoint, host:port
     * @param raftPort its Raft port, as the answering nodes report it; null if no node answered
     * @param error why the node did not answer (e.g. the gRPC status); null if it answered
     */
    /**
     * One node of {@code cluster status}.
     *
     * @param role "voter", "listener" (being added), or "-" (not in the membership any answering
     *             node knows: joining and not added yet, or removed); from partition 0's leader's
     *             answer when it answered, else the first answer naming the node
     */
    record NodeRow(int nodeId, String client, Integer raftPort, String role, boolean up, String error) {
    }

    /**
     * One partition of {@code cluster status}.
     *
     * @param leader the node that answered as the partition's leader; null if no answering node leads it
     * @param leaderReady whether that leader is ready to serve
     * @param term the leader's term (without a leader: the highest term any node reported)
     * @param commitIndex the leader's commit index (without a leader: the highest reported)
     * @param applied each answering node's applied index, by node id; down nodes are absent
     * @param preferredLeader the first of the partition's replicas, where the leader balancer puts
     *                        it; null if no answer names the replicas (a build before placement)
     * @param leaderKeeps the leader runs with auto.leader.rebalance.enable=false, or the cluster has
     *                    one partition: it will not hand the partition to its preferred leader
     */
    record PartitionRow(int partition, Integer leader, boolean leaderReady, long term, long commitIndex,
            Map<Integer, Long> applied, Integer preferredLeader, boolean leaderKeeps) {
        PartitionRow {
            applied = Map.copyOf(applied);
        }

        /** Without a known preferred leader. */
        PartitionRow(int partition, Integer leader, boolean leaderReady, long term, long commitIndex,
                     Map<Integer, Long> applied) {
            this(partition, leader, leaderReady, term, commitIndex, applied, null, false);
        }
    }

    /** The whole of {@code cluster status}. */
    record ClusterView(List<NodeRow> nodes, List<PartitionRow> partitions) {
        ClusterView {
            nodes = List.copyOf(nodes);
            partitions = List.copyOf(partitions);
        }

        boolean anyNodeUp() {
            return nodes.stream().anyMatch(NodeRow::up);
        }

        /** The partitions that no answering node leads and serves. */
        List<Integer> partitionsWithoutReadyLeader() {
            return partitions.stream().filter(p -> p.leader() == null || !p.leaderReady())
                    .map(PartitionRow::partition).toList();
        }

        /** At least one node answered, and every partition has a ready leader. */
        boolean healthy() {
            return anyNodeUp() && !partitions.isEmpty() && partitionsWithoutReadyLeader().isEmpty();
        }
    }

    /** The result of {@code cluster transfer-leader}; previousLeader null if unknown. */
    record Transfer(int partition, Integer previousLeader, int leader) {
    }
}
