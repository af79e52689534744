package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.commit;
import static io.cohort.server.rpc.Requests.fetch;
import static io.cohort.server.rpc.Requests.heartbeat;
import static io.cohort.server.rpc.Requests.join;
import static io.cohort.server.rpc.Requests.sync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetDeleteRequest;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.server.metrics.RpcMetrics;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request validation in the order of reference 1.0: Kafka errors in the response for what Kafka
 * rejects (INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT), gRPC INVALID_ARGUMENT for what cannot be
 * meaningful; and the node keeps serving afterwards.
 */
class ValidationTest {
    @TempDir
    static Path tmp;
    static CoordinatorTestCluster cluster;
    static CoordinatorTestCluster.Node node;

    @BeforeAll
    static void startCluster() {
        cluster = CoordinatorTestCluster.start(tmp, 1, 2);
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
    void testEmptyGroupIdIsInvalidWhereKafkaRejectsIt() {
        JoinGroupResponse join = client().joinGroup(join("", "m", "c"));
        assertThat(join.getErrorCode()).isEqualTo(ErrorCode.INVALID_GROUP_ID);
        assertThat(join.getMemberId()).isEqualTo("m");
        assertThat(join.getGenerationId()).isEqualTo(-1);
        assertThat(join.getErrorMessage()).isNotEmpty();
        assertThat(client().syncGroup(sync("", "m", 1)).getErrorCode()).isEqualTo(ErrorCode.INVALID_GROUP_ID);
        assertThat(client().heartbeat(heartbeat("", "m", 1)).getErrorCode()).isEqualTo(ErrorCode.INVALID_GROUP_ID);
        assertThat(client().leaveGroup(LeaveGroupRequest.newBuilder().setGroupId("")
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId("m")).build()).getErrorCode())
                .isEqualTo(ErrorCode.INVALID_GROUP_ID);
        assertThat(client().offsetDelete(OffsetDeleteRequest.newBuilder().setGroupId("").build()).getErrorCode())
                .isEqualTo(ErrorCode.INVALID_GROUP_ID);
    }

