package io.cohort.core.shard;

import static io.cohort.core.shard.JoinGroupFixtures.GROUP_ID;
import static io.cohort.core.shard.JoinGroupFixtures.createEmptyGroup;
import static io.cohort.core.shard.JoinGroupFixtures.groupValueOf;
import static io.cohort.core.shard.JoinGroupFixtures.joinResponse;
import static io.cohort.core.shard.JoinGroupFixtures.joined;
import static io.cohort.core.shard.JoinGroupFixtures.mintedMemberId;
import static io.cohort.core.shard.JoinGroupFixtures.parkedMemberId;
import static io.cohort.core.shard.JoinGroupFixtures.replayTransitions;
import static io.cohort.core.shard.JoinGroupFixtures.success;
import static io.cohort.core.shard.GroupShardTestContext.protocols;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.LeaveGroupResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** JoinGroup request validation and the errors answered before any rebalance (reference 1.2, 2.10). */
class JoinGroupValidationTest {
    private final GroupShardTestContext context = new GroupShardTestContext();

    /** Asserts the command changed nothing: no record, no timer, no answer to another call. */
    private static void assertNoEffects(Result result) {
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(result.completions()).isEmpty();
    }

    @ParameterizedTest(name = "group id \"{0}\"")
    @NullAndEmptySource
    @DisplayName("case 3: JoinGroup with a null or empty group id is INVALID_GROUP_ID and changes nothing")
    void testJoinGroupInvalidGroupId(String groupId) {
        Result dynamic = context.join(groupId).send();
        Result withMemberId = context.join(groupId).memberId("member-id").send();
        Result staticJoin = context.join(groupId).version(5).instanceId("group-instance-id").send();

        assertThat(joinResponse(dynamic)).isEqualTo(JoinGroupResponse.error(ErrorCode.INVALID_GROUP_ID, ""));
        assertThat(joinResponse(withMemberId))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INVALID_GROUP_ID, "member-id"));
        assertThat(joinResponse(staticJoin)).isEqualTo(JoinGroupResponse.error(ErrorCode.INVALID_GROUP_ID, ""));
        for (Result result : List.of(dynamic, withMemberId, staticJoin)) {
            assertNoEffects(result);
        }
        assertThat(context.shard().groupIds()).isEmpty();
    }

    @ParameterizedTest(name = "session timeout {0} ms")
    @ValueSource(ints = {9, 600_001})
    @DisplayName("case 7: a session timeout outside [min, max] is INVALID_SESSION_TIMEOUT and changes nothing")
    void testJoinGroupSessionTimeoutOutOfBounds(int sessionTimeoutMs) {
        Result newGroup = context.join(GROUP_ID).sessionTimeoutMs(sessionTimeoutMs).send();

        assertThat(joinResponse(newGroup)).isEqualTo(JoinGroupResponse.error(ErrorCode.INVALID_SESSION_TIMEOUT, ""));
        assertNoEffects(newGroup);
        assertThat(context.group(GROUP_ID)).isNull();

        // The check comes before any state is read, also for a known member of an existing group.
        String memberId = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);
        Result known = context.join(GROUP_ID).memberId(memberId).sessionTimeoutMs(sessionTimeoutMs).send();

        assertThat(joinResponse(known)).isEqualTo(JoinGroupResponse.error(ErrorCode.INVALID_SESSION_TIMEOUT, memberId));
        assertNoEffects(known);
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @ParameterizedTest(name = "session timeout {0} ms")
    @ValueSource(ints = {10, 600_000})
    @DisplayName("case 7: session timeouts equal to the min and max bounds are accepted")
    void testJoinGroupSessionTimeoutAtBounds(int sessionTimeoutMs) {
        Result result = context.join(GROUP_ID).sessionTimeoutMs(sessionTimeoutMs).send();

        String memberId = parkedMemberId(result);
        assertThat(context.group(GROUP_ID).member(memberId).sessionTimeoutMs()).isEqualTo(sessionTimeoutMs);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    }

    @Test
    @DisplayName("case 15: v4 JoinGroup with MemberId \"\" on a new group is MEMBER_ID_REQUIRED and writes only "
            + "the new empty group holding the pending member")
    void testGenerateRecordsOnNewClassicGroup() {
        Command.JoinGroup join = context.join(GROUP_ID).version(4).build();
        String memberId = mintedMemberId(join);

        Result result = context.apply(join);

        assertThat(memberId).isEqualTo("client-" + join.memberIdSuffix());
        assertThat(joinResponse(result)).isEqualTo(JoinGroupResponse.error(ErrorCode.MEMBER_ID_REQUIRED, memberId));
        ClassicGroup expected = new ClassicGroup(GROUP_ID, ClassicGroupState.EMPTY, ClassicGroupState.EMPTY,
                context.nowMs(), 0, null, null, null, Map.of(), Map.of(memberId, 500), Set.of(), null, null, false,
                null);
        assertThat(result.records()).containsExactly(new CoordinatorRecord.GroupValue(expected));
        assertThat(context.group(GROUP_ID)).isEqualTo(expected);
        // The pending member expires after its session timeout unless it comes back.
        assertThat(result.timers()).containsExactly(new TimerOp.Schedule(
                TimerOp.Keys.heartbeat(GROUP_ID, memberId), context.nowMs() + 500,
                new Command.ExpireMemberSession(GROUP_ID, memberId)));
        assertThat(result.completions()).isEmpty();
    }

    @Test
    @DisplayName("case 17: JoinGroup with ProtocolType \"\" (dynamic and static) on an Empty group is "
            + "INCONSISTENT_GROUP_PROTOCOL")
    void testJoinGroupWithEmptyProtocolType() {
        createEmptyGroup(context, GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result dynamic = context.join(GROUP_ID).protocolType("").send();
        Result staticJoin = context.join(GROUP_ID).version(5).instanceId("group-instance-id").protocolType("").send();

        assertThat(joinResponse(dynamic)).isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
        assertThat(joinResponse(staticJoin))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
        assertNoEffects(dynamic);
        assertNoEffects(staticJoin);
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 17: JoinGroup with no protocols on an Empty group is INCONSISTENT_GROUP_PROTOCOL")
    void testJoinGroupWithEmptyGroupProtocol() {
        createEmptyGroup(context, GROUP_ID);

        Result result = context.join(GROUP_ID).protocols(List.of()).send();

        assertThat(joinResponse(result)).isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
        assertNoEffects(result);
        assertThat(context.group(GROUP_ID).members()).isEmpty();
    }

    @Test
    @DisplayName("case 17: a refused first JoinGroup still persists the group it created (empty, no members)")
    void testJoinGroupWithEmptyProtocolTypePersistsNewGroup() {
        Result result = context.join(GROUP_ID).protocolType("").send();

        assertThat(joinResponse(result)).isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
        assertThat(result.records()).containsExactly(
                new CoordinatorRecord.GroupValue(ClassicGroup.newEmpty(GROUP_ID, context.nowMs())));
        assertThat(context.group(GROUP_ID)).isEqualTo(ClassicGroup.newEmpty(GROUP_ID, context.nowMs()));
    }

    @Test
    @DisplayName("case 19: a new member with ProtocolType \"connect\" joining a \"consumer\" group is "
            + "INCONSISTENT_GROUP_PROTOCOL")
    void testClassicGroupJoinInconsistentProtocolType() {
        String memberId = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result newMember = context.join(GROUP_ID).protocolType("connect").protocols(protocols("range")).send();
        Result knownMember = context.join(GROUP_ID).memberId(memberId).protocolType("connect").send();

        assertThat(joinResponse(newMember))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
        assertThat(joinResponse(knownMember))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
        assertNoEffects(newMember);
        assertNoEffects(knownMember);
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 21: a pending member rejoining with no protocols is INCONSISTENT_GROUP_PROTOCOL; with "
            + "[\"range\"] it parks and gets NONE after the initial delay")
    void testJoinGroupSecondJoinInconsistentProtocol() {
        String memberId = joinResponse(context.join(GROUP_ID).version(4).send()).memberId();

        Result inconsistent = context.join(GROUP_ID).version(4).memberId(memberId).protocols(List.of()).send();

        assertThat(joinResponse(inconsistent))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
        assertNoEffects(inconsistent);
        assertThat(context.group(GROUP_ID).pendingMembers()).containsOnlyKeys(memberId);

        Result consistent = context.join(GROUP_ID).version(4).memberId(memberId).protocols(protocols("range")).send();

        assertThat(parkedMemberId(consistent)).isEqualTo(memberId);
        assertThat(consistent.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).pendingMembers()).isEmpty();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        context.sleep(GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs());

        assertThat(context.takeJoin(GROUP_ID, memberId)).isEqualTo(
                success(1, "range", memberId, memberId, List.of(joined(memberId, null, "range"))));
    }

    @Test
    @DisplayName("case 23: JoinGroup with MemberId \"\" on a Dead group is COORDINATOR_NOT_AVAILABLE")
    void testJoinGroupUnknownConsumerNewDeadGroup() {
        createEmptyGroup(context, GROUP_ID);
        replayTransitions(context, GROUP_ID, ClassicGroupState.DEAD);
        ClassicGroup dead = context.group(GROUP_ID);

        Result dynamic = context.join(GROUP_ID).send();
        Result requiresKnownId = context.join(GROUP_ID).version(4).send();
        Result staticJoin = context.join(GROUP_ID).version(5).instanceId("group-instance-id").send();

        for (Result result : List.of(dynamic, requiresKnownId, staticJoin)) {
            assertThat(joinResponse(result))
                    .isEqualTo(JoinGroupResponse.error(ErrorCode.COORDINATOR_NOT_AVAILABLE, ""));
            assertNoEffects(result);
        }
        assertThat(context.group(GROUP_ID)).isEqualTo(dead);
    }

    @Test
    @DisplayName("case 23: a known member joining a Dead group is COORDINATOR_NOT_AVAILABLE")
    void testJoinGroupKnownMemberDeadGroup() {
        String memberId = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        replayTransitions(context, GROUP_ID, ClassicGroupState.DEAD);

        Result result = context.join(GROUP_ID).memberId(memberId).send();

        assertThat(joinResponse(result))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId));
        assertNoEffects(result);
    }

    @Test
    @DisplayName("case 25: a member still listed in a group that is Empty gets UNKNOWN_MEMBER_ID with "
            + "generation -1")
    void testJoinGroupExistingMemberInEmptyState() {
        String memberId = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        replayTransitions(context, GROUP_ID, ClassicGroupState.PREPARING_REBALANCE, ClassicGroupState.EMPTY);
        ClassicGroup before = context.group(GROUP_ID);
        assertThat(before.hasMember(memberId)).isTrue();

        Result result = context.join(GROUP_ID).version(4).memberId(memberId).send();

        JoinGroupResponse response = joinResponse(result);
        assertThat(response).isEqualTo(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
        assertThat(response.generationId()).isEqualTo(-1);
        assertNoEffects(result);
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 25: a member that left, rejoining the now Empty group with its old id, gets "
            + "UNKNOWN_MEMBER_ID")
    void testJoinGroupMemberThatLeftEmptyGroup() {
        String memberId = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        Result leave = context.apply(new Command.LeaveGroup(GROUP_ID,
                List.of(new Command.LeavingMember(memberId, null, null))));
        assertThat(((LeaveGroupResponse) leave.immediateResponse()).error()).isEqualTo(ErrorCode.NONE);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.EMPTY);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = context.join(GROUP_ID).version(4).memberId(memberId).send();

        assertThat(joinResponse(result)).isEqualTo(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
        assertNoEffects(result);
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("a known member id (dynamic or static) on a group that does not exist is UNKNOWN_MEMBER_ID and "
            + "creates no group")
    void testJoinGroupUnknownMemberNewGroup() {
        Result dynamic = context.join(GROUP_ID).memberId("member-id").send();
        Result staticJoin = context.join(GROUP_ID).version(5).memberId("member-id").instanceId("group-instance-id")
                .send();

        for (Result result : List.of(dynamic, staticJoin)) {
            JoinGroupResponse response = joinResponse(result);
            assertThat(response).isEqualTo(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, "member-id"));
            assertThat(response.protocolType()).isNull();
            assertNoEffects(result);
        }
        assertThat(context.shard().groupIds()).isEmpty();
    }

    @Test
    @DisplayName("a pending member id rejoining together with a group instance id is INVALID_REQUEST")
    void testPendingMemberRejoinWithGroupInstanceIdIsInvalidRequest() {
        String memberId = joinResponse(context.join(GROUP_ID).version(4).send()).memberId();
        ClassicGroup before = context.group(GROUP_ID);

        Result result = context.join(GROUP_ID).version(5).memberId(memberId).instanceId("group-instance-id").send();

        assertThat(joinResponse(result)).isEqualTo(JoinGroupResponse.error(ErrorCode.INVALID_REQUEST, memberId));
        assertNoEffects(result);
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
        assertThat(context.group(GROUP_ID).pendingMembers()).containsOnlyKeys(memberId);
    }
}
