package io.cohort.core.shard;

import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_NAME;
import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_TYPE;
import static io.cohort.core.shard.RebalanceFixtures.dynamicMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.groupValueOf;
import static io.cohort.core.shard.RebalanceFixtures.markDead;
import static io.cohort.core.shard.RebalanceFixtures.staticMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.syncAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.command.Command.LeavingMember;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.LeaveGroupResponse;
import io.cohort.core.response.LeaveGroupResponse.MemberResult;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** LeaveGroup (reference 1.5): per-member results, static members, pending members, rebalances. */
class LeaveGroupTest {
    private static final String GROUP_ID = "group-id";

    private final GroupShardTestContext context = new GroupShardTestContext();

    private Result leave(LeavingMember... members) {
        return context.apply(new Command.LeaveGroup(GROUP_ID, List.of(members)));
    }

    private static LeavingMember byId(String memberId) {
        return new LeavingMember(memberId, null, null);
    }

    private static LeavingMember byInstance(String instanceId) {
        return new LeavingMember("", instanceId, null);
    }

    /** Two static members, Stable at generation 1; the leader first. */
    private List<String> stableStaticGroup() {
        List<String> members = staticMembersInCompletingRebalance(context, GROUP_ID, "leader-instance-id",
                "follower-instance-id");
        syncAll(context, GROUP_ID, members);
        return members;
    }

    @Test
    @DisplayName("null or empty group id: top-level INVALID_GROUP_ID")
    void testLeaveGroupInvalidGroupId() {
        for (String groupId : new String[] {null, ""}) {
            Result result = context.apply(new Command.LeaveGroup(groupId, List.of(byId("member-id"))));
            assertThat(result.immediateResponse())
                    .isEqualTo(new LeaveGroupResponse(ErrorCode.INVALID_GROUP_ID, List.of()));
            assertThat(result.records()).isEmpty();
        }
    }

