package io.cohort.core.shard;

import static io.cohort.core.shard.GroupShardTestContext.protocols;
import static io.cohort.core.shard.JoinGroupFixtures.CONSUMER;
import static io.cohort.core.shard.JoinGroupFixtures.FOLLOWER_INSTANCE_ID;
import static io.cohort.core.shard.JoinGroupFixtures.GROUP_ID;
import static io.cohort.core.shard.JoinGroupFixtures.LEADER_INSTANCE_ID;
import static io.cohort.core.shard.JoinGroupFixtures.assignmentOf;
import static io.cohort.core.shard.JoinGroupFixtures.groupValueOf;
import static io.cohort.core.shard.JoinGroupFixtures.joinAndCompleteInitialRebalance;
import static io.cohort.core.shard.JoinGroupFixtures.joinResponse;
import static io.cohort.core.shard.JoinGroupFixtures.joined;
import static io.cohort.core.shard.JoinGroupFixtures.mintedMemberId;
import static io.cohort.core.shard.JoinGroupFixtures.parkedMemberId;
import static io.cohort.core.shard.JoinGroupFixtures.staticMembersJoinAndRebalance;
import static io.cohort.core.shard.JoinGroupFixtures.success;
import static io.cohort.core.shard.JoinGroupFixtures.syncAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** JoinGroup of static members (KIP-345, reference 2.11 and 7.2). */
class StaticMembershipTest {
    private static final String INSTANCE_ID = "group-instance-id";
    private static final int DELAY_MS = GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs();

    private final GroupShardTestContext context = new GroupShardTestContext();

    private static JoinGroupResponse fenced(String oldMemberId) {
        return new JoinGroupResponse(ErrorCode.FENCED_INSTANCE_ID, -1, null, null, "", false, oldMemberId, List.of());
    }

    private GroupShardTestContext.JoinBuilder staticJoin(String instanceId) {
        return context.join(GROUP_ID).version(5).instanceId(instanceId);
    }

