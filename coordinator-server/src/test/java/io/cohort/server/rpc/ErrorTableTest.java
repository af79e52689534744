package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.NodeEndpoint;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.ProposalException;
import io.cohort.server.rpc.ErrorTable.Failure;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class ErrorTableTest {
    private static final ClusterSpec SPEC = new ClusterSpec("c", 4, List.of(
            new NodeAddress(1, "10.0.0.1", 7201, 7101),
            new NodeAddress(2, "10.0.0.2", 7202, 7102),
            new NodeAddress(3, "10.0.0.3", 7203, 7103)), GroupConfig.defaults());
    private static final int SELF = 1;

    @Test
    void testEveryCoreCodeMapsToThePublicCodeWithTheSameNameAndNumber() {
        for (ErrorCode code : ErrorCode.values()) {
            io.cohort.api.v1.ErrorCode mapped = ErrorTable.toProto(code);
            assertThat(mapped.name()).as("name of %s", code).isEqualTo(code.name());
            assertThat(mapped.getNumber()).as("number of %s", code).isEqualTo(code.code());
        }
    }

    @Test
    void testEveryPublicCodeHasACoreTwin() {
        Arrays.stream(io.cohort.api.v1.ErrorCode.values())
                .filter(code -> code != io.cohort.api.v1.ErrorCode.UNRECOGNIZED)
                .forEach(code -> assertThat(ErrorCode.valueOf(code.name()).code()).isEqualTo(code.getNumber()));
    }

    @Test
    void testAclsNotLoadedYetIsLoadInProgress() {
        io.cohort.server.auth.RequestAuthorizer loading = new io.cohort.server.auth.RequestAuthorizer(true,
                java.util.Set.of(), () -> io.cohort.core.acl.AclSet.EMPTY, () -> false);
        RuntimeException thrown = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> loading.allowCluster("DescribeAcls", io.cohort.core.acl.AclOperation.DESCRIBE));
        Failure failure = ErrorTable.failureOf(new CompletionException(thrown), SPEC, SELF);
        assertThat(failure.code()).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(failure.message()).contains("partition 0's log");
    }

    @Test
    void testNotLeaderIsNotCoordinatorWithTheLeadersClientEndpoint() {
        Failure failure = ErrorTable.failureOf(proposal(ProposalException.Kind.NOT_LEADER, 2), SPEC, SELF);
        assertThat(failure.code()).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(failure.leaderHint()).isEqualTo(
                NodeEndpoint.newBuilder().setNodeId(2).setHost("10.0.0.2").setPort(7102).build());
        assertThat(failure.message()).contains("node 2 at 10.0.0.2:7102");
    }

    @Test
    void testNotLeaderWithoutAKnownOtherLeaderHasNoHint() {
        assertThat(ErrorTable.failureOf(proposal(ProposalException.Kind.NOT_LEADER, -1), SPEC, SELF).leaderHint())
                .isNull();
        assertThat(ErrorTable.failureOf(proposal(ProposalException.Kind.NOT_LEADER, SELF), SPEC, SELF).leaderHint())
                .isNull();
        assertThat(ErrorTable.failureOf(proposal(ProposalException.Kind.NOT_LEADER, 9), SPEC, SELF).leaderHint())
                .isNull();
    }

    @Test
    void testProposalFailuresMapAsKafkaMapsAppendFailures() {
        assertThat(code(proposal(ProposalException.Kind.NOT_READY, SELF))).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(code(proposal(ProposalException.Kind.INDETERMINATE, 2))).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(code(proposal(ProposalException.Kind.SHUTTING_DOWN, -1))).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }

    @Test
    void testFailuresWrappedByFuturesAreUnwrapped() {
        Throwable wrapped = new CompletionException(new ExecutionException(
                proposal(ProposalException.Kind.NOT_LEADER, 3)));
        Failure failure = ErrorTable.failureOf(wrapped, SPEC, SELF);
        assertThat(failure.code()).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(failure.leaderHint().getNodeId()).isEqualTo(3);
    }

    @Test
    void testAnythingUnexpectedIsUnknownServerError() {
        assertThat(code(new IllegalStateException("bug"))).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
        assertThat(code(new CompletionException(new TimeoutException()))).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
    }

    @Test
    void testHeartbeatAnswersNoneWhileTheCoordinatorLoads() {
        assertThat(ErrorTable.forHeartbeat(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)).isEqualTo(ErrorCode.NONE);
        assertThat(ErrorTable.forHeartbeat(ErrorCode.NOT_COORDINATOR)).isEqualTo(ErrorCode.NOT_COORDINATOR);
        assertThat(ErrorTable.forHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS)).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
    }

    @Test
    void testMessagesAreEmptyOnlyForNone() {
        for (ErrorCode code : ErrorCode.values()) {
            assertThat(ErrorTable.describe(code).isEmpty()).as("message of %s", code).isEqualTo(code == ErrorCode.NONE);
        }
    }

    private static ProposalException proposal(ProposalException.Kind kind, int leaderHint) {
        return new ProposalException(kind, leaderHint, "partition 0: " + kind, null);
    }

    private static ErrorCode code(Throwable error) {
        return ErrorTable.failureOf(error, SPEC, SELF).code();
    }
}
