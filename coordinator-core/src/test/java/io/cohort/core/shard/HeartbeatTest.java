package io.cohort.core.shard;

import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_NAME;
import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_TYPE;
import static io.cohort.core.shard.RebalanceFixtures.dynamicMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.markDead;
import static io.cohort.core.shard.RebalanceFixtures.parkedMemberId;
import static io.cohort.core.shard.RebalanceFixtures.staticMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.syncAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.command.Heartbeat;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.JoinGroupResponse;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Heartbeat (reference 1.4): validation order, answers per state, and the session timer it moves. */
class HeartbeatTest {
    private static final String GROUP_ID = "group-id";

    private final GroupShardTestContext context = new GroupShardTestContext();

    @Test
    @DisplayName("null or empty group id: INVALID_GROUP_ID")
    void testHeartbeatWithInvalidGroupId() {
        assertThat(context.heartbeat(null, "member-id", 1).error()).isEqualTo(ErrorCode.INVALID_GROUP_ID);
        assertThat(context.heartbeat("", "member-id", 1).error()).isEqualTo(ErrorCode.INVALID_GROUP_ID);
    }

    @Test
    @DisplayName("unknown group: UNKNOWN_MEMBER_ID")
    void testHeartbeatUnknownGroup() {
        GroupCoordinatorShard.HeartbeatResult result =
                context.shard().heartbeat(new Heartbeat(GROUP_ID, 1, "member-id", null), context.nowMs());

        assertThat(result.response().error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(result.timers()).isEmpty();
        assertThat(context.group(GROUP_ID)).isNull();
    }

    @Test
    @DisplayName("case 77: Dead group: COORDINATOR_NOT_AVAILABLE, before any member check")
    void testHeartbeatDeadGroup() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        markDead(context, GROUP_ID);

        assertThat(context.heartbeat(GROUP_ID, member, 1).error()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(context.heartbeat(GROUP_ID, "unknown-member-id", 1).error())
                .isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }

    @Test
    @DisplayName("case 79: heartbeat from an unknown member of an existing group: UNKNOWN_MEMBER_ID")
    void testHeartbeatUnknownMemberExistingGroup() {
        context.stableGroupWithOneMember(GROUP_ID);

        GroupCoordinatorShard.HeartbeatResult result =
                context.shard().heartbeat(new Heartbeat(GROUP_ID, 1, "unknown-member-id", null), context.nowMs());

        assertThat(result.response().error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(result.timers()).isEmpty();
    }

    @Test
    @DisplayName("ILLEGAL_GENERATION for a generation other than the group's; the member check wins")
    void testHeartbeatIllegalGeneration() {
        String member = context.stableGroupWithOneMember(GROUP_ID);

        assertThat(context.heartbeat(GROUP_ID, member, 0).error()).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
        assertThat(context.heartbeat(GROUP_ID, member, 2).error()).isEqualTo(ErrorCode.ILLEGAL_GENERATION);
        assertThat(context.heartbeat(GROUP_ID, "unknown-member-id", 2).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        GroupCoordinatorShard.HeartbeatResult result =
                context.shard().heartbeat(new Heartbeat(GROUP_ID, 2, member, null), context.nowMs());
        assertThat(result.timers()).isEmpty();
    }

    @Test
    @DisplayName("case 81: heartbeat of the current generation in CompletingRebalance: NONE")
    void testHeartbeatDuringCompletingRebalance() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

        assertThat(context.heartbeat(GROUP_ID, leader, 1).error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    @DisplayName("heartbeat in PreparingRebalance: REBALANCE_IN_PROGRESS, and the session is restarted")
    void testHeartbeatDuringPreparingRebalance() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        syncAll(context, GROUP_ID, members);
        context.join(GROUP_ID).memberId(members.get(0)).send();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        context.sleep(100);

        GroupCoordinatorShard.HeartbeatResult result =
                context.shard().heartbeat(new Heartbeat(GROUP_ID, 1, members.get(1), null), context.nowMs());

        assertThat(result.response().error()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        assertThat(result.timers()).containsExactly(new TimerOp.Schedule(
                TimerOp.Keys.heartbeat(GROUP_ID, members.get(1)), context.nowMs() + 500,
                new Command.ExpireMemberSession(GROUP_ID, members.get(1))));
    }

    @Test
    @DisplayName("case 83: heartbeat with the static leader's instance id and an invalid member id: FENCED_INSTANCE_ID")
    void testStaticMemberHeartbeatLeaderWithInvalidMemberId() {
        List<String> members = staticMembersInCompletingRebalance(context, GROUP_ID, "leader-instance-id",
                "follower-instance-id");
        syncAll(context, GROUP_ID, members);

        assertThat(context.heartbeat(GROUP_ID, members.get(0), "leader-instance-id", 1).error())
                .isEqualTo(ErrorCode.NONE);
        assertThat(context.heartbeat(GROUP_ID, "invalid-member-id", "leader-instance-id", 1).error())
                .isEqualTo(ErrorCode.FENCED_INSTANCE_ID);
        assertThat(context.heartbeat(GROUP_ID, members.get(0), "unknown-instance-id", 1).error())
                .isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    @DisplayName("a heartbeat reschedules the member's session at now + session timeout and writes nothing")
    void testHeartbeatReschedulesSessionTimerWithoutRecords() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        context.sleep(200);
        ClassicGroup before = context.group(GROUP_ID);
        var snapshotBefore = context.shard().snapshot();

        GroupCoordinatorShard.HeartbeatResult result =
                context.shard().heartbeat(new Heartbeat(GROUP_ID, 1, member, null), context.nowMs());

        assertThat(result.response().error()).isEqualTo(ErrorCode.NONE);
        assertThat(result.timers()).containsExactly(new TimerOp.Schedule(TimerOp.Keys.heartbeat(GROUP_ID, member),
                context.nowMs() + 500, new Command.ExpireMemberSession(GROUP_ID, member)));
        // Heartbeats are answered from the applied state: no record, no change.
        assertThat(context.group(GROUP_ID)).isSameAs(before);
        assertThat(context.shard().snapshot()).isEqualTo(snapshotBefore);
    }

    @Test
    @DisplayName("heartbeats keep a member alive past its session timeout; it expires once they stop")
    void testHeartbeatsKeepMemberAlive() {
        String member = context.stableGroupWithOneMember(GROUP_ID);

        for (int i = 0; i < 10; i++) {
            context.sleep(400);
            assertThat(context.heartbeat(GROUP_ID, member, 1).error()).isEqualTo(ErrorCode.NONE);
        }
        context.sleep(499);
        assertThat(context.group(GROUP_ID).hasMember(member)).isTrue();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);

        context.sleep(1);

        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members()).isEmpty();
        assertThat(group.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group.generationId()).isEqualTo(2);
    }

    @Test
    @DisplayName("case 85: a member that heartbeats once during a rebalance and stops is evicted after its session")
    void testClassicGroupMemberSessionTimeoutDuringRebalance() {
        String oldMember = context.stableGroupWithOneMember(GROUP_ID);
        // A new member with a long rebalance timeout starts a rebalance the old member never rejoins.
        String newMember = parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(2_000).send());
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        context.sleep(100);

        assertThat(context.heartbeat(GROUP_ID, oldMember, 1).error()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);

        context.sleep(499);
        assertThat(context.group(GROUP_ID).hasMember(oldMember)).isTrue();
        assertThat(context.takeJoin(GROUP_ID, newMember)).isNull();

        context.sleep(1);

        assertThat(context.heartbeat(GROUP_ID, oldMember, 1).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(context.takeJoin(GROUP_ID, newMember)).isEqualTo(new JoinGroupResponse(ErrorCode.NONE, 2,
                PROTOCOL_TYPE, PROTOCOL_NAME, newMember, false, newMember, group.joinedMembersForLeader()));
        assertThat(group.joinedMembersForLeader()).extracting(ClassicGroup.JoinedMember::memberId)
                .containsExactly(newMember);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.members().keySet()).containsExactly(newMember);
        assertThat(group.leaderId()).isEqualTo(newMember);
    }
}
