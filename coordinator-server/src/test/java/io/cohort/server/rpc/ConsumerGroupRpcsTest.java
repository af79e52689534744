package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.ConsumerGroupDescribeRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ConsumerTopicPartitions;
import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server side of KIP-848's ConsumerGroupHeartbeat and ConsumerGroupDescribe over real gRPC and
 * three real Raft nodes in this JVM: what the RPC layer itself decides (malformed requests, the
 * regex check, routing, the topic lookup it puts into the command, and the heartbeat answered
 * without a log write when nothing changes). The group rules are the core's (ConsumerGroup*Test).
 */
class ConsumerGroupRpcsTest {
    private static final int PARTITIONS = 3;

    @TempDir
    static Path tmp;
    static CoordinatorTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = CoordinatorTestCluster.start(tmp, 3, PARTITIONS);
        cluster.awaitAllLeadersReady();
        var created = cluster.leaderOf(0).admin().createTopics(CreateTopicsRequest.newBuilder()
                .addTopics(CreateTopicsRequest.NewTopic.newBuilder().setName("orders").setPartitionCount(4))
                .addTopics(CreateTopicsRequest.NewTopic.newBuilder().setName("orders-eu").setPartitionCount(2))
                .addTopics(CreateTopicsRequest.NewTopic.newBuilder().setName("payments").setPartitionCount(2))
                .build());
        assertThat(created.getResultsList()).allSatisfy(r -> assertThat(r.getErrorCode()).isEqualTo(ErrorCode.NONE));
        for (int id = 1; id <= 3; id++) {
            int node = id;
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.node(node).raft.topicRegistry().size() == 3);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static GroupCoordinatorGrpc.GroupCoordinatorBlockingStub stub(CoordinatorTestCluster.Node node) {
        return node.blocking().withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    private static ConsumerGroupHeartbeatRequest.Builder join(String group, String member, String... topics) {
        return ConsumerGroupHeartbeatRequest.newBuilder().setGroupId(group).setMemberId(member).setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000).setClientId("test").setClientHost("127.0.0.1")
                .setSubscribedTopicNames(ConsumerGroupHeartbeatRequest.TopicNames.newBuilder()
                        .addAllNames(List.of(topics)))
                .setTopicPartitions(ConsumerGroupHeartbeatRequest.OwnedPartitions.getDefaultInstance());
    }

    private static int ownedCount(ConsumerGroupHeartbeatResponse response) {
        return response.getAssignment().getTopicPartitionsList().stream()
                .mapToInt(ConsumerTopicPartitions::getPartitionsCount).sum();
    }

    @Test
    void testAJoinGetsItsAssignmentFromTheRegistryAndASteadyHeartbeatWritesNothing() {
        int partition = 1;
        String group = cluster.groupIn(partition, "steady");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);

