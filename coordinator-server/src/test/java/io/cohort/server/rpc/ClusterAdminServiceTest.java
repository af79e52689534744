package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.raft.NodeAddress;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ClusterAdmin over in-process gRPC and a single-node real Raft cluster. */
class ClusterAdminServiceTest {
    private static final int PARTITIONS = 2;

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

    @Test
    void testClusterStatusDescribesTheNodeAndEveryPartition() {
        node.blocking().offsetCommit(Requests.commit("status-group", "", -1, "t", 0, 1L));

        ClusterStatusResponse status = node.admin().clusterStatus(ClusterStatusRequest.getDefaultInstance());

        NodeAddress self = cluster.spec.peer(1);
        assertThat(status.getNodeId()).isEqualTo(1);
        assertThat(status.getPartitionCount()).isEqualTo(PARTITIONS);
        assertThat(status.getNodesList()).containsExactly(NodeStatus.newBuilder().setNodeId(1).setHost(self.host())
                .setRaftPort(self.raftPort()).setClientPort(self.clientPort()).setIsSelf(true)
                .setRole(io.cohort.api.v1.MemberRole.MEMBER_ROLE_VOTER).build());
        assertThat(status.getPartitionsList()).extracting(PartitionStatus::getPartitionIndex).containsExactly(0, 1);
        int committedTo = node.raft.partitionFor("status-group");
        assertThat(status.getPartitions(committedTo).getAppliedIndex()).isPositive();
        assertThat(status.getPartitionsList()).allSatisfy(partition -> {
            assertThat(partition.getLeaderNodeId()).isEqualTo(1);
            assertThat(partition.getLeaderReady()).isTrue();
            assertThat(partition.getTerm()).isPositive();
            assertThat(partition.getRaftGroupId()).isEqualTo(
                    cluster.spec.raftGroupId(partition.getPartitionIndex()).getUuid().toString());
            // Ratis numbers entries from 0: the leader's first entry of its term.
            assertThat(partition.getAppliedIndex()).isNotNegative();
            assertThat(partition.getCommitIndex()).isGreaterThanOrEqualTo(partition.getAppliedIndex());
            assertThat(partition.getReplicasList()).isEmpty();
            assertThat(partition.getStateDigest()).isEmpty();
            assertThat(partition.getStateDigestIndex()).isEqualTo(-1);
        });
    }

    @Test
    void testClusterStatusWithStateDigests() {
        ClusterStatusResponse status = node.admin().clusterStatus(ClusterStatusRequest.newBuilder()
                .setIncludeStateDigest(true).build());

        assertThat(status.getPartitionsList()).allSatisfy(partition -> {
            assertThat(partition.getStateDigest()).isNotEmpty();
            assertThat(partition.getStateDigestIndex()).isEqualTo(partition.getAppliedIndex());
        });
    }

    @Test
    void testTransferLeadershipValidation() {
        assertThat(transfer(0, 1, 1_000).getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(transfer(PARTITIONS, 1, 1_000).getErrorCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(transfer(0, 7, 1_000)).satisfies(response -> {
            assertThat(response.getErrorCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(response.getErrorMessage()).contains("node 7");
        });
        for (int[] malformed : new int[][] {{-1, 1, 1_000}, {0, 1, 0}}) {
            assertThatThrownBy(() -> transfer(malformed[0], malformed[1], malformed[2]))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        }
    }

    private static io.cohort.api.v1.TransferLeadershipResponse transfer(int partition, int target, int timeoutMs) {
        return node.admin().transferLeadership(TransferLeadershipRequest.newBuilder().setPartitionIndex(partition)
                .setTargetNodeId(target).setTimeoutMs(timeoutMs).build());
    }
}
