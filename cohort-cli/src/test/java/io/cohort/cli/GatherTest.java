package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ConsumerAssignment;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.api.v1.MemberRole;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.TopicPartitions;
import io.cohort.cli.Model.ClusterView;
import io.cohort.cli.Model.ConsumerGroupDescription;
import io.cohort.cli.Model.ConsumerMember;
import io.cohort.cli.Model.GroupDescription;
import io.cohort.cli.Model.Member;
import io.cohort.cli.Model.NodeRow;
import io.cohort.cli.Model.PartitionRow;
import io.cohort.client.Coordinator;
import io.cohort.client.TopicPartition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure conversions of {@link Gather}, with hand-made answers. */
class GatherTest {
    private static final Map<Integer, String> NODES = Map.of(1, "127.0.0.1:7101", 2, "127.0.0.1:7102",
            3, "127.0.0.1:7103");

    @Test
    void testClusterViewTakesEachPartitionFromItsLeadersAnswer() {
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        // Node 1 leads partition 0; node 2 leads partition 1; node 3 did not answer.
        answers.put(1, answer(1, partition(0, 1, 4, true, 100, 100), partition(1, 2, 3, false, 40, 39)));
        answers.put(2, answer(2, partition(0, 1, 4, false, 98, 97), partition(1, 2, 3, true, 41, 41)));
        ClusterView view = Gather.toClusterView(NODES, answers, Map.of(3, "UNAVAILABLE"));

        assertThat(view.nodes()).containsExactly(new NodeRow(1, "127.0.0.1:7101", 7201, "voter", true, null),
                new NodeRow(2, "127.0.0.1:7102", 7202, "voter", true, null),
                new NodeRow(3, "127.0.0.1:7103", 7203, "voter", false, "UNAVAILABLE"));
        assertThat(view.partitions()).containsExactly(
                new PartitionRow(0, 1, true, 4, 100, Map.of(1, 100L, 2, 97L)),
                new PartitionRow(1, 2, true, 3, 41, Map.of(1, 39L, 2, 41L)));
        assertThat(view.healthy()).isTrue();
    }

    @Test
    void testClusterViewNamesThePreferredLeaderAndALeaderThatKeepsThePartition() {
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        // Partition 0 is placed on 1, 2, 3 (node 1 preferred) but led by node 2, which keeps it.
        PartitionStatus led = partition(0, 2, 4, true, 100, 100).toBuilder().addAllReplicaNodeIds(List.of(1, 2, 3))
                .setHosted(true).build();
        PartitionStatus followed = partition(0, 2, 4, false, 100, 99).toBuilder()
                .addAllReplicaNodeIds(List.of(1, 2, 3)).setHosted(true).build();
        answers.put(1, answer(1, followed));
        answers.put(2, answer(2, led).toBuilder().setLeaderRebalanceDisabled(true).build());
        assertThat(Gather.toClusterView(NODES, answers, Map.of(3, "UNAVAILABLE")).partitions())
                .containsExactly(new PartitionRow(0, 2, true, 4, 100, Map.of(1, 99L, 2, 100L), 1, true));
        // A leader with the balancer on: the same preferred leader, not kept.
        answers.put(2, answer(2, led));
        assertThat(Gather.toClusterView(NODES, answers, Map.of(3, "UNAVAILABLE")).partitions())
                .containsExactly(new PartitionRow(0, 2, true, 4, 100, Map.of(1, 99L, 2, 100L), 1, false));
    }

    @Test
    void testClusterViewTakesTheRolesFromPartitionZerosLeader() {
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        // Node 1, a follower of partition 0, has not seen node 3's promotion yet; node 2 leads it.
        answers.put(1, withRole(answer(1, partition(0, 2, 4, false, 90, 90)), 3, MemberRole.MEMBER_ROLE_LISTENER));
        answers.put(2, answer(2, partition(0, 2, 4, true, 100, 100)));
        answers.put(3, withRole(answer(3, partition(0, 2, 4, false, 100, 99)), 3, MemberRole.MEMBER_ROLE_UNSPECIFIED));

        ClusterView view = Gather.toClusterView(NODES, answers, Map.of());

        assertThat(view.nodes()).extracting(NodeRow::role).containsExactly("voter", "voter", "voter");
        answers.remove(2);
        assertThat(Gather.toClusterView(NODES, answers, Map.of(2, "UNAVAILABLE")).nodes())
                .extracting(NodeRow::role).as("without the leader: the first answer naming the node")
                .containsExactly("voter", "voter", "listener");
    }

