package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.commit;
import static io.cohort.server.rpc.Requests.fetch;
import static io.cohort.server.rpc.Requests.heartbeat;
import static io.cohort.server.rpc.Requests.join;
import static io.cohort.server.rpc.Requests.sync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.NodeEndpoint;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.api.v1.TransferLeadershipResponse;
import io.cohort.raft.NodeAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes in this JVM, each serving gRPC on its loopback client port: routing between
 * them as a client sees it.
 */
class ThreeNodeRoutingTest {
    private static final int PARTITIONS = 3;

    @TempDir
    static Path tmp;
    static CoordinatorTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = CoordinatorTestCluster.start(tmp, 3, PARTITIONS);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static NodeEndpoint endpointOf(CoordinatorTestCluster.Node node) {
        NodeAddress address = cluster.spec.peer(node.raft.nodeId());
        return NodeEndpoint.newBuilder().setNodeId(address.nodeId()).setHost(address.host())
                .setPort(address.clientPort()).build();
    }

    @Test
    void testFollowerAnswersNotCoordinatorWithTheLeaderAsHint() {
        String group = cluster.groupIn(0, "routed");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(0);
        CoordinatorTestCluster.Node follower = cluster.followerOf(0);
        NodeEndpoint hint = endpointOf(leader);

        FindCoordinatorResponse.Coordinator found = follower.blocking().findCoordinator(
                FindCoordinatorRequest.newBuilder().addGroupIds(group).build()).getCoordinators(0);
        assertThat(found.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(NodeEndpoint.newBuilder().setNodeId(found.getNodeId()).setHost(found.getHost())
                .setPort(found.getPort()).build()).isEqualTo(hint);

        JoinGroupResponse join = follower.blocking().joinGroup(join(group, "", "client"));
        assertThat(join.getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(join.getLeaderHint()).isEqualTo(hint);
        assertThat(join.getErrorMessage()).contains("does not lead partition 0");
        assertThat(follower.blocking().heartbeat(heartbeat(group, "m", 1)).getLeaderHint()).isEqualTo(hint);
        assertThat(follower.blocking().syncGroup(sync(group, "m", 1)).getErrorCode())
                .isEqualTo(ErrorCode.NOT_COORDINATOR);
        OffsetCommitResponse commit = follower.blocking().offsetCommit(commit(group, "", -1, "t", 0, 1L));
        assertThat(commit.getTopics(0).getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(commit.getLeaderHint()).isEqualTo(hint);
        OffsetFetchResponse.Group fetched = follower.blocking()
                .offsetFetch(fetch(group, ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0)).getGroups(0);
        assertThat(fetched.getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(fetched.getLeaderHint()).isEqualTo(hint);
        assertThat(follower.blocking().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(group).build())
                .getGroups(0).getLeaderHint()).isEqualTo(hint);
        assertThat(follower.blocking().deleteGroups(DeleteGroupsRequest.newBuilder().addGroupIds(group).build())
                .getResults(0).getLeaderHint()).isEqualTo(hint);

        // The hint is where the group is served; a member that sends no client_host is reported
        // with its connection's address, as Kafka does.
        JoinGroupResponse required = leader.blocking().joinGroup(join(group, "", "client"));
        assertThat(required.getErrorCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(leader.blocking().joinGroup(join(group, required.getMemberId(), "client")).getErrorCode())
                .isEqualTo(ErrorCode.NONE);
        DescribeGroupsResponse.Group described = leader.blocking().describeGroups(DescribeGroupsRequest.newBuilder()
                .addGroupIds(group).build()).getGroups(0);
        assertThat(described.getMembersList()).singleElement()
                .extracting(DescribeGroupsResponse.Member::getClientHost).isEqualTo("/127.0.0.1");
    }

    @Test
    void testLocalReadsAreServedByFollowers() {
        String group = cluster.groupIn(1, "local");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(1);
        CoordinatorTestCluster.Node follower = cluster.followerOf(1);
        assertThat(leader.blocking().offsetCommit(commit(group, "", -1, "t", 3, 42L)).getTopics(0).getPartitions(0)
                .getErrorCode()).isEqualTo(ErrorCode.NONE);
        cluster.awaitReplicasConverged(1);

        OffsetFetchResponse.Group fetched = follower.blocking()
                .offsetFetch(fetch(group, ReadConsistency.READ_CONSISTENCY_LOCAL, "t", 3)).getGroups(0);
        assertThat(fetched.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(fetched.getTopics(0).getPartitions(0).getCommittedOffset()).isEqualTo(42L);
        DescribeGroupsResponse.Group described = follower.blocking().describeGroups(DescribeGroupsRequest.newBuilder()
                .addGroupIds(group).setConsistency(ReadConsistency.READ_CONSISTENCY_LOCAL).build()).getGroups(0);
        assertThat(described.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(described.getGroupState()).isEqualTo("Empty");
        // ListGroups is broker-local, as Kafka's: the leader lists the group, a follower does not.
        assertThat(leader.blocking().listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList())
                .extracting(ListGroupsResponse.Group::getGroupId).contains(group);
        assertThat(follower.blocking().listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList())
                .extracting(ListGroupsResponse.Group::getGroupId).doesNotContain(group);
    }

    @Test
    void testClusterStatusShowsReplicaProgressOnTheLeaderAndEqualDigests() {
        String group = cluster.groupIn(2, "status");
        CoordinatorTestCluster.Node leader = cluster.leaderOf(2);
        CoordinatorTestCluster.Node follower = cluster.followerOf(2);
        leader.blocking().offsetCommit(commit(group, "", -1, "t", 0, 7L));
        cluster.awaitReplicasConverged(2);

        ClusterStatusResponse fromLeader = leader.admin().clusterStatus(ClusterStatusRequest.newBuilder()
                .setIncludeStateDigest(true).build());
        ClusterStatusResponse fromFollower = follower.admin().clusterStatus(ClusterStatusRequest.newBuilder()
                .setIncludeStateDigest(true).build());

        assertThat(fromLeader.getNodeId()).isEqualTo(leader.raft.nodeId());
        assertThat(fromLeader.getPartitionCount()).isEqualTo(PARTITIONS);
        assertThat(fromLeader.getNodesList()).hasSize(3)
                .filteredOn(n -> n.getIsSelf()).singleElement()
                .satisfies(self -> assertThat(self.getNodeId()).isEqualTo(leader.raft.nodeId()));
        PartitionStatus onLeader = fromLeader.getPartitions(2);
        PartitionStatus onFollower = fromFollower.getPartitions(2);
        assertThat(onLeader.getLeaderReady()).isTrue();
        assertThat(onLeader.getLeaderNodeId()).isEqualTo(leader.raft.nodeId());
        assertThat(onLeader.getReplicasList()).hasSize(2)
                .allSatisfy(replica -> assertThat(replica.getNodeId()).isNotEqualTo(leader.raft.nodeId()));
        assertThat(onFollower.getLeaderReady()).isFalse();
        assertThat(onFollower.getLeaderNodeId()).isEqualTo(leader.raft.nodeId());
        assertThat(onFollower.getReplicasList()).isEmpty();
        assertThat(onLeader.getStateDigest()).isNotEmpty();
        assertThat(onFollower.getStateDigestIndex()).isEqualTo(onLeader.getStateDigestIndex());
        assertThat(onFollower.getStateDigest()).isEqualTo(onLeader.getStateDigest());
    }

    /**
     * TransferLeadership sent to a node that does not lead the partition is forwarded to the leader;
     * asking for the current leader is answered NONE ("it already leads") by the leader itself.
     */
    @Test
    void testTransferLeadershipIsForwardedToTheLeader() {
        int partition = 0;
        CoordinatorTestCluster.Node leader = cluster.leaderOf(partition);
        CoordinatorTestCluster.Node follower = cluster.followerOf(partition);

        TransferLeadershipResponse forwarded = follower.admin().transferLeadership(TransferLeadershipRequest
                .newBuilder().setPartitionIndex(partition).setTargetNodeId(leader.raft.nodeId()).setTimeoutMs(5_000)
                .build());

        assertThat(forwarded.getErrorCode()).as(forwarded.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(leader.raft.isLeaderReady(partition)).isTrue();
        TransferLeadershipResponse unknownNode = follower.admin().transferLeadership(TransferLeadershipRequest
                .newBuilder().setPartitionIndex(partition).setTargetNodeId(99).setTimeoutMs(5_000).build());
        assertThat(unknownNode.getErrorCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
    }
}
