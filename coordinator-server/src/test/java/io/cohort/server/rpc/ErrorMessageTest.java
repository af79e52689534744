package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.commit;
import static io.cohort.server.rpc.Requests.fetch;
import static io.cohort.server.rpc.Requests.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.ReadConsistency;
import java.nio.file.Path;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Error answers say what is wrong with the request as sent: the field (not the list it sits in),
 * the allowed range, the empty protocol list; and negative offsets are refused rather than stored
 * where no client can see them.
 */
class ErrorMessageTest {
    @TempDir
    static Path tmp;
    static CoordinatorTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = CoordinatorTestCluster.start(tmp, 1, 2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static GroupCoordinatorGrpc.GroupCoordinatorBlockingStub client() {
        return cluster.node(1).blocking();
    }

    @Test
    void testNegativeCommittedOffsetsAreRefusedAndNothingIsStored() {
        for (long offset : new long[] {-1L, -1000L, Long.MIN_VALUE}) {
            assertInvalidArgument(() -> client().offsetCommit(commit("g-negative", "", -1, "orders", 0, offset)),
                    "committed_offset of orders-0 must be >= 0", Long.toString(offset));
        }
        // Nothing of them was applied: the group has no committed partition at all.
        assertThat(client().offsetFetch(OffsetFetchRequest.newBuilder().setConsistency(
                ReadConsistency.READ_CONSISTENCY_LINEARIZABLE).addGroups(OffsetFetchRequest.Group.newBuilder()
                .setGroupId("g-negative")).build()).getGroups(0).getTopicsList()).isEmpty();
        // Zero is an offset like any other.
        assertThat(client().offsetCommit(commit("g-negative", "", -1, "orders", 0, 0L)).getTopics(0).getPartitions(0)
                .getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(client().offsetFetch(fetch("g-negative", ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "orders", 0))
                .getGroups(0).getTopics(0).getPartitions(0).getCommittedOffset()).isZero();
    }

    @Test
    void testAnOverlongGroupIdInABatchIsNamedByItsPosition() {
        String tooLong = "g".repeat(RequestLimits.MAX_GROUP_ID_LENGTH + 1);
        assertInvalidArgument(() -> client().findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds("ok")
                .addGroupIds(tooLong).build()), "group_ids[1] has 256 chars");
        assertInvalidArgument(() -> client().describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(tooLong)
                .build()), "group_ids[0] has 256 chars");
        assertInvalidArgument(() -> client().deleteGroups(DeleteGroupsRequest.newBuilder().addGroupIds(tooLong)
                .build()), "group_ids[0] has 256 chars");
    }

    @Test
    void testInvalidSessionTimeoutSaysTheAllowedRange() {
        int min = cluster.spec.groupConfig().minSessionTimeoutMs();
        int max = cluster.spec.groupConfig().maxSessionTimeoutMs();
        JoinGroupResponse response = client().joinGroup(join("g-session-range", "", "c").toBuilder()
                .setSessionTimeoutMs(max + 1).build());

        assertThat(response.getErrorCode()).isEqualTo(ErrorCode.INVALID_SESSION_TIMEOUT);
        assertThat(response.getErrorMessage()).contains("session_timeout_ms " + (max + 1))
                .contains("[" + min + ", " + max + "] ms");
    }

    @Test
    void testJoiningANewGroupWithNoProtocolsSaysTheListIsEmpty() {
        JoinGroupResponse response = client().joinGroup(join("g-no-protocols", "", "c").toBuilder().clearProtocols()
                .build());

        // Kafka's code for it, kept; the message names the actual problem.
        assertThat(response.getErrorCode()).isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(response.getErrorMessage()).contains("protocols is empty").doesNotContain("do not match");

        JoinGroupResponse noType = client().joinGroup(join("g-no-type", "", "c").toBuilder().setProtocolType("")
                .build());
        assertThat(noType.getErrorCode()).isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(noType.getErrorMessage()).contains("protocol_type is empty");
    }

    private static void assertInvalidArgument(ThrowingCallable call, String... messageParts) {
        assertThatThrownBy(call).isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains(messageParts);
        });
    }
}