    @Test
    @DisplayName("case 13: unknown group: top-level NONE and UNKNOWN_MEMBER_ID for each member")
    void testLeaveGroupUnknownGroup() {
        Result result = leave(byId("member-1"), new LeavingMember("member-2", "instance-2", "bye"));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE, List.of(
                new MemberResult("member-1", null, ErrorCode.UNKNOWN_MEMBER_ID),
                new MemberResult("member-2", "instance-2", ErrorCode.UNKNOWN_MEMBER_ID))));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isNull();
    }

    @Test
    @DisplayName("Dead group: top-level COORDINATOR_NOT_AVAILABLE")
    void testLeaveGroupDeadGroup() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        markDead(context, GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = leave(byId(member));

        assertThat(result.immediateResponse())
                .isEqualTo(new LeaveGroupResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE, List.of()));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 87: leaving with an unknown member id: UNKNOWN_MEMBER_ID and no records")
    void testLeaveGroupUnknownMemberIdExistingGroup() {
        context.stableGroupWithOneMember(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = leave(byId("unknown-member-id"));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE,
                List.of(new MemberResult("unknown-member-id", null, ErrorCode.UNKNOWN_MEMBER_ID))));
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 89: leaving with a static member's instance id but another member id: FENCED_INSTANCE_ID")
    void testLeaveGroupWithFencedInstanceId() {
        stableStaticGroup();
        ClassicGroup before = context.group(GROUP_ID);

        Result result = leave(new LeavingMember("other-member-id", "follower-instance-id", null));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE, List.of(
                new MemberResult("other-member-id", "follower-instance-id", ErrorCode.FENCED_INSTANCE_ID))));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 91: batch leave [unknown instance, follower instance]: [UNKNOWN_MEMBER_ID, NONE]")
    void testStaticMembersUnknownInstanceBatchLeaveGroup() {
        List<String> members = stableStaticGroup();

        Result result = leave(byInstance("unknown-instance-id"), byInstance("follower-instance-id"));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE, List.of(
                new MemberResult("", "unknown-instance-id", ErrorCode.UNKNOWN_MEMBER_ID),
                new MemberResult("", "follower-instance-id", ErrorCode.NONE))));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members().keySet()).containsExactly(members.get(0));
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(result.timers()).contains(new TimerOp.Cancel(TimerOp.Keys.heartbeat(GROUP_ID, members.get(1))));
    }

    @Test
    @DisplayName("case 91: batch leave of every static member: [NONE, NONE], group Empty at generation 2")
    void testStaticMembersValidBatchLeaveGroup() {
        stableStaticGroup();

        Result result = leave(byInstance("leader-instance-id"), byInstance("follower-instance-id"));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE, List.of(
                new MemberResult("", "leader-instance-id", ErrorCode.NONE),
                new MemberResult("", "follower-instance-id", ErrorCode.NONE))));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.members()).isEmpty();
    }

    @Test
    @DisplayName("case 91: batch leave [leader instance, follower instance with a wrong member id]: [NONE, FENCED_INSTANCE_ID]")
    void testStaticMembersFencedInstanceBatchLeaveGroup() {
        List<String> members = stableStaticGroup();

        Result result = leave(byInstance("leader-instance-id"),
                new LeavingMember("invalid-member-id", "follower-instance-id", null));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE, List.of(
                new MemberResult("", "leader-instance-id", ErrorCode.NONE),
                new MemberResult("invalid-member-id", "follower-instance-id", ErrorCode.FENCED_INSTANCE_ID))));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members().keySet()).containsExactly(members.get(1));
        assertThat(group.leaderId()).isEqualTo(members.get(1));
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    }

    @Test
    @DisplayName("a pending member (MEMBER_ID_REQUIRED, never rejoined) leaves: removed, no rebalance")
    void testLeaveGroupPendingMember() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        JoinGroupResponse required = (JoinGroupResponse) context.join(GROUP_ID).version(4).send().immediateResponse();
        assertThat(required.error()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        String pending = required.memberId();
        assertThat(context.group(GROUP_ID).isPendingMember(pending)).isTrue();

        Result result = leave(byId(pending));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE,
                List.of(new MemberResult(pending, null, ErrorCode.NONE))));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(result.timers()).containsExactly(new TimerOp.Cancel(TimerOp.Keys.heartbeat(GROUP_ID, pending)));
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, pending))).isEmpty();
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.pendingMembers()).isEmpty();
        assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(group.members().keySet()).containsExactly(member);
    }

    @Test
    @DisplayName("a pending member leaving during PreparingRebalance lets the join phase complete")
    void testLeaveGroupPendingMemberCompletesJoinPhase() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        syncAll(context, GROUP_ID, members);
        String leader = members.get(0);
        String follower = members.get(1);
        context.join(GROUP_ID).memberId(leader).send();
        String pending = ((JoinGroupResponse) context.join(GROUP_ID).version(4).send().immediateResponse()).memberId();
        context.join(GROUP_ID).memberId(follower).send();
        // Every member rejoined, but the outstanding MEMBER_ID_REQUIRED id holds the join phase back.
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.takeJoin(GROUP_ID, leader)).isNull();

        Result result = leave(byId(pending));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE,
                List.of(new MemberResult(pending, null, ErrorCode.NONE))));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.pendingMembers()).isEmpty();
        assertThat(context.takeJoin(GROUP_ID, leader)).isEqualTo(new JoinGroupResponse(ErrorCode.NONE, 2,
                PROTOCOL_TYPE, PROTOCOL_NAME, leader, false, leader, group.joinedMembersForLeader()));
        assertThat(context.takeJoin(GROUP_ID, follower)).isEqualTo(new JoinGroupResponse(ErrorCode.NONE, 2,
                PROTOCOL_TYPE, PROTOCOL_NAME, leader, false, follower, List.of()));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
    }

    @Test
    @DisplayName("the last member leaves a Stable group: Empty at generation + 1 at once, one GroupValue")
    void testLeaveGroupLastMemberOfStableGroup() {
        String member = context.stableGroupWithOneMember(GROUP_ID);

        Result result = leave(byId(member));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE,
                List.of(new MemberResult(member, null, ErrorCode.NONE))));
        assertThat(result.records()).hasSize(1);
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup written = ((CoordinatorRecord.GroupValue) result.records().get(0)).group();
        assertThat(written.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(written.generationId()).isEqualTo(2);
        assertThat(written.protocolType()).isEqualTo(PROTOCOL_TYPE);
        assertThat(written.protocolName()).isNull();
        assertThat(written.leaderId()).isNull();
        assertThat(written.members()).isEmpty();
        assertThat(written.joinTimer()).isNull();
        assertThat(written.syncTimer()).isNull();
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, member))).isEmpty();
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID))).isEmpty();
    }

    @Test
    @DisplayName("a member leaves during PreparingRebalance: the join phase completes when everyone else rejoined")
    void testLeaveGroupCompletesJoinPhase() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        syncAll(context, GROUP_ID, members);
        String leader = members.get(0);
        String follower = members.get(1);
        assertThat(context.join(GROUP_ID).memberId(leader).send().reply())
                .isEqualTo(new Result.Reply.Parked(ParkKey.join(GROUP_ID, leader)));

        Result result = leave(byId(follower));

        assertThat(result.immediateResponse()).isEqualTo(new LeaveGroupResponse(ErrorCode.NONE,
                List.of(new MemberResult(follower, null, ErrorCode.NONE))));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(context.takeJoin(GROUP_ID, leader)).isEqualTo(new JoinGroupResponse(ErrorCode.NONE, 2,
                PROTOCOL_TYPE, PROTOCOL_NAME, leader, false, leader, group.joinedMembersForLeader()));
        assertThat(group.joinedMembersForLeader()).extracting(ClassicGroup.JoinedMember::memberId)
                .containsExactly(leader);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
    }

    @Test
    @DisplayName("a removed member's parked JoinGroup gets UNKNOWN_MEMBER_ID with member id \"\"")
    void testLeaveGroupFailsParkedJoin() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        syncAll(context, GROUP_ID, members);
        String leader = members.get(0);
        String follower = members.get(1);
        // The follower rejoins with changed metadata: a rebalance, its JoinGroup parked.
        context.join(GROUP_ID).memberId(follower).protocols(GroupShardTestContext.protocols("range", "roundrobin"))
                .send();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        Result result = leave(byId(follower));

        assertThat(result.completions()).containsExactly(new Result.Completion(ParkKey.join(GROUP_ID, follower),
                JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, "")));
        assertThat(context.takeJoin(GROUP_ID, follower)).isEqualTo(new JoinGroupResponse(
                ErrorCode.UNKNOWN_MEMBER_ID, -1, null, null, "", false, "", List.of()));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members().keySet()).containsExactly(leader);
        // The leader has not rejoined: the join phase waits for it.
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.joinTimer()).isNotNull();
    }
}