    /** "" is a legal group id for OffsetCommit, OffsetFetch, DescribeGroups and DeleteGroups, as in Kafka. */
    @Test
    void testEmptyGroupIdIsLegalWhereKafkaAcceptsIt() {
        assertThat(client().offsetCommit(commit("", "", -1, "t", 0, 5L)).getTopics(0).getPartitions(0).getErrorCode())
                .isEqualTo(ErrorCode.NONE);
        assertThat(client().offsetFetch(fetch("", ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0))
                .getGroups(0).getTopics(0).getPartitions(0).getCommittedOffset()).isEqualTo(5L);
        assertThat(client().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds("").build()).getGroups(0))
                .satisfies(group -> {
                    assertThat(group.getErrorCode()).isEqualTo(ErrorCode.NONE);
                    assertThat(group.getGroupState()).isEqualTo("Empty");
                });
        assertThat(client().deleteGroups(DeleteGroupsRequest.newBuilder().addGroupIds("").build()).getResults(0)
                .getErrorCode()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testSessionTimeoutOutsideTheNodesBoundsIsInvalid() {
        int min = cluster.spec.groupConfig().minSessionTimeoutMs();
        int max = cluster.spec.groupConfig().maxSessionTimeoutMs();
        for (int sessionTimeoutMs : new int[] {min - 1, max + 1, -1}) {
            JoinGroupResponse response = client().joinGroup(join("g-session", "", "c").toBuilder()
                    .setSessionTimeoutMs(sessionTimeoutMs).build());
            assertThat(response.getErrorCode()).as("session timeout %s", sessionTimeoutMs)
                    .isEqualTo(ErrorCode.INVALID_SESSION_TIMEOUT);
        }
        // INVALID_GROUP_ID is checked first.
        assertThat(client().joinGroup(join("", "", "c").toBuilder().setSessionTimeoutMs(1).build()).getErrorCode())
                .isEqualTo(ErrorCode.INVALID_GROUP_ID);
        // Nothing was proposed: the group does not exist.
        assertThat(client().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds("g-session").build())
                .getGroups(0).getErrorCode()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
    }

    @Test
    void testMalformedRequestsFailWithInvalidArgumentAndTheNodeKeepsServing() {
        String tooLong = "g".repeat(RequestLimits.MAX_GROUP_ID_LENGTH + 1);
        assertInvalidArgument(() -> client().findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds(tooLong)
                .build()), "group_ids");
        assertInvalidArgument(() -> client().joinGroup(join(tooLong, "", "c")), "group_id");
        assertInvalidArgument(() -> client().joinGroup(join("g", "", "c").toBuilder().setRebalanceTimeoutMs(-5)
                .build()), "rebalance_timeout_ms");
        assertInvalidArgument(() -> client().joinGroup(join("g", "", "c").toBuilder()
                .addProtocols(join("g", "", "c").getProtocols(0)).build()), "twice");
        assertInvalidArgument(() -> client().joinGroup(join("g", "", "c").toBuilder().setGroupInstanceId("")
                .build()), "group_instance_id");
        assertInvalidArgument(() -> client().joinGroup(join("g", "", "c").toBuilder()
                .addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("big")
                        .setMetadata(bytes(RequestLimits.MAX_PROTOCOL_METADATA_BYTES))).build()), "metadata");
        assertInvalidArgument(() -> client().syncGroup(sync("g", "m", 1).toBuilder()
                .addAssignments(Requests.assignment("m", bytes(RequestLimits.MAX_ASSIGNMENT_BYTES + 1))).build()),
                "assignment");
        assertInvalidArgument(() -> client().offsetCommit(commit("g", "", -1, "t", -1, 0L)), "partition index");
        assertInvalidArgument(() -> client().offsetCommit(commit("g", "", -1, "", 0, 0L)), "topic");
        assertInvalidArgument(() -> client().offsetCommit(commit("g", "", -1, "t", 0, 0L).toBuilder()
                .setRetentionTimeMs(-2).build()), "retention_time_ms");
        assertInvalidArgument(() -> client().offsetCommit(commit("g", "", -1, "t", 0, 0L).toBuilder()
                .setTopics(0, OffsetCommitRequest.Topic.newBuilder().setName("t")
                        .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(0)
                                .setCommittedMetadata("x".repeat(RequestLimits.MAX_REQUEST_BYTES)))).build()),
                "bytes");
        assertInvalidArgument(() -> client().offsetFetch(fetch("g", ReadConsistency.READ_CONSISTENCY_LOCAL, "t", -3)),
                "partition index");
        assertInvalidArgument(() -> client().offsetFetch(OffsetFetchRequest.newBuilder()
                .addGroups(OffsetFetchRequest.Group.newBuilder().setGroupId("g")).setConsistencyValue(7).build()),
                "consistency");
        assertInvalidArgument(() -> client().offsetDelete(OffsetDeleteRequest.newBuilder().setGroupId("g")
                .addTopics(OffsetDeleteRequest.Topic.newBuilder().setName("t").addPartitionIndexes(-1)).build()),
                "partition index");

        assertThat(cluster.recorded).contains("OffsetCommit:INVALID_ARGUMENT", "JoinGroup:INVALID_ARGUMENT");
        assertThat(client().findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds("g").build())
                .getCoordinators(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(client().offsetCommit(commit("g-after", "", -1, "t", 0, 9L)).getTopics(0).getPartitions(0)
                .getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(client().offsetFetch(fetch("g-after", ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0))
                .getGroups(0).getTopics(0).getPartitions(0).getCommittedOffset()).isEqualTo(9L);
    }

    /** Requests at the size limits fit one Raft log entry: they are committed and answered. */
    @Test
    void testRequestsAtTheSizeLimitsAreCommitted() throws Exception {
        String clientId = "c".repeat(RequestLimits.MAX_CLIENT_ID_LENGTH);
        ByteString metadata = bytes(RequestLimits.MAX_PROTOCOL_METADATA_BYTES);
        JoinGroupRequest request = join("g-large", "", clientId).toBuilder().setProtocols(0,
                JoinGroupRequest.Protocol.newBuilder().setName("range").setMetadata(metadata)).build();
        JoinGroupResponse required = client().joinGroup(request);
        assertThat(required.getErrorCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(required.getMemberId()).hasSize(RequestLimits.MAX_MEMBER_ID_LENGTH);

        JoinGroupResponse joined = node.future().joinGroup(request.toBuilder().setMemberId(required.getMemberId())
                .build()).get(30, TimeUnit.SECONDS);
        assertThat(joined.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(joined.getMembers(0).getMetadata()).isEqualTo(metadata);

        ByteString assignment = bytes(RequestLimits.MAX_ASSIGNMENT_BYTES);
        SyncGroupResponse synced = client().syncGroup(sync("g-large", required.getMemberId(), joined.getGenerationId())
                .toBuilder().addAssignments(Requests.assignment(required.getMemberId(), assignment)).build());
        assertThat(synced.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(synced.getAssignment()).isEqualTo(assignment);
    }

    /** A stopping node answers COORDINATOR_NOT_AVAILABLE, so clients go and find another. */
    @Test
    void testStoppingServiceAnswersCoordinatorNotAvailable() throws Exception {
        GroupCoordinatorService stopping = new GroupCoordinatorService(node.raft, new ParkedCalls(), RpcMetrics.NONE);
        String name = "stopping-" + System.nanoTime();
        Server server = InProcessServerBuilder.forName(name).addService(stopping.definition()).build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        try {
            stopping.close();
            GroupCoordinatorGrpc.GroupCoordinatorBlockingStub client = GroupCoordinatorGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS);
            assertThat(client.findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds("g").build())
                    .getCoordinators(0)).satisfies(c -> {
                        assertThat(c.getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
                        assertThat(c.getNodeId()).isEqualTo(-1);
                    });
            assertThat(client.joinGroup(join("g", "", "c")).getErrorCode())
                    .isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
            assertThat(client.offsetCommit(commit("g", "", -1, "t", 0, 1L)).getTopics(0).getPartitions(0)
                    .getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
            assertThat(client.offsetFetch(fetch("g", ReadConsistency.READ_CONSISTENCY_LOCAL, "t", 0)).getGroups(0)
                    .getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
            assertThat(client.listGroups(io.cohort.api.v1.ListGroupsRequest.getDefaultInstance()).getErrorCode())
                    .isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        } finally {
            channel.shutdownNow();
            server.shutdownNow();
        }
    }

    private static ByteString bytes(int size) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = (byte) (i * 31);
        }
        return ByteString.copyFrom(data);
    }

    private static void assertInvalidArgument(ThrowingCallable call, String messagePart) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains(messagePart);
        });
    }
}
