package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.join;
import static io.cohort.server.rpc.Requests.sync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.JoinGroupResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader that steps down fails its parked calls with NOT_COORDINATOR; a node that knows no
 * leader answers FindCoordinator with COORDINATOR_NOT_AVAILABLE. The step-down is a real
 * one: the partition's preferred leader comes back and the leader balancer hands leadership back
 * to it, so the interim leader, holding a parked JoinGroup, loses the partition. Two partitions:
 * with one, nothing is handed back.
 */
class StepDownTest {
    @TempDir
    Path tmp;

    @Test
    void testStepDownFailsParkedJoinWithNotCoordinator() throws Exception {
        try (CoordinatorTestCluster cluster = CoordinatorTestCluster.start(tmp, 3, 2)) {
            int preferred = cluster.spec.preferredLeader(0);
            cluster.stopNode(preferred);
            CoordinatorTestCluster.Node interim = cluster.leaderOf(0);
            String group = cluster.groupIn(0, "step-down");
            String memberA = interim.blocking().joinGroup(join(group, "", "client-a")).getMemberId();
            JoinGroupResponse joinedA = interim.future().joinGroup(join(group, memberA, "client-a"))
                    .get(30, TimeUnit.SECONDS);
            assertThat(interim.blocking().syncGroup(sync(group, memberA, joinedA.getGenerationId())).getErrorCode())
                    .isEqualTo(ErrorCode.NONE);
            String memberB = interim.blocking().joinGroup(join(group, "", "client-b")).getMemberId();
            ListenableFuture<JoinGroupResponse> parkedB = interim.future().joinGroup(join(group, memberB, "client-b"));
            await().atMost(Duration.ofSeconds(10)).until(() -> interim.parked.size(0) == 1);

            cluster.restartNode(preferred);

            JoinGroupResponse failed = parkedB.get(60, TimeUnit.SECONDS);
            assertThat(failed.getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
            assertThat(failed.getGenerationId()).isEqualTo(-1);
            assertThat(failed.getMemberId()).isEqualTo(memberB);
            assertThat(interim.parked.size()).isZero();
            // The rebalance survived the move: both members finish it on the new leader.
            CoordinatorTestCluster.Node leader = cluster.leaderOf(0);
            ListenableFuture<JoinGroupResponse> resentB = leader.future().joinGroup(join(group, memberB, "client-b"));
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.parked.size(0) == 1);
            JoinGroupResponse rejoinedA = leader.blocking().joinGroup(join(group, memberA, "client-a"));
            assertThat(rejoinedA.getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(rejoinedA.getGenerationId()).isEqualTo(joinedA.getGenerationId() + 1);
            assertThat(resentB.get(10, TimeUnit.SECONDS).getGenerationId()).isEqualTo(rejoinedA.getGenerationId());

            // A node that knows no leader (restarted alone: no majority, no election) says so.
            for (int id = 1; id <= cluster.size(); id++) {
                cluster.stopNode(id);
            }
            cluster.restartNode(preferred);
            CoordinatorTestCluster.Node alone = cluster.node(preferred);
            assertThat(alone.blocking().findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds(group)
                    .build()).getCoordinators(0)).satisfies(none -> {
                        assertThat(none.getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
                        assertThat(none.getNodeId()).isEqualTo(-1);
                        assertThat(none.getHost()).isEmpty();
                        assertThat(none.getPort()).isEqualTo(-1);
                        assertThat(none.getErrorMessage()).contains("no leader is known");
                    });
            JoinGroupResponse nowhere = alone.blocking().joinGroup(join(group, memberA, "client-a"));
            assertThat(nowhere.getErrorCode()).isEqualTo(ErrorCode.NOT_COORDINATOR);
            assertThat(nowhere.hasLeaderHint()).isFalse();
        }
    }
}