    private static ClusterStatusResponse withRole(ClusterStatusResponse answer, int nodeId, MemberRole role) {
        ClusterStatusResponse.Builder builder = answer.toBuilder();
        for (int i = 0; i < builder.getNodesCount(); i++) {
            if (builder.getNodes(i).getNodeId() == nodeId) {
                builder.setNodes(i, builder.getNodes(i).toBuilder().setRole(role));
            }
        }
        return builder.build();
    }

    @Test
    void testClusterViewWithoutAnAnsweringLeader() {
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        // Both followers still name node 3 (down) as the leader; node 1 has the higher term.
        answers.put(1, answer(1, partition(0, 3, 6, false, 10, 10)));
        answers.put(2, answer(2, partition(0, 3, 5, false, 12, 9)));
        ClusterView view = Gather.toClusterView(NODES, answers, Map.of(3, "UNAVAILABLE"));
        assertThat(view.partitions()).containsExactly(new PartitionRow(0, null, false, 6, 12, Map.of(1, 10L, 2, 9L)));
        assertThat(view.partitionsWithoutReadyLeader()).containsExactly(0);
        assertThat(view.healthy()).isFalse();
    }

    @Test
    void testClusterViewPrefersTheHigherTermWhenTwoNodesClaimTheLead() {
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        answers.put(1, answer(1, partition(0, 1, 2, true, 50, 50)));
        answers.put(2, answer(2, partition(0, 2, 3, false, 50, 50)));
        ClusterView view = Gather.toClusterView(NODES, answers, Map.of());
        assertThat(view.partitions().get(0).leader()).isEqualTo(2);
        assertThat(view.partitions().get(0).leaderReady()).isFalse();
        assertThat(view.nodes().get(2)).isEqualTo(new NodeRow(3, "127.0.0.1:7103", 7203, "voter", false, "no answer"));
    }

    @Test
    void testClusterViewWithNoAnswer() {
        ClusterView view = Gather.toClusterView(NODES, Map.of(), Map.of(1, "UNAVAILABLE", 2, "UNAVAILABLE",
                3, "UNAVAILABLE"));
        assertThat(view.nodes()).extracting(NodeRow::raftPort).containsOnlyNulls();
        assertThat(view.partitions()).isEmpty();
        assertThat(view.anyNodeUp()).isFalse();
        assertThat(view.healthy()).isFalse();
    }