        ConsumerGroupHeartbeatResponse joined = stub(leader).consumerGroupHeartbeat(
                join(group, "member-a", "orders", "payments").build());
        assertThat(joined.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(joined.getMemberEpoch()).isPositive();
        assertThat(ownedCount(joined)).as("every partition of orders (4) and payments (2)").isEqualTo(6);
        assertThat(joined.getHeartbeatIntervalMs()).isPositive();

        // Report owning the assignment: the member is then stable and its heartbeats change nothing.
        ConsumerGroupHeartbeatRequest.OwnedPartitions owned = ConsumerGroupHeartbeatRequest.OwnedPartitions
                .newBuilder().addAllTopics(joined.getAssignment().getTopicPartitionsList()).build();
        ConsumerGroupHeartbeatRequest steady = ConsumerGroupHeartbeatRequest.newBuilder().setGroupId(group)
                .setMemberId("member-a").setMemberEpoch(joined.getMemberEpoch()).setRebalanceTimeoutMs(-1)
                .setTopicPartitions(owned).setClientId("test").setClientHost("127.0.0.1").build();
        assertThat(stub(leader).consumerGroupHeartbeat(steady).getErrorCode()).isEqualTo(ErrorCode.NONE);
        long appliedBefore = leader.raft.stateMachine(partition).lastAppliedIndex();
        for (int i = 0; i < 20; i++) {
            ConsumerGroupHeartbeatResponse response = stub(leader).consumerGroupHeartbeat(steady);
            assertThat(response.getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(response.getMemberEpoch()).isEqualTo(joined.getMemberEpoch());
            assertThat(response.hasAssignment()).as("unchanged: no assignment").isFalse();
        }
        assertThat(leader.raft.stateMachine(partition).lastAppliedIndex()).as("log entries for 20 steady heartbeats")
                .isEqualTo(appliedBefore);
    }

    @Test
    void testOffsetFetchWithAMemberIdentityIsCheckedAgainstTheConsumerGroup() {
        int partition = 1;
        String group = cluster.groupIn(partition, "fetch-epoch");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);
        int epoch = stub(leader).consumerGroupHeartbeat(join(group, "member-f", "orders").build()).getMemberEpoch();
        io.cohort.api.v1.OffsetCommitResponse committed = stub(leader).offsetCommit(
                io.cohort.api.v1.OffsetCommitRequest.newBuilder().setGroupId(group).setMemberId("member-f")
                        .setGenerationIdOrMemberEpoch(epoch)
                        .addTopics(io.cohort.api.v1.OffsetCommitRequest.Topic.newBuilder().setName("orders")
                                .addPartitions(io.cohort.api.v1.OffsetCommitRequest.Partition.newBuilder()
                                        .setPartitionIndex(0).setCommittedOffset(7)))
                        .build());
        assertThat(committed.getTopics(0).getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.NONE);

        assertThat(fetch(leader, group, "member-f", epoch).getTopics(0).getPartitions(0).getCommittedOffset())
                .isEqualTo(7);
        assertThat(fetch(leader, group, "member-f", epoch + 1).getErrorCode()).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH);
        assertThat(fetch(leader, group, "someone-else", epoch).getErrorCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(fetch(leader, group, null, -1).getTopics(0).getPartitions(0).getCommittedOffset())
                .as("no identity: no check (admin tools)").isEqualTo(7);
        assertThatThrownBy(() -> stub(leader).offsetFetch(io.cohort.api.v1.OffsetFetchRequest.newBuilder()
                .addGroups(io.cohort.api.v1.OffsetFetchRequest.Group.newBuilder().setGroupId(group)
                        .setMemberId("m".repeat(10_000)))
                .build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }

    private static io.cohort.api.v1.OffsetFetchResponse.Group fetch(CoordinatorTestCluster.Node node, String group,
                                                                    String memberId, int memberEpoch) {
        io.cohort.api.v1.OffsetFetchRequest.Group.Builder request = io.cohort.api.v1.OffsetFetchRequest.Group
                .newBuilder().setGroupId(group).addTopics(io.cohort.api.v1.OffsetFetchRequest.Topic.newBuilder()
                        .setName("orders").addPartitionIndexes(0));
        if (memberId != null) {
            request.setMemberId(memberId).setMemberEpoch(memberEpoch);
        }
        return stub(node).offsetFetch(io.cohort.api.v1.OffsetFetchRequest.newBuilder().addGroups(request).build())
                .getGroups(0);
    }

    @Test
    void testARegexSubscriptionIsResolvedAgainstTheRegistryOnTheCoordinator() {
        int partition = 2;
        String group = cluster.groupIn(partition, "regex");
        ConsumerGroupHeartbeatRequest request = join(group, "member-r").clearSubscribedTopicNames()
                .setSubscribedTopicRegex("orders.*").build();

        ConsumerGroupHeartbeatResponse joined = stub(cluster.leaderOf(partition)).consumerGroupHeartbeat(request);

        assertThat(joined.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ownedCount(joined)).as("orders (4) and orders-eu (2), not payments").isEqualTo(6);
        DescribedConsumerGroup described = stub(cluster.leaderOf(partition)).consumerGroupDescribe(
                ConsumerGroupDescribeRequest.newBuilder().addGroupIds(group).build()).getGroups(0);
        assertThat(described.getMembers(0).getSubscribedTopicRegex()).isEqualTo("orders.*");
        assertThat(described.getMembers(0).getTargetAssignmentList())
                .extracting(DescribedConsumerGroup.DescribedTopicPartitions::getTopicName)
                .containsExactlyInAnyOrder("orders", "orders-eu");
    }

    @Test
    void testARegexMemberGetsATopicCreatedAfterItsMatchesWereKeptAtItsNextHeartbeat() {
        int partition = 2;
        String group = cluster.groupIn(partition, "regex-follows");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);
        ConsumerGroupHeartbeatResponse joined = stub(leader).consumerGroupHeartbeat(join(group, "member-i")
                .clearSubscribedTopicNames().setSubscribedTopicRegex("invoices-.*").build());
        assertThat(joined.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(ownedCount(joined)).as("no invoices topic yet").isZero();
        ConsumerGroupHeartbeatRequest steady = ConsumerGroupHeartbeatRequest.newBuilder().setGroupId(group)
                .setMemberId("member-i").setMemberEpoch(joined.getMemberEpoch()).setRebalanceTimeoutMs(-1)
                .setTopicPartitions(ConsumerGroupHeartbeatRequest.OwnedPartitions.getDefaultInstance())
                .setClientId("test").setClientHost("127.0.0.1").build();
        // Steady heartbeats: the regex's (empty) matches are now kept for this registry version.
        for (int i = 0; i < 3; i++) {
            ConsumerGroupHeartbeatResponse response = stub(leader).consumerGroupHeartbeat(steady);
            assertThat(response.getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(response.getMemberEpoch()).isEqualTo(joined.getMemberEpoch());
        }

        var created = cluster.leaderOf(0).admin().createTopics(CreateTopicsRequest.newBuilder()
                .addTopics(CreateTopicsRequest.NewTopic.newBuilder().setName("invoices-eu").setPartitionCount(2))
                .build());
        assertThat(created.getResults(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
        await().atMost(Duration.ofSeconds(30)).until(() -> leader.raft.topicRegistry().contains("invoices-eu"));

        // The next heartbeat matches the new registry version: a new epoch with the new topic's partitions.
        ConsumerGroupHeartbeatResponse next = stub(leader).consumerGroupHeartbeat(steady);
        assertThat(next.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(next.getMemberEpoch()).isGreaterThan(joined.getMemberEpoch());
        assertThat(ownedCount(next)).as("both partitions of invoices-eu").isEqualTo(2);
    }

    @Test
    void testAnInvalidRegexIsRefusedBeforeAnythingIsWritten() {
        int partition = 0;
        String group = cluster.groupIn(partition, "bad-regex");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);
        long appliedBefore = leader.raft.stateMachine(partition).lastAppliedIndex();

        ConsumerGroupHeartbeatResponse response = stub(leader).consumerGroupHeartbeat(join(group, "m")
                .clearSubscribedTopicNames().setSubscribedTopicRegex("orders(").build());

        assertThat(response.getErrorCode()).isEqualTo(ErrorCode.INVALID_REGULAR_EXPRESSION);
        assertThat(response.getErrorMessage()).contains("orders(");
        assertThat(leader.raft.stateMachine(partition).lastAppliedIndex()).isEqualTo(appliedBefore);
    }

    @Test
    void testMalformedRequestsAreInvalidArgumentAndKafkasValidationIsInvalidRequest() {
        int partition = 0;
        String group = cluster.groupIn(partition, "malformed");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);

        ConsumerGroupHeartbeatRequest shortTopicId = join(group, "m").setTopicPartitions(
                ConsumerGroupHeartbeatRequest.OwnedPartitions.newBuilder().addTopics(ConsumerTopicPartitions
                        .newBuilder().setTopicId(ByteString.copyFrom(new byte[3])).addPartitions(0))).build();
        assertThatThrownBy(() -> stub(leader).consumerGroupHeartbeat(shortTopicId))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("16 bytes");
                });
        ConsumerGroupHeartbeatRequest negativeTimeout = join(group, "m").setRebalanceTimeoutMs(-5).build();
        assertThatThrownBy(() -> stub(leader).consumerGroupHeartbeat(negativeTimeout))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));

        // Kafka's own validation: a protocol error, and the node keeps serving.
        ConsumerGroupHeartbeatResponse noMemberId = stub(leader).consumerGroupHeartbeat(join(group, "").build());
        assertThat(noMemberId.getErrorCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
        ConsumerGroupHeartbeatResponse unknownAssignor = stub(leader).consumerGroupHeartbeat(
                join(group, "m", "orders").setServerAssignor("sticky-ish").build());
        assertThat(unknownAssignor.getErrorCode()).isEqualTo(ErrorCode.UNSUPPORTED_ASSIGNOR);
        assertThat(stub(leader).consumerGroupHeartbeat(join(group, "m", "orders").build()).getErrorCode())
                .isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testAFollowerAnswersNotCoordinatorWithTheLeaderAndDescribeOfAClassicOrUnknownGroupIsNotFound() {
        int partition = 1;
        String group = cluster.groupIn(partition, "routing");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);
        CoordinatorTestCluster.Node follower = cluster.followerOf(partition);

        ConsumerGroupHeartbeatResponse refused = stub(follower).consumerGroupHeartbeat(join(group, "m", "orders").build());

        assertThat(refused.getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(refused.getLeaderHint().getNodeId()).isEqualTo(leader.raft.nodeId());
        DescribedConsumerGroup unknown = stub(leader).consumerGroupDescribe(ConsumerGroupDescribeRequest.newBuilder()
                .addGroupIds(group).build()).getGroups(0);
        assertThat(unknown.getErrorCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        DescribedConsumerGroup elsewhere = stub(follower).consumerGroupDescribe(ConsumerGroupDescribeRequest
                .newBuilder().addGroupIds(group).build()).getGroups(0);
        assertThat(elsewhere.getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
    }
}
