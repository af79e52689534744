package io.cohort.core.shard;

import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_TYPE;
import static io.cohort.core.shard.RebalanceFixtures.assignmentsFor;
import static io.cohort.core.shard.RebalanceFixtures.dynamicMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.groupValueOf;
import static io.cohort.core.shard.RebalanceFixtures.parkedMemberId;
import static io.cohort.core.shard.RebalanceFixtures.syncAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Member session timeouts, pending-member and new-member timeouts (reference 2.7), stale timer
 * commands, and the timers a new leader arms from the replicated state.
 */
class SessionTimeoutTest {
    private static final String GROUP_ID = "group-id";
    private static final int NEW_MEMBER_JOIN_TIMEOUT_MS = GroupConfig.NEW_MEMBER_JOIN_TIMEOUT_MS;

    private final GroupShardTestContext context = new GroupShardTestContext();

    /** Asserts that a command changed nothing: no records, no answers, no timers, the same group. */
    private void assertNoOp(Command command) {
        ClassicGroup before = context.group(GROUP_ID);
        Result result = context.apply(command);
        assertThat(result.records()).isEmpty();
        assertThat(result.reply()).isEqualTo(new Result.Reply.None());
        assertThat(result.completions()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 37: after join completion the 5-min new-member timeout no longer applies; the session does")
    void testNewMemberTimeoutCompletion() {
        int sessionTimeoutMs = NEW_MEMBER_JOIN_TIMEOUT_MS + 5_000;
        String member = parkedMemberId(context.join(GROUP_ID).sessionTimeoutMs(sessionTimeoutMs).send());
        context.sleep(GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs());
        assertThat(context.takeJoin(GROUP_ID, member).generationId()).isEqualTo(1);
        SyncGroupResponse sync = (SyncGroupResponse) context.sync(GROUP_ID, member, 1, assignmentsFor(List.of(member)))
                .immediateResponse();
        assertThat(sync.error()).isEqualTo(ErrorCode.NONE);

        context.sleep(NEW_MEMBER_JOIN_TIMEOUT_MS);
        assertThat(context.group(GROUP_ID).hasMember(member)).isTrue();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);

        List<Result> fired = context.sleep(5_000);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup written = ((CoordinatorRecord.GroupValue) fired.get(0).records().get(0)).group();
        assertThat(written.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(written.generationId()).isEqualTo(2);
        assertThat(written.protocolType()).isEqualTo(PROTOCOL_TYPE);
        assertThat(written.protocolName()).isNull();
        assertThat(written.leaderId()).isNull();
        assertThat(written.members()).isEmpty();
    }

    @Test
    @DisplayName("case 39: a pending member (MEMBER_ID_REQUIRED) is removed when its session timeout passes")
    void testHeartbeatExpirationShouldRemovePendingMember() {
        JoinGroupResponse required = (JoinGroupResponse) context.join(GROUP_ID).version(4).sessionTimeoutMs(1_000)
                .send().immediateResponse();
        assertThat(required.error()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        String pending = required.memberId();

        context.sleep(999);
        assertThat(context.group(GROUP_ID).isPendingMember(pending)).isTrue();

        List<Result> fired = context.sleep(1);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.pendingMembers()).isEmpty();
        assertThat(group.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group.generationId()).isZero();
        // The id is forgotten: rejoining with it is an unknown member.
        JoinGroupResponse rejoin = (JoinGroupResponse) context.join(GROUP_ID).version(4).memberId(pending).send()
                .immediateResponse();
        assertThat(rejoin.error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    @DisplayName("case 39: a pending member timing out leaves a Stable group untouched")
    void testSecondMemberPartiallyJoinAndTimeout() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        String pending = ((JoinGroupResponse) context.join(GROUP_ID).version(4).sessionTimeoutMs(1_000).send()
                .immediateResponse()).memberId();
        for (int i = 0; i < 2; i++) {
            context.sleep(400);
            assertThat(context.heartbeat(GROUP_ID, member, 1).error()).isEqualTo(ErrorCode.NONE);
        }
        assertThat(context.group(GROUP_ID).isPendingMember(pending)).isTrue();

        context.sleep(200);

        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.pendingMembers()).isEmpty();
        assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(group.members().keySet()).containsExactly(member);
        assertThat(context.heartbeat(GROUP_ID, member, 1).error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    @DisplayName("new-member join timeout (KAFKA-7610): a member whose JoinGroup never completes is removed after 5 min")
    void testNewMemberJoinExpiration() {
        // The first member's long session and rebalance timeouts keep the next join phase open.
        int longTimeoutMs = 2 * NEW_MEMBER_JOIN_TIMEOUT_MS;
        List<String> first = dynamicMembersInCompletingRebalance(context, GROUP_ID, 1, longTimeoutMs, longTimeoutMs);
        syncAll(context, GROUP_ID, first);
        String newMember = parkedMemberId(context.join(GROUP_ID).send());
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.group(GROUP_ID).member(newMember).isNew()).isTrue();
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, newMember)).orElseThrow().deadlineMs())
                .isEqualTo(context.nowMs() + NEW_MEMBER_JOIN_TIMEOUT_MS);

        context.sleep(NEW_MEMBER_JOIN_TIMEOUT_MS - 1);
        assertThat(context.group(GROUP_ID).hasMember(newMember)).isTrue();
        assertThat(context.takeJoin(GROUP_ID, newMember)).isNull();

        List<Result> fired = context.sleep(1);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.takeJoin(GROUP_ID, newMember))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, ""));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members().keySet()).containsExactlyElementsOf(first);
        // The first member has not rejoined yet: the join phase goes on.
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(1);
    }

    @Test
    @DisplayName("a session expiry is ignored while the member awaits its JoinGroup answer")
    void testSessionExpiryIgnoredWhileAwaitingJoin() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 2_000);
        syncAll(context, GROUP_ID, members);
        String leader = members.get(0);
        String follower = members.get(1);
        context.join(GROUP_ID).memberId(leader).send();
        assertThat(context.group(GROUP_ID).member(leader).awaitingJoin()).isTrue();
        assertThat(context.group(GROUP_ID).member(leader).isNew()).isFalse();
        context.sleep(400);
        assertThat(context.heartbeat(GROUP_ID, follower, 1).error()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        ClassicGroup before = context.group(GROUP_ID);

        List<Result> fired = context.sleep(100);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEmpty();
        assertThat(fired.get(0).completions()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
        assertThat(context.group(GROUP_ID).hasMember(leader)).isTrue();
    }

    @Test
    @DisplayName("a session expiry is ignored while the member awaits its SyncGroup answer")
    void testSessionExpiryIgnoredWhileAwaitingSync() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 1_000);
        String leader = members.get(0);
        String follower = members.get(1);
        context.sync(GROUP_ID, follower, 1, List.of());
        context.sleep(400);
        assertThat(context.heartbeat(GROUP_ID, leader, 1).error()).isEqualTo(ErrorCode.NONE);
        ClassicGroup before = context.group(GROUP_ID);

        List<Result> fired = context.sleep(100);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEmpty();
        assertThat(fired.get(0).completions()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
        assertThat(context.takeSync(GROUP_ID, follower)).isNull();
        // The leader's assignment still reaches the follower, whose session restarts then.
        context.sync(GROUP_ID, leader, 1, assignmentsFor(members));
        assertThat(context.takeSync(GROUP_ID, follower).error()).isEqualTo(ErrorCode.NONE);
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, follower)).orElseThrow().deadlineMs())
                .isEqualTo(context.nowMs() + 500);
    }

    @Test
    @DisplayName("an OffsetCommit in Stable restarts the committing member's session")
    void testOffsetCommitInStableReschedulesSession() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        context.sleep(400);

        Result commit = context.commit(GROUP_ID, member, 1, "foo", 0, 100L);

        assertThat(commit.timers()).containsExactly(new TimerOp.Schedule(TimerOp.Keys.heartbeat(GROUP_ID, member),
                context.nowMs() + 500, new Command.ExpireMemberSession(GROUP_ID, member)));
        context.sleep(499);
        assertThat(context.group(GROUP_ID).hasMember(member)).isTrue();
        context.sleep(1);
        assertThat(context.group(GROUP_ID).hasMember(member)).isFalse();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.EMPTY);
    }

    @Test
    @DisplayName("a stale FireJoinTimer (an older deadline) changes nothing")
    void testStaleJoinTimerIsIgnored() {
        context.join(GROUP_ID).send();
        long deadlineMs = context.group(GROUP_ID).joinTimer().deadlineMs();

        assertNoOp(new Command.FireJoinTimer(GROUP_ID, deadlineMs - 1));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertNoOp(new Command.FireJoinTimer("unknown-group", deadlineMs));
    }

    @Test
    @DisplayName("a stale FireSyncTimer (an older generation, same deadline) changes nothing")
    void testStaleSyncTimerIsIgnored() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        Command oldTimer = context.timer(TimerOp.Keys.sync(GROUP_ID)).orElseThrow().command();
        // A rejoin with new metadata completes generation 2 at once; its sync timer has the same deadline.
        context.join(GROUP_ID).version(4).memberId(leader)
                .protocols(GroupShardTestContext.protocols("range", "roundrobin")).send();
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.pendingSyncMembers()).containsExactly(leader);
        assertThat(oldTimer).isEqualTo(new Command.FireSyncTimer(GROUP_ID, 1, group.syncTimer().deadlineMs()));

        assertNoOp(oldTimer);
        assertThat(context.group(GROUP_ID).hasMember(leader)).isTrue();
    }

    @Test
    @DisplayName("ExpireMemberSession for a member that is gone changes nothing")
    void testExpireSessionOfGoneMemberIsIgnored() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        context.sleep(500);
        assertThat(context.heartbeat(GROUP_ID, member, 1).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);

        assertNoOp(new Command.ExpireMemberSession(GROUP_ID, member));
        assertNoOp(new Command.ExpireMemberSession(GROUP_ID, "never-a-member"));
        assertNoOp(new Command.ExpireMemberSession("unknown-group", member));
    }

    @Test
    @DisplayName("onLeaderReady: a session per member and pending member, the stored join and sync deadlines, offset expiry")
    void testOnLeaderReadyArmsTimersFromState() {
        String otherGroup = "other-group";
        String leader = parkedMemberId(context.join(GROUP_ID).send());
        String otherLeader = parkedMemberId(context.join(otherGroup).send());
        context.sleep(GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs());
        context.sync(GROUP_ID, leader, 1, assignmentsFor(List.of(leader)));
        String newMember = parkedMemberId(context.join(GROUP_ID).send());
        String pending = ((JoinGroupResponse) context.join(GROUP_ID).version(4).sessionTimeoutMs(700).send()
                .immediateResponse()).memberId();
        ClassicGroup group = context.group(GROUP_ID);
        ClassicGroup other = context.group(otherGroup);
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.syncTimer()).isNull();
        assertThat(other.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(other.joinTimer()).isNull();
        long joinDeadlineMs = group.joinTimer().deadlineMs();
        long syncDeadlineMs = other.syncTimer().deadlineMs();
        long nowMs = 10_000L;

        List<TimerOp> timers = context.shard().onLeaderReady(nowMs);

        assertThat(timers).containsExactly(
                new TimerOp.Schedule(TimerOp.Keys.heartbeat(GROUP_ID, leader), nowMs + 500,
                        new Command.ExpireMemberSession(GROUP_ID, leader)),
                new TimerOp.Schedule(TimerOp.Keys.heartbeat(GROUP_ID, newMember), nowMs + NEW_MEMBER_JOIN_TIMEOUT_MS,
                        new Command.ExpireMemberSession(GROUP_ID, newMember)),
                new TimerOp.Schedule(TimerOp.Keys.heartbeat(GROUP_ID, pending), nowMs + 700,
                        new Command.ExpireMemberSession(GROUP_ID, pending)),
                new TimerOp.Schedule(TimerOp.Keys.join(GROUP_ID), joinDeadlineMs,
                        new Command.FireJoinTimer(GROUP_ID, joinDeadlineMs)),
                new TimerOp.Schedule(TimerOp.Keys.heartbeat(otherGroup, otherLeader), nowMs + 500,
                        new Command.ExpireMemberSession(otherGroup, otherLeader)),
                new TimerOp.Schedule(TimerOp.Keys.sync(otherGroup), syncDeadlineMs,
                        new Command.FireSyncTimer(otherGroup, 1, syncDeadlineMs)),
                new TimerOp.Schedule(TimerOp.Keys.EXPIRE_OFFSETS,
                        nowMs + GroupConfig.DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS, new Command.ExpireOffsets()));
        // The stored deadlines are the ones the previous leader armed.
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID)).orElseThrow().deadlineMs()).isEqualTo(joinDeadlineMs);
        assertThat(context.timer(TimerOp.Keys.sync(otherGroup)).orElseThrow().deadlineMs()).isEqualTo(syncDeadlineMs);
    }
}
