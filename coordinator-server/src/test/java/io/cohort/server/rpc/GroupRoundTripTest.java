package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.assigned;
import static io.cohort.server.rpc.Requests.assignment;
import static io.cohort.server.rpc.Requests.commit;
import static io.cohort.server.rpc.Requests.fetch;
import static io.cohort.server.rpc.Requests.heartbeat;
import static io.cohort.server.rpc.Requests.join;
import static io.cohort.server.rpc.Requests.sync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.ByteString;
import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DeleteGroupsResponse;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.LeaveGroupResponse;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetDeleteRequest;
import io.cohort.api.v1.OffsetDeleteResponse;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.api.v1.SyncGroupResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The group API end to end over in-process gRPC and a single-node real Raft cluster. */
class GroupRoundTripTest {
    private static final int PARTITIONS = 3;

    @TempDir
    static Path tmp;
    static CoordinatorTestCluster cluster;
    static CoordinatorTestCluster.Node node;

    @BeforeAll
    static void startCluster() {
        cluster = CoordinatorTestCluster.start(tmp, 1, PARTITIONS);
        node = cluster.node(1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static GroupCoordinatorGrpc.GroupCoordinatorBlockingStub client() {
        return node.blocking();
    }

    @Test
    void testFindCoordinatorNamesThisNodeForEveryGroup() {
        FindCoordinatorResponse response = client().findCoordinator(FindCoordinatorRequest.newBuilder()
                .addGroupIds("a").addGroupIds("b").addGroupIds("").build());

        assertThat(response.getCoordinatorsList()).extracting(FindCoordinatorResponse.Coordinator::getKey)
                .containsExactly("a", "b", "");
        assertThat(response.getCoordinatorsList()).allSatisfy(coordinator -> {
            assertThat(coordinator.getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(coordinator.getNodeId()).isEqualTo(1);
            assertThat(coordinator.getHost()).isEqualTo("127.0.0.1");
            assertThat(coordinator.getPort()).isEqualTo(cluster.spec.peer(1).clientPort());
        });
    }

    /** Two members through join, sync, heartbeat, commit, fetch, describe, list, leave and delete. */
    @Test
    void testGroupRoundTripWithTwoMembers() throws Exception {
        String group = cluster.groupIn(0, "round-trip");
        GroupCoordinatorGrpc.GroupCoordinatorFutureStub async = node.future();

        // Member A: MEMBER_ID_REQUIRED, then a join parked until the initial rebalance delay ends.
        JoinGroupResponse required = client().joinGroup(join(group, "", "client-a"));
        assertThat(required.getErrorCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(required.getMemberId()).startsWith("client-a-");
        assertThat(required.getGenerationId()).isEqualTo(-1);
        assertThat(required.hasProtocolType()).isFalse();
        String memberA = required.getMemberId();
        JoinGroupResponse joinedA = async.joinGroup(join(group, memberA, "client-a")).get(30, TimeUnit.SECONDS);
        assertThat(joinedA.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(joinedA.getGenerationId()).isEqualTo(1);
        assertThat(joinedA.getLeader()).isEqualTo(memberA);
        assertThat(joinedA.getProtocolType()).isEqualTo("consumer");
        assertThat(joinedA.getProtocolName()).isEqualTo("range");
        assertThat(joinedA.getMembersList()).singleElement().satisfies(member -> {
            assertThat(member.getMemberId()).isEqualTo(memberA);
            assertThat(member.getMetadata()).isEqualTo(Requests.SUBSCRIPTION);
        });
        SyncGroupResponse syncedA = client().syncGroup(sync(group, memberA, 1).toBuilder()
                .addAssignments(assignment(memberA, assigned(0, 1))).build());
        assertThat(syncedA.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(syncedA.getAssignment()).isEqualTo(assigned(0, 1));
        assertThat(client().heartbeat(heartbeat(group, memberA, 1)).getErrorCode()).isEqualTo(ErrorCode.NONE);

        // Member B joins: a rebalance starts and B's JoinGroup is parked until A rejoins.
        String memberB = client().joinGroup(join(group, "", "client-b")).getMemberId();
        ListenableFuture<JoinGroupResponse> joinB = async.joinGroup(join(group, memberB, "client-b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> node.parked.size() == 1);
        assertThat(joinB.isDone()).isFalse();
        assertThat(client().heartbeat(heartbeat(group, memberA, 1)).getErrorCode())
                .isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        JoinGroupResponse rejoinedA = client().joinGroup(join(group, memberA, "client-a"));
        assertThat(rejoinedA.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(rejoinedA.getGenerationId()).isEqualTo(2);
        assertThat(rejoinedA.getLeader()).isEqualTo(memberA);
        assertThat(rejoinedA.getMembersList()).extracting(JoinGroupResponse.Member::getMemberId)
                .containsExactlyInAnyOrder(memberA, memberB);
        JoinGroupResponse joinedB = joinB.get(10, TimeUnit.SECONDS);
        assertThat(joinedB.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(joinedB.getGenerationId()).isEqualTo(2);
        assertThat(joinedB.getLeader()).isEqualTo(memberA);
        assertThat(joinedB.getMembersList()).isEmpty();

        // The follower's SyncGroup is parked until the leader's assignment is committed.
        ListenableFuture<SyncGroupResponse> syncB = async.syncGroup(sync(group, memberB, 2));
        await().atMost(Duration.ofSeconds(10)).until(() -> node.parked.size() == 1);
        assertThat(syncB.isDone()).isFalse();
        SyncGroupResponse leaderSync = client().syncGroup(sync(group, memberA, 2).toBuilder()
                .addAssignments(assignment(memberA, assigned(0))).addAssignments(assignment(memberB, assigned(1)))
                .build());
        assertThat(leaderSync.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(leaderSync.getAssignment()).isEqualTo(assigned(0));
        SyncGroupResponse syncedB = syncB.get(10, TimeUnit.SECONDS);
        assertThat(syncedB.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(syncedB.getAssignment()).isEqualTo(assigned(1));
        assertThat(syncedB.getProtocolName()).isEqualTo("range");
        assertThat(node.parked.size()).isZero();
        assertThat(client().heartbeat(heartbeat(group, memberA, 2)).getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(client().heartbeat(heartbeat(group, memberB, 2)).getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(client().heartbeat(heartbeat(group, memberB, 1)).getErrorCode())
                .isEqualTo(ErrorCode.ILLEGAL_GENERATION);

        commitAndFetch(group, memberA);
        describeAndList(group, memberA, memberB);
        leaveDeleteOffsetsAndDelete(group, memberA, memberB);
    }

    private static void commitAndFetch(String group, String memberA) {
        OffsetCommitResponse committed = client().offsetCommit(commit(group, memberA, 2, "t", 0, 42L).toBuilder()
                .setTopics(0, OffsetCommitRequest.Topic.newBuilder().setName("t")
                        .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(0)
                                .setCommittedOffset(42L).setCommittedLeaderEpoch(3).setCommittedMetadata("m"))
                        .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(1)
                                .setCommittedOffset(7L)))
                .build());
        assertThat(committed.getTopicsList()).singleElement().satisfies(topic -> {
            assertThat(topic.getName()).isEqualTo("t");
            assertThat(topic.getPartitionsList()).extracting(OffsetCommitResponse.Partition::getErrorCode)
                    .containsExactly(ErrorCode.NONE, ErrorCode.NONE);
        });
        assertThat(client().offsetCommit(commit(group, memberA, 1, "t", 0, 1L)).getTopics(0).getPartitions(0)
                .getErrorCode()).isEqualTo(ErrorCode.ILLEGAL_GENERATION);

        for (ReadConsistency consistency : List.of(ReadConsistency.READ_CONSISTENCY_LINEARIZABLE,
                ReadConsistency.READ_CONSISTENCY_LOCAL)) {
            OffsetFetchResponse.Group fetched = client().offsetFetch(fetch(group, consistency, "t", 0, 1, 2))
                    .getGroups(0);
            assertThat(fetched.getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(fetched.getTopics(0).getPartitionsList()).containsExactly(
                    partition(0, 42L, 3, "m"), partition(1, 7L, -1, ""), partition(2, -1L, -1, ""));
            OffsetFetchResponse.Group all = client().offsetFetch(fetch(group, consistency, null)).getGroups(0);
            assertThat(all.getTopicsList()).singleElement().satisfies(topic ->
                    assertThat(topic.getPartitionsList()).extracting(OffsetFetchResponse.Partition::getPartitionIndex)
                            .containsExactly(0, 1));
        }
    }

    private static OffsetFetchResponse.Partition partition(int index, long offset, int epoch, String metadata) {
        return OffsetFetchResponse.Partition.newBuilder().setPartitionIndex(index).setCommittedOffset(offset)
                .setCommittedLeaderEpoch(epoch).setMetadata(metadata).setErrorCode(ErrorCode.NONE).build();
    }

    private static void describeAndList(String group, String memberA, String memberB) {
        String missing = cluster.groupIn(1, "never-created");
        String simple = cluster.groupIn(2, "simple");
        assertThat(client().offsetCommit(commit(simple, "", -1, "t", 0, 1L)).getTopics(0).getPartitions(0)
                .getErrorCode()).isEqualTo(ErrorCode.NONE);

        DescribeGroupsResponse described = client().describeGroups(DescribeGroupsRequest.newBuilder()
                .addGroupIds(group).addGroupIds(missing).build());
        DescribeGroupsResponse.Group stable = described.getGroups(0);
        assertThat(stable.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(stable.getGroupState()).isEqualTo("Stable");
        assertThat(stable.getProtocolType()).isEqualTo("consumer");
        assertThat(stable.getProtocolData()).isEqualTo("range");
        assertThat(stable.getMembersList()).extracting(DescribeGroupsResponse.Member::getMemberId,
                        DescribeGroupsResponse.Member::getClientId, DescribeGroupsResponse.Member::getMemberAssignment)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(memberA, "client-a", assigned(0)),
                        org.assertj.core.groups.Tuple.tuple(memberB, "client-b", assigned(1)));
        assertThat(stable.getMembersList()).allSatisfy(m -> assertThat(m.getMemberMetadata())
                .isEqualTo(Requests.SUBSCRIPTION));
        assertThat(described.getGroups(1)).satisfies(unknown -> {
            assertThat(unknown.getGroupId()).isEqualTo(missing);
            assertThat(unknown.getErrorCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
            assertThat(unknown.getGroupState()).isEqualTo("Dead");
            assertThat(unknown.getMembersList()).isEmpty();
        });
        DescribeGroupsResponse local = client().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(group)
                .setConsistency(ReadConsistency.READ_CONSISTENCY_LOCAL).build());
        assertThat(local.getGroups(0)).isEqualTo(stable);

        // One call lists the groups of every partition (three partitions here), filters applied.
        assertThat(listed(ListGroupsRequest.getDefaultInstance())).contains(group, simple);
        assertThat(listed(ListGroupsRequest.newBuilder().addStatesFilter("stable").build()))
                .contains(group).doesNotContain(simple);
        assertThat(listed(ListGroupsRequest.newBuilder().addStatesFilter("Empty").build()))
                .contains(simple).doesNotContain(group);
        assertThat(listed(ListGroupsRequest.newBuilder().addTypesFilter("CLASSIC").build())).contains(group, simple);
        assertThat(listed(ListGroupsRequest.newBuilder().addTypesFilter("consumer").build())).isEmpty();
        ListGroupsResponse.Group listedGroup = client().listGroups(ListGroupsRequest.getDefaultInstance())
                .getGroupsList().stream().filter(g -> g.getGroupId().equals(group)).findFirst().orElseThrow();
        assertThat(listedGroup).isEqualTo(ListGroupsResponse.Group.newBuilder().setGroupId(group)
                .setProtocolType("consumer").setGroupState("Stable").setGroupType("classic").build());
    }

    private static List<String> listed(ListGroupsRequest request) {
        ListGroupsResponse response = client().listGroups(request);
        assertThat(response.getErrorCode()).isEqualTo(ErrorCode.NONE);
        return response.getGroupsList().stream().map(ListGroupsResponse.Group::getGroupId).toList();
    }

    private static void leaveDeleteOffsetsAndDelete(String group, String memberA, String memberB) {
        OffsetDeleteResponse subscribed = client().offsetDelete(offsetDelete(group, "t", 1));
        assertThat(subscribed.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(subscribed.getTopics(0).getPartitions(0).getErrorCode())
                .isEqualTo(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
        assertThat(deleteGroup(group).getErrorCode()).isEqualTo(ErrorCode.NON_EMPTY_GROUP);

        LeaveGroupResponse left = client().leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(group)
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(memberA).setReason("done"))
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(memberB))
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId("stranger"))
                .build());
        assertThat(left.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(left.getMembersList()).extracting(LeaveGroupResponse.Member::getErrorCode)
                .containsExactly(ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(client().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(group).build())
                .getGroups(0).getGroupState()).isEqualTo("Empty");

        OffsetDeleteResponse deleted = client().offsetDelete(offsetDelete(group, "t", 1));
        assertThat(deleted.getTopics(0).getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(client().offsetFetch(fetch(group, ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0, 1))
                .getGroups(0).getTopics(0).getPartitionsList())
                .extracting(OffsetFetchResponse.Partition::getCommittedOffset).containsExactly(42L, -1L);

        String missing = cluster.groupIn(1, "never-created");
        DeleteGroupsResponse results = client().deleteGroups(DeleteGroupsRequest.newBuilder()
                .addGroupIds(group).addGroupIds(missing).addGroupIds(group).build());
        assertThat(results.getResultsList()).extracting(DeleteGroupsResponse.Result::getGroupId,
                        DeleteGroupsResponse.Result::getErrorCode)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(group, ErrorCode.NONE),
                        org.assertj.core.groups.Tuple.tuple(missing, ErrorCode.GROUP_ID_NOT_FOUND));
        assertThat(client().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(group).build())
                .getGroups(0).getErrorCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        assertThat(client().offsetFetch(fetch(group, ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, null))
                .getGroups(0).getTopicsList()).isEmpty();
        assertThat(client().offsetDelete(offsetDelete(group, "t", 0)).getErrorCode())
                .isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
    }

    private static OffsetDeleteRequest offsetDelete(String group, String topic, int partition) {
        return OffsetDeleteRequest.newBuilder().setGroupId(group).addTopics(OffsetDeleteRequest.Topic.newBuilder()
                .setName(topic).addPartitionIndexes(partition)).build();
    }

    private static DeleteGroupsResponse.Result deleteGroup(String group) {
        return client().deleteGroups(DeleteGroupsRequest.newBuilder().addGroupIds(group).build()).getResults(0);
    }

    @Test
    void testCancelledParkedJoinIsDroppedAndTheGroupCarriesOn() throws Exception {
        String group = cluster.groupIn(1, "cancel");
        GroupCoordinatorGrpc.GroupCoordinatorFutureStub async = node.future();
        String memberA = client().joinGroup(join(group, "", "client-a")).getMemberId();
        assertThat(async.joinGroup(join(group, memberA, "client-a")).get(30, TimeUnit.SECONDS).getGenerationId())
                .isEqualTo(1);
        assertThat(client().syncGroup(sync(group, memberA, 1)).getErrorCode()).isEqualTo(ErrorCode.NONE);

        String memberB = client().joinGroup(join(group, "", "client-b")).getMemberId();
        ListenableFuture<JoinGroupResponse> joinB = async.joinGroup(join(group, memberB, "client-b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> node.parked.size(1) == 1);

        joinB.cancel(true);

        await().atMost(Duration.ofSeconds(10)).until(() -> node.parked.size(1) == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.recorded.contains("JoinGroup:CANCELLED"));
        // B stays in the join phase (its call went away, not its membership): B's resent join and A's
        // rejoin complete the generation.
        ListenableFuture<JoinGroupResponse> resentB = async.joinGroup(join(group, memberB, "client-b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> node.parked.size(1) == 1);
        JoinGroupResponse rejoinedA = client().joinGroup(join(group, memberA, "client-a"));
        assertThat(rejoinedA.getGenerationId()).isEqualTo(2);
        assertThat(resentB.get(10, TimeUnit.SECONDS).getGenerationId()).isEqualTo(2);
    }

    @Test
    void testSyncGroupInAStableGroupAnswersAtOnceWithTheStoredAssignment() {
        String group = cluster.groupIn(2, "stable-sync");
        String member = client().joinGroup(join(group, "", "client-a")).getMemberId();
        JoinGroupResponse joined = client().joinGroup(join(group, member, "client-a"));
        ByteString assignment = assigned(0, 1, 2);
        assertThat(client().syncGroup(sync(group, member, joined.getGenerationId()).toBuilder()
                .addAssignments(assignment(member, assignment)).build()).getAssignment()).isEqualTo(assignment);

        SyncGroupResponse again = client().syncGroup(sync(group, member, joined.getGenerationId()));

        assertThat(again.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(again.getAssignment()).isEqualTo(assignment);
        assertThat(node.parked.size()).isZero();
    }
}