    @Test
    void testDescriptionDecodesConsumerAssignments() {
        ByteString assignment = ConsumerAssignment.newBuilder()
                .addAssignedPartitions(TopicPartitions.newBuilder().setTopic("orders").addPartitions(0).addPartitions(2))
                .build().toByteString();
        DescribeGroupsResponse.Group group = DescribeGroupsResponse.Group.newBuilder().setGroupId("g")
                .setGroupState("Stable").setProtocolType("consumer").setProtocolData("range").setGenerationId(4)
                .setLeaderId("m-1")
                .addMembers(DescribeGroupsResponse.Member.newBuilder().setMemberId("m-1").setClientId("c")
                        .setClientHost("/h").setMemberAssignment(assignment))
                .addMembers(DescribeGroupsResponse.Member.newBuilder().setMemberId("m-2").setGroupInstanceId("i-2")
                        .setMemberAssignment(ByteString.copyFrom(new byte[] {(byte) 0xff, 1})))
                .build();
        Coordinator coordinator = new Coordinator(1, 2, "127.0.0.1", 7102);
        GroupDescription description = Gather.toDescription(group, coordinator);
        assertThat(description).isEqualTo(new GroupDescription("g", coordinator, "Stable", "consumer", "range", 4, "m-1",
                List.of(new Member("m-1", null, "c", "/h", assignment.size(),
                                List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 2))),
                        // Bytes that are no ConsumerAssignment are shown by their size.
                        new Member("m-2", "i-2", "", "", 2, null))));
        assertThat(Render.assignmentText(description.members().get(0))).isEqualTo("orders:0,2");
        assertThat(Render.assignmentText(description.members().get(1))).isEqualTo("<2 bytes>");
    }

    @Test
    void testAConsumerProtocolDescriptionNamesTopicsAndKeepsCurrentAndTarget() {
        java.util.UUID orders = new java.util.UUID(1, 2);
        java.util.UUID gone = new java.util.UUID(0x1234, 0x5678);
        DescribedConsumerGroup group = DescribedConsumerGroup.newBuilder().setGroupId("g").setGroupState("Reconciling")
                .setGroupEpoch(5).setAssignmentEpoch(5).setAssignorName("range")
                .addMembers(DescribedConsumerGroup.Member.newBuilder().setMemberId("m-1").setInstanceId("i-1")
                        .setMemberEpoch(4).setClientId("c").setClientHost("/h").addSubscribedTopicNames("orders")
                        .setMemberState("UNREVOKED_PARTITIONS").setMemberType("consumer")
                        .addAssignment(topic(orders, "orders", 0, 1))
                        .addAssignment(topic(gone, "", 7))
                        .addTargetAssignment(topic(orders, "orders", 1)))
                .build();
        Coordinator coordinator = new Coordinator(1, 2, "127.0.0.1", 7102);
        ConsumerGroupDescription description = Gather.toConsumerDescription(group, coordinator);
        assertThat(description).isEqualTo(new ConsumerGroupDescription("g", coordinator, "Reconciling", 5, 5, "range",
                List.of(new ConsumerMember("m-1", "i-1", null, "c", "/h", 4, "UNREVOKED_PARTITIONS", "consumer",
                        List.of("orders"), null,
                        List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1),
                                // A topic the registry no longer names is shown by its id.
                                new TopicPartition(gone.toString(), 7)),
                        List.of(new TopicPartition("orders", 1))))));
    }

    private static DescribedConsumerGroup.DescribedTopicPartitions topic(java.util.UUID id, String name,
            Integer... partitions) {
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits());
        return DescribedConsumerGroup.DescribedTopicPartitions.newBuilder()
                .setTopicId(ByteString.copyFrom(bytes.array())).setTopicName(name)
                .addAllPartitions(List.of(partitions)).build();
    }

    @Test
    void testOtherProtocolTypesAreNotDecoded() {
        DescribeGroupsResponse.Member member = DescribeGroupsResponse.Member.newBuilder().setMemberId("w")
                .setMemberAssignment(ByteString.copyFromUtf8("x")).build();
        Member converted = Gather.toMember(member, "connect");
        assertThat(converted.assignment()).isNull();
        assertThat(Render.assignmentText(converted)).isEqualTo("<1 byte>");
    }

    private static ClusterStatusResponse answer(int nodeId, PartitionStatus... partitions) {
        ClusterStatusResponse.Builder answer = ClusterStatusResponse.newBuilder().setNodeId(nodeId)
                .setPartitionCount(partitions.length);
        for (int id = 1; id <= 3; id++) {
            answer.addNodes(NodeStatus.newBuilder().setNodeId(id).setHost("127.0.0.1").setRaftPort(7200 + id)
                    .setClientPort(7100 + id).setIsSelf(id == nodeId).setRole(MemberRole.MEMBER_ROLE_VOTER));
        }
        return answer.addAllPartitions(List.of(partitions)).build();
    }

    private static PartitionStatus partition(int index, int leader, long term, boolean ready, long commit, long applied) {
        return PartitionStatus.newBuilder().setPartitionIndex(index).setLeaderNodeId(leader).setTerm(term)
                .setLeaderReady(ready).setCommitIndex(commit).setAppliedIndex(applied).build();
    }
}
