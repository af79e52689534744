package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.commit;
import static io.cohort.server.rpc.Requests.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.JoinGroupResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new member's first JoinGroup is answered MEMBER_ID_REQUIRED by the leader without waiting for its
 * entry to be applied (Kafka writes nothing for it), on three real nodes. The leader's apply thread
 * is held, so nothing proposed from then on can be answered from its applied result: the first join
 * still gets its id, and the member's next join, which must find the pending id, waits and then
 * joins once the entries are applied.
 */
class MemberIdRequiredAtOnceRpcTest {
    private static final int NODES = 3;
    private static final int PARTITION = 0;

    @TempDir
    Path tmp;
    private CoordinatorTestCluster cluster;
    private final Map<Integer, ApplyGate> gates = new TreeMap<>();

    @BeforeEach
    void start() {
        cluster = CoordinatorTestCluster.startWithListeners(tmp, NODES, 1, (id, parked) -> {
            ApplyGate gate = new ApplyGate(parked);
            gates.put(id, gate);
            return gate;
        });
    }

    @AfterEach
    void stop() {
        gates.values().forEach(ApplyGate::open);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void testTheFirstJoinIsAnsweredWhileTheLeaderCannotApplyAndTheSecondJoinFindsThePendingId() throws Exception {
        CoordinatorTestCluster.Node leader = cluster.leaderOf(PARTITION);
        ApplyGate gate = gates.get(leader.raft.nodeId());
        String group = cluster.groupIn(PARTITION, "at-once");
        String staticGroup = cluster.groupIn(PARTITION, "static");
        holdTheApplyThread(leader, gate, group);

        JoinGroupResponse required = leader.blocking().joinGroup(join(group, "", "client-a"));

        assertThat(required.getErrorCode()).as(required.getErrorMessage()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(required.getMemberId()).startsWith("client-a-");
        assertThat(gate.holding()).as("answered while no entry proposed after the hold can be applied").isTrue();
        // A static member's join is no MEMBER_ID_REQUIRED: it is answered from its applied result only.
        ListenableFuture<JoinGroupResponse> staticJoin = leader.future()
                .joinGroup(join(staticGroup, "", "client-s").toBuilder().setGroupInstanceId("instance-s").build());
        ListenableFuture<JoinGroupResponse> joined = leader.future().joinGroup(join(group, required.getMemberId(),
                "client-a"));
        assertThat(gate.holding()).isTrue();
        assertThat(staticJoin.isDone()).isFalse();
        assertThat(joined.isDone()).isFalse();

        gate.open();

        JoinGroupResponse member = joined.get(30, TimeUnit.SECONDS);
        assertThat(member.getErrorCode()).as(member.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(member.getMemberId()).isEqualTo(required.getMemberId());
        assertThat(member.getLeader()).isEqualTo(required.getMemberId());
        assertThat(member.getGenerationId()).isEqualTo(1);
        assertThat(staticJoin.get(30, TimeUnit.SECONDS).getErrorCode()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testEveryIdHandedOutAtOnceIsPendingOnEveryReplicaOnceApplied() {
        CoordinatorTestCluster.Node leader = cluster.leaderOf(PARTITION);
        String group = cluster.groupIn(PARTITION, "replicated");

        JoinGroupResponse first = leader.blocking().joinGroup(join(group, "", "client-r"));
        JoinGroupResponse second = leader.blocking().joinGroup(join(group, "", "client-r"));

        assertThat(first.getErrorCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(second.getErrorCode()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(second.getMemberId()).isNotEqualTo(first.getMemberId());
        for (int id = 1; id <= NODES; id++) {
            CoordinatorTestCluster.Node node = cluster.node(id);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(node.raft.shard(PARTITION)
                    .group(group)).isNotNull().satisfies(g -> assertThat(g.pendingMembers())
                    .containsOnlyKeys(first.getMemberId(), second.getMemberId())));
        }
    }

    /** Closes the gate and applies one write, which the leader's apply thread then holds at. */
    private static void holdTheApplyThread(CoordinatorTestCluster.Node leader, ApplyGate gate, String group) {
        gate.close(PARTITION);
        leader.future().offsetCommit(commit(group + "-other", "", -1, "t", 0, 1L));
        await().atMost(Duration.ofSeconds(30)).until(gate::holding);
    }
}