    @Test
    @DisplayName("case 47: a second join of a parked static instance with MemberId \"\" fences the first; the "
            + "group keeps one member and the second join completes NONE")
    void testJoinGroupReplaceStaticMember() {
        String oldMemberId = parkedMemberId(staticJoin(INSTANCE_ID).sessionTimeoutMs(5_000).send());
        assertThat(context.group(GROUP_ID).numAwaitingJoin()).isEqualTo(1);

        Command.JoinGroup duplicate = staticJoin(INSTANCE_ID).sessionTimeoutMs(5_000).build();
        Result replaced = context.apply(duplicate);

        String newMemberId = mintedMemberId(duplicate);
        assertThat(parkedMemberId(replaced)).isEqualTo(newMemberId).isNotEqualTo(oldMemberId);
        assertThat(replaced.completions()).containsExactly(
                new Result.Completion(ParkKey.join(GROUP_ID, oldMemberId), fenced(oldMemberId)));
        assertThat(replaced.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members()).containsOnlyKeys(newMemberId);
        assertThat(group.numAwaitingJoin()).isEqualTo(1);
        assertThat(group.staticMemberId(INSTANCE_ID)).isEqualTo(newMemberId);
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, oldMemberId))).isEmpty();

        context.sleep(DELAY_MS);

        assertThat(context.takeJoin(GROUP_ID, newMemberId)).isEqualTo(
                success(1, "range", newMemberId, newMemberId, List.of(joined(newMemberId, INSTANCE_ID, "range"))));
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(newMemberId);
        assertThat(context.group(GROUP_ID).numAwaitingJoin()).isZero();
    }

    /** A single static member (v5, ["range"], session 5 s) that completed its join and synced: Stable. */
    private String stableSingleStaticMember() {
        List<String> memberIds = joinAndCompleteInitialRebalance(context, GROUP_ID,
                List.of(staticJoin(INSTANCE_ID).sessionTimeoutMs(5_000)));
        syncAll(context, GROUP_ID, memberIds, List.of(INSTANCE_ID));
        return memberIds.get(0);
    }

    /** Case 49: the static leader restarts with protocols that keep "range" selected. */
    private void replaceStaticLeaderInStableState(int apiVersion) {
        String oldMemberId = stableSingleStaticMember();

        Command.JoinGroup rejoin = context.join(GROUP_ID).version(apiVersion).instanceId(INSTANCE_ID)
                .protocols(protocols("range", "roundrobin")).rebalanceTimeoutMs(7_000).sessionTimeoutMs(4_500).build();
        Result result = context.apply(rejoin);

        String newMemberId = mintedMemberId(rejoin);
        JoinGroupResponse expected = apiVersion >= 9
                ? new JoinGroupResponse(ErrorCode.NONE, 1, CONSUMER, "range", newMemberId, true, newMemberId,
                        List.of(joined(newMemberId, INSTANCE_ID, "range")))
                // Before v9 the old leader id tells the restarted leader not to run an assignment.
                : new JoinGroupResponse(ErrorCode.NONE, 1, CONSUMER, "range", oldMemberId, false, newMemberId,
                        List.of());
        assertThat(joinResponse(result)).isEqualTo(expected);
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));

        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(group.leaderId()).isEqualTo(newMemberId);
        assertThat(group.members()).containsOnlyKeys(newMemberId);
        ClassicGroupMember member = group.member(newMemberId);
        assertThat(member.groupInstanceId()).isEqualTo(INSTANCE_ID);
        assertThat(member.rebalanceTimeoutMs()).isEqualTo(7_000);
        assertThat(member.sessionTimeoutMs()).isEqualTo(4_500);
        assertThat(member.protocols()).isEqualTo(protocols("range", "roundrobin"));
        assertThat(member.assignment()).isEqualTo(assignmentOf(oldMemberId));
        assertThat(member.awaitingJoin()).isFalse();
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, oldMemberId))).isEmpty();
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, newMemberId))).isPresent();
    }

    @Test
    @DisplayName("case 49: a v9 static leader replaced in Stable with the selected protocol unchanged: one "
            + "record, no rebalance, NONE with SkipAssignment=true and the member list")
    void testReplaceStaticMemberInStableStateNoErrorSkipAssignment() {
        replaceStaticLeaderInStableState(9);
    }

    @Test
    @DisplayName("case 49: a pre-v9 static leader replaced in Stable with the selected protocol unchanged: one "
            + "record, no rebalance, NONE with the old leader id")
    void testReplaceStaticMemberInStableStateNoErrorOldLeaderId() {
        replaceStaticLeaderInStableState(8);
    }

    @Test
    @DisplayName("case 49: a static follower replaced in Stable with a protocol subset keeping \"range\": one "
            + "record; the old id is fenced and the new id syncs its assignment")
    void testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        String oldFollowerId = statics.followerId();

        Command.JoinGroup rejoin = context.join(GROUP_ID).version(9).instanceId(FOLLOWER_INSTANCE_ID)
                .protocols(protocols("range")).build();
        Result result = context.apply(rejoin);

        String newFollowerId = mintedMemberId(rejoin);
        assertThat(joinResponse(result)).isEqualTo(success(1, "range", statics.leaderId(), newFollowerId, List.of()));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(statics.leaderId(), newFollowerId);

        Result oldIdJoin = staticJoin(FOLLOWER_INSTANCE_ID).memberId(oldFollowerId).send();
        assertThat(joinResponse(oldIdJoin)).isEqualTo(JoinGroupResponse.error(ErrorCode.FENCED_INSTANCE_ID,
                oldFollowerId));
        assertThat(oldIdJoin.records()).isEmpty();

        Result oldIdSync = context.apply(new Command.SyncGroup(GROUP_ID, 1, oldFollowerId, FOLLOWER_INSTANCE_ID, null,
                null, List.of()));
        assertThat(oldIdSync.immediateResponse()).isEqualTo(SyncGroupResponse.error(ErrorCode.FENCED_INSTANCE_ID));

        Result newIdSync = context.apply(new Command.SyncGroup(GROUP_ID, 1, newFollowerId, FOLLOWER_INSTANCE_ID, null,
                null, List.of()));
        assertThat(newIdSync.immediateResponse()).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, CONSUMER, "range", assignmentOf(oldFollowerId)));
    }

    @Test
    @DisplayName("case 51: a single static member replaced in CompletingRebalance always rebalances: NONE, "
            + "generation 2, CompletingRebalance")
    void testReplaceStaticMemberInCompletingRebalanceStateTriggersRebalance() {
        joinAndCompleteInitialRebalance(context, GROUP_ID, List.of(staticJoin(INSTANCE_ID)));
        assertThat(context.group(GROUP_ID).generationId()).isEqualTo(1);

        Command.JoinGroup rejoin = staticJoin(INSTANCE_ID).build();
        Result result = context.apply(rejoin);

        String newMemberId = mintedMemberId(rejoin);
        assertThat(joinResponse(result)).isEqualTo(
                success(2, "range", newMemberId, newMemberId, List.of(joined(newMemberId, INSTANCE_ID, "range"))));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members()).containsOnlyKeys(newMemberId);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    @DisplayName("case 53: a follower parked in JoinGroup is fenced (FENCED_INSTANCE_ID, generation -1) when a "
            + "duplicate of its instance joins with MemberId \"\"")
    void testStaticMemberFenceDuplicateRejoinedFollower() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        // A new dynamic member starts a rebalance.
        parkedMemberId(context.join(GROUP_ID).send());
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        Result oldFollowerJoin = staticJoin(FOLLOWER_INSTANCE_ID).memberId(statics.followerId())
                .protocols(protocols("range", "roundrobin")).send();
        assertThat(parkedMemberId(oldFollowerJoin)).isEqualTo(statics.followerId());

        Command.JoinGroup duplicate = staticJoin(FOLLOWER_INSTANCE_ID).protocols(protocols("range", "roundrobin"))
                .build();
        Result duplicateJoin = context.apply(duplicate);

        assertThat(parkedMemberId(duplicateJoin)).isEqualTo(mintedMemberId(duplicate));
        assertThat(duplicateJoin.completions()).containsExactly(new Result.Completion(
                ParkKey.join(GROUP_ID, statics.followerId()), fenced(statics.followerId())));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.group(GROUP_ID).staticMemberId(FOLLOWER_INSTANCE_ID)).isEqualTo(mintedMemberId(duplicate));
        assertThat(context.group(GROUP_ID).hasMember(statics.followerId())).isFalse();
    }

    @Test
    @DisplayName("case 53: a follower parked in SyncGroup is fenced when a duplicate of its instance joins; the "
            + "group rebalances and completes with the duplicate once the leader's session expires")
    void testStaticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        String leaderId = statics.leaderId();
        String oldFollowerId = statics.followerId();

        parkedMemberId(staticJoin(LEADER_INSTANCE_ID).memberId(leaderId).protocols(protocols("range", "roundrobin"))
                .rebalanceTimeoutMs(10_000).send());
        Result oldFollowerJoin = staticJoin(FOLLOWER_INSTANCE_ID).memberId(oldFollowerId)
                .protocols(protocols("range", "roundrobin")).rebalanceTimeoutMs(10_000).send();
        assertThat(joinResponse(oldFollowerJoin)).isEqualTo(success(2, "range", leaderId, oldFollowerId, List.of()));
        assertThat(context.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(2, "range", leaderId, leaderId, List.of(
                joined(leaderId, LEADER_INSTANCE_ID, "range"), joined(oldFollowerId, FOLLOWER_INSTANCE_ID, "range"))));

        Result oldFollowerSync = context.apply(new Command.SyncGroup(GROUP_ID, 2, oldFollowerId, FOLLOWER_INSTANCE_ID,
                null, null, List.of()));
        assertThat(oldFollowerSync.reply()).isEqualTo(new Result.Reply.Parked(ParkKey.sync(GROUP_ID, oldFollowerId)));

        Command.JoinGroup duplicate = staticJoin(FOLLOWER_INSTANCE_ID).protocols(protocols("range", "roundrobin"))
                .rebalanceTimeoutMs(10_000).build();
        String duplicateId = mintedMemberId(duplicate);
        Result duplicateJoin = context.apply(duplicate);

        assertThat(parkedMemberId(duplicateJoin)).isEqualTo(duplicateId);
        assertThat(duplicateJoin.completions()).containsExactly(new Result.Completion(
                ParkKey.sync(GROUP_ID, oldFollowerId), SyncGroupResponse.error(ErrorCode.FENCED_INSTANCE_ID)));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        // The leader never rejoins: its session (500 ms since its last rejoin) expires and removes it, which
        // completes the join phase with the duplicate alone.
        context.sleep(10_000);

        assertThat(context.takeJoin(GROUP_ID, duplicateId)).isEqualTo(
                success(3, "range", duplicateId, duplicateId, List.of(joined(duplicateId, FOLLOWER_INSTANCE_ID, "range"))));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(3);
        assertThat(group.members()).containsOnlyKeys(duplicateId);
    }

    @Test
    @DisplayName("case 55: a known member id with an unknown instance id is UNKNOWN_MEMBER_ID; an instance id "
            + "held by another member id is FENCED_INSTANCE_ID")
    void testStaticMemberJoinWithUnknownInstanceIdAndKnownMemberId() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result unknownInstance = staticJoin("unknown-instance-id").memberId(statics.leaderId())
                .protocols(protocols("range", "roundrobin")).send();
        Result otherMemberId = staticJoin(LEADER_INSTANCE_ID).memberId(statics.followerId())
                .protocols(protocols("range", "roundrobin")).send();
        Result unknownMemberId = staticJoin(LEADER_INSTANCE_ID).memberId("unknown-member-id")
                .protocols(protocols("range", "roundrobin")).send();

        assertThat(joinResponse(unknownInstance))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, statics.leaderId()));
        assertThat(joinResponse(otherMemberId))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.FENCED_INSTANCE_ID, statics.followerId()));
        assertThat(joinResponse(unknownMemberId))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.FENCED_INSTANCE_ID, "unknown-member-id"));
        for (Result result : List.of(unknownInstance, otherMemberId, unknownMemberId)) {
            assertThat(result.records()).isEmpty();
            assertThat(result.completions()).isEmpty();
        }
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 57: a static follower rejoining a Stable group with its known id and the same protocols "
            + "gets NONE at once: same generation and leader, no record")
    void testStaticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = staticJoin(FOLLOWER_INSTANCE_ID).memberId(statics.followerId()).version(9)
                .protocols(protocols("range", "roundrobin")).send();

        assertThat(joinResponse(result))
                .isEqualTo(success(1, "range", statics.leaderId(), statics.followerId(), List.of()));
        assertThat(result.records()).isEmpty();
        assertThat(result.completions()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
        assertThat(context.group(GROUP_ID).staticMemberId(LEADER_INSTANCE_ID)).isEqualTo(statics.leaderId());
    }

    @Test
    @DisplayName("a static member replaced during PreparingRebalance counts as rejoined and can complete the join "
            + "phase at once")
    void testReplaceStaticMemberInPreparingRebalanceCompletesJoin() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        String leaderId = statics.leaderId();
        parkedMemberId(staticJoin(LEADER_INSTANCE_ID).memberId(leaderId).protocols(protocols("range", "roundrobin"))
                .send());
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        Command.JoinGroup restart = staticJoin(FOLLOWER_INSTANCE_ID).protocols(protocols("range", "roundrobin"))
                .build();
        Result result = context.apply(restart);

        String newFollowerId = mintedMemberId(restart);
        assertThat(joinResponse(result)).isEqualTo(success(2, "range", leaderId, newFollowerId, List.of()));
        assertThat(context.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(2, "range", leaderId, leaderId, List.of(
                joined(leaderId, LEADER_INSTANCE_ID, "range"), joined(newFollowerId, FOLLOWER_INSTANCE_ID, "range"))));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(leaderId, newFollowerId);
    }

    @Test
    @DisplayName("case 59: when the static leader does not rejoin before the rebalance timeout, a rejoined member "
            + "leads the next generation and the old leader stays listed")
    void testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout() {
        // A session longer than the rebalance timeout, so the leader is not evicted meanwhile.
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID, 10_000, 15_000);
        String newMemberId = parkedMemberId(staticJoin("new-member-instance-id")
                .protocols(protocols("range", "roundrobin")).send());
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        parkedMemberId(staticJoin(FOLLOWER_INSTANCE_ID).memberId(statics.followerId())
                .protocols(protocols("range", "roundrobin")).send());

        context.sleep(10_000);

        String followerId = statics.followerId();
        assertThat(context.takeJoin(GROUP_ID, followerId)).isEqualTo(success(2, "range", followerId, followerId,
                List.of(joined(statics.leaderId(), LEADER_INSTANCE_ID, "range"),
                        joined(followerId, FOLLOWER_INSTANCE_ID, "range"),
                        joined(newMemberId, "new-member-instance-id", "range"))));
        assertThat(context.takeJoin(GROUP_ID, newMemberId))
                .isEqualTo(success(2, "range", followerId, newMemberId, List.of()));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.leaderId()).isEqualTo(followerId);
        assertThat(group.members()).containsOnlyKeys(statics.leaderId(), followerId, newMemberId);
    }

    @Test
    @DisplayName("case 59: a static follower that does not rejoin before the rebalance timeout is kept and "
            + "listed; the leader keeps leading")
    void testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID, 10_000, 15_000);
        String leaderId = statics.leaderId();
        String newMemberId = parkedMemberId(staticJoin("new-member-instance-id")
                .protocols(protocols("range", "roundrobin")).send());
        parkedMemberId(staticJoin(LEADER_INSTANCE_ID).memberId(leaderId).protocols(protocols("range", "roundrobin"))
                .send());

        context.sleep(10_000);

        assertThat(context.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(2, "range", leaderId, leaderId, List.of(
                joined(leaderId, LEADER_INSTANCE_ID, "range"),
                joined(statics.followerId(), FOLLOWER_INSTANCE_ID, "range"),
                joined(newMemberId, "new-member-instance-id", "range"))));
        assertThat(context.takeJoin(GROUP_ID, newMemberId))
                .isEqualTo(success(2, "range", leaderId, newMemberId, List.of()));
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(leaderId, statics.followerId(), newMemberId);
    }

    @Test
    @DisplayName("case 61: every static rejoin with MemberId \"\" yields a different member id")
    void testGetDifferentStaticMemberIdAfterEachRejoin() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID);
        List<String> memberIds = new ArrayList<>(List.of(statics.leaderId()));

        for (int i = 0; i < 5; i++) {
            Result result = staticJoin(LEADER_INSTANCE_ID).version(9).protocols(protocols("range", "roundrobin"))
                    .send();
            JoinGroupResponse response = joinResponse(result);
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.memberId()).isEqualTo(context.group(GROUP_ID).staticMemberId(LEADER_INSTANCE_ID));
            assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
            memberIds.add(response.memberId());
        }

        assertThat(memberIds).doesNotHaveDuplicates();
        assertThat(context.group(GROUP_ID).generationId()).isEqualTo(1);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    @DisplayName("a static member replaced in Stable with protocols that change the selected protocol triggers a "
            + "rebalance")
    void testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged() {
        JoinGroupFixtures.StaticGroup statics = staticMembersJoinAndRebalance(context, GROUP_ID, 10_000, 15_000);

        Command.JoinGroup rejoin = staticJoin(FOLLOWER_INSTANCE_ID).protocols(protocols("roundrobin"))
                .rebalanceTimeoutMs(10_000).sessionTimeoutMs(15_000).build();
        Result result = context.apply(rejoin);

        String newFollowerId = mintedMemberId(rejoin);
        assertThat(parkedMemberId(result)).isEqualTo(newFollowerId);
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        // The old leader does not rejoin in time: the new follower id is elected and "roundrobin" selected.
        context.sleep(10_000);

        assertThat(context.takeJoin(GROUP_ID, newFollowerId)).isEqualTo(success(2, "roundrobin", newFollowerId,
                newFollowerId, List.of(joined(statics.leaderId(), LEADER_INSTANCE_ID, "roundrobin"),
                        joined(newFollowerId, FOLLOWER_INSTANCE_ID, "roundrobin"))));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.protocolName()).isEqualTo("roundrobin");
        assertThat(group.staticMemberId(LEADER_INSTANCE_ID)).isEqualTo(statics.leaderId());
    }
}
