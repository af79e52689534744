package io.cohort.core.shard;

import static io.cohort.core.shard.GroupShardTestContext.protocols;
import static io.cohort.core.shard.JoinGroupFixtures.GROUP_ID;
import static io.cohort.core.shard.JoinGroupFixtures.groupValueOf;
import static io.cohort.core.shard.JoinGroupFixtures.joinAndCompleteInitialRebalance;
import static io.cohort.core.shard.JoinGroupFixtures.joinResponse;
import static io.cohort.core.shard.JoinGroupFixtures.joined;
import static io.cohort.core.shard.JoinGroupFixtures.parkedMemberId;
import static io.cohort.core.shard.JoinGroupFixtures.recordsOf;
import static io.cohort.core.shard.JoinGroupFixtures.replayTransitions;
import static io.cohort.core.shard.JoinGroupFixtures.stableDynamicGroup;
import static io.cohort.core.shard.JoinGroupFixtures.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.Protocol;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * When and how a join phase completes (reference 2.2-2.6): the initial-rebalance delay, rejoins of
 * known members in each state, removal of members that did not rejoin, generations, and protocol
 * selection.
 */
class JoinGroupRebalanceTest {
    private static final int DELAY_MS = GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs();

    private final GroupShardTestContext context = new GroupShardTestContext();

    private static List<Protocol> changedRangeMetadata() {
        return List.of(new Protocol("range", Bytes.copyOf("changed".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    @DisplayName("case 27: the first member of an Empty group waits group.initial.rebalance.delay.ms, then "
            + "gets NONE")
    void testDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup() {
        String memberId = parkedMemberId(context.join(GROUP_ID).send());

        assertThat(context.sleep(DELAY_MS / 2)).isEmpty();
        assertThat(context.sleep(DELAY_MS / 2 - 1)).isEmpty();
        assertThat(context.takeJoin(GROUP_ID, memberId)).isNull();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        List<Result> fired = context.sleep(1);

        assertThat(context.takeJoin(GROUP_ID, memberId)).isEqualTo(
                success(1, "range", memberId, memberId, List.of(joined(memberId, null, "range"))));
        assertThat(recordsOf(fired)).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    @DisplayName("case 29: members that keep arriving extend the initial rebalance only up to the rebalance "
            + "timeout (2 x delay); all get NONE")
    void testDelayRebalanceUptoRebalanceTimeout() {
        int rebalanceTimeoutMs = 2 * DELAY_MS;
        List<String> memberIds = new ArrayList<>();
        memberIds.add(parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send()));
        memberIds.add(parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send()));

        // The second member joined during the delay: one more delay, which uses up the budget.
        context.sleep(DELAY_MS);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID))).get()
                .extracting(TimerOp.Schedule::deadlineMs).isEqualTo((long) rebalanceTimeoutMs);
        memberIds.add(parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send()));

        assertThat(context.sleep(DELAY_MS - 1)).isEmpty();
        // A member arriving just before the bound does not push the completion further.
        memberIds.add(parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send()));
        for (String memberId : memberIds) {
            assertThat(context.takeJoin(GROUP_ID, memberId)).isNull();
        }

        List<Result> fired = context.sleep(1);

        // One firing completes the phase: with the budget spent, the timer is not re-armed.
        assertThat(fired).hasSize(1);
        assertThat(context.nowMs()).isEqualTo(rebalanceTimeoutMs);
        List<ClassicGroup.JoinedMember> members = memberIds.stream().map(id -> joined(id, null, "range")).toList();
        String leaderId = memberIds.get(0);
        assertThat(context.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(1, "range", leaderId, leaderId, members));
        for (String followerId : memberIds.subList(1, memberIds.size())) {
            assertThat(context.takeJoin(GROUP_ID, followerId))
                    .isEqualTo(success(1, "range", leaderId, followerId, List.of()));
        }
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    @DisplayName("each wave of joiners during the initial rebalance extends the wait by one delay, bounded by "
            + "the rebalance timeout (3 x delay)")
    void testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance() {
        int rebalanceTimeoutMs = 3 * DELAY_MS;
        List<String> memberIds = new ArrayList<>();
        memberIds.add(parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send()));

        for (int wave = 1; wave <= 3; wave++) {
            assertThat(context.sleep(DELAY_MS - 1)).isEmpty();
            memberIds.add(parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send()));
            assertThat(context.sleep(1)).hasSize(1);
            if (wave < 3) {
                // The delay fired with a new member and budget left: wait one more delay.
                assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
                assertThat(context.timer(TimerOp.Keys.join(GROUP_ID))).get().extracting(TimerOp.Schedule::deadlineMs)
                        .isEqualTo((long) (wave + 1) * DELAY_MS);
                for (String memberId : memberIds) {
                    assertThat(context.takeJoin(GROUP_ID, memberId)).isNull();
                }
            }
        }

        // The third wave arrived too, but the budget was spent: the phase completed at the bound.
        assertThat(context.nowMs()).isEqualTo(rebalanceTimeoutMs);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(memberIds);
        for (String memberId : memberIds) {
            JoinGroupResponse response = context.takeJoin(GROUP_ID, memberId);
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.generationId()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("Kafka's rule: a rebalance timeout shorter than the initial delay does not shorten the first "
            + "wait (group.initial.rebalance.delay.ms), it only leaves no budget for extending it")
    void testRebalanceTimeoutShorterThanTheInitialDelayNeitherShortensNorExtendsIt() {
        int rebalanceTimeoutMs = 100;
        String firstId = parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send());

        // The 100 ms rebalance timeout passes: the group keeps waiting for the whole delay.
        assertThat(context.sleep(rebalanceTimeoutMs)).isEmpty();
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID))).get().extracting(TimerOp.Schedule::deadlineMs)
                .isEqualTo((long) DELAY_MS);
        String secondId = parkedMemberId(context.join(GROUP_ID).rebalanceTimeoutMs(rebalanceTimeoutMs).send());
        assertThat(context.sleep(DELAY_MS - rebalanceTimeoutMs - 1)).isEmpty();
        assertThat(context.takeJoin(GROUP_ID, firstId)).isNull();

        // At the delay the phase completes, although a member arrived during it: remaining budget
        // max(100 - 3000, 0) = 0, so no further delay.
        assertThat(context.sleep(1)).hasSize(1);
        assertThat(context.nowMs()).isEqualTo(DELAY_MS);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.takeJoin(GROUP_ID, firstId).error()).isEqualTo(ErrorCode.NONE);
        assertThat(context.takeJoin(GROUP_ID, secondId).error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    @DisplayName("case 31: the leader of a Stable group rejoining with identical metadata rebalances: NONE, "
            + "generation 2")
    void testJoinGroupAsExistingLeaderTriggersRebalanceInStableState() {
        String memberId = context.stableGroupWithOneMember(GROUP_ID);

        Result result = context.join(GROUP_ID).version(4).memberId(memberId).send();

        assertThat(joinResponse(result)).isEqualTo(
                success(2, "range", memberId, memberId, List.of(joined(memberId, null, "range"))));
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.group(GROUP_ID).generationId()).isEqualTo(2);
    }

    @Test
    @DisplayName("case 33: a dynamic leader that does not rejoin within the rebalance timeout is removed; the "
            + "new member leads generation 2 alone")
    void testCompleteJoinRemoveNotYetRejoinedDynamicMembers() {
        // A session longer than the rebalance timeout: only the join phase's end can remove the leader.
        String leaderId = joinAndCompleteInitialRebalance(context, GROUP_ID,
                List.of(context.join(GROUP_ID).sessionTimeoutMs(5_000).rebalanceTimeoutMs(1_000))).get(0);

        Result newMemberJoin = context.join(GROUP_ID).sessionTimeoutMs(5_000).rebalanceTimeoutMs(1_000).send();
        String newMemberId = parkedMemberId(newMemberJoin);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(leaderId, newMemberId);

        assertThat(context.sleep(999)).isEmpty();
        assertThat(context.takeJoin(GROUP_ID, newMemberId)).isNull();

        List<Result> fired = context.sleep(1);

        assertThat(context.takeJoin(GROUP_ID, newMemberId)).isEqualTo(
                success(2, "range", newMemberId, newMemberId, List.of(joined(newMemberId, null, "range"))));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.members()).containsOnlyKeys(newMemberId);
        assertThat(group.leaderId()).isEqualTo(newMemberId);
        assertThat(group.generationId()).isEqualTo(2);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(recordsOf(fired)).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, leaderId))).isEmpty();
    }

    @Test
    @DisplayName("case 35: the join timer of a group that became Dead completes nothing: generation stays 0")
    void testCompleteJoinPhaseInEmptyStateSkipsRebalance() {
        String memberId = parkedMemberId(context.join(GROUP_ID).sessionTimeoutMs(1_000).rebalanceTimeoutMs(1_000)
                .send());
        assertThat(context.group(GROUP_ID).generationId()).isZero();
        replayTransitions(context, GROUP_ID, ClassicGroupState.DEAD);
        ClassicGroup dead = context.group(GROUP_ID);

        List<Result> fired = context.sleep(DELAY_MS);

        assertThat(fired).isNotEmpty();
        assertThat(recordsOf(fired)).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(dead);
        assertThat(context.group(GROUP_ID).generationId()).isZero();
        assertThat(context.takeJoin(GROUP_ID, memberId)).isNull();
    }

    @Test
    @DisplayName("case 41: every completed join phase increments the generation by exactly 1, also when it "
            + "ends Empty")
    void testGenerationIdIncrementsOnRebalance() {
        String memberId = context.stableGroupWithOneMember(GROUP_ID);

        for (int expected = 2; expected <= 4; expected++) {
            JoinGroupResponse response = joinResponse(context.join(GROUP_ID).version(4).memberId(memberId).send());
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.generationId()).isEqualTo(expected);
            assertThat(context.group(GROUP_ID).generationId()).isEqualTo(expected);
            context.sync(GROUP_ID, memberId, expected, List.of(new Command.MemberAssignment(memberId, Bytes.EMPTY)));
            assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
        }

        context.apply(new Command.LeaveGroup(GROUP_ID, List.of(new Command.LeavingMember(memberId, null, null))));

        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group.generationId()).isEqualTo(5);
        assertThat(group.protocolName()).isNull();
        assertThat(group.leaderId()).isNull();
    }

    @Test
    @DisplayName("a non-initial rebalance completes as soon as every member has rejoined, without waiting for "
            + "the rebalance timeout")
    void testNonInitialRebalanceCompletesWhenAllMembersRejoined() {
        List<String> memberIds = stableDynamicGroup(context, GROUP_ID, 2, 10_000, 10_000);
        String leaderId = memberIds.get(0);
        String followerId = memberIds.get(1);

        Result leaderRejoin = context.join(GROUP_ID).memberId(leaderId).send();
        assertThat(parkedMemberId(leaderRejoin)).isEqualTo(leaderId);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID))).get().extracting(TimerOp.Schedule::deadlineMs)
                .isEqualTo(context.nowMs() + 10_000);

        Result followerRejoin = context.join(GROUP_ID).memberId(followerId).send();

        assertThat(joinResponse(followerRejoin)).isEqualTo(success(2, "range", leaderId, followerId, List.of()));
        assertThat(followerRejoin.completions()).containsExactly(new Result.Completion(ParkKey.join(GROUP_ID, leaderId),
                success(2, "range", leaderId, leaderId,
                        List.of(joined(leaderId, null, "range"), joined(followerId, null, "range")))));
        assertThat(followerRejoin.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID))).isEmpty();
    }

    @Test
    @DisplayName("a pending member (MEMBER_ID_REQUIRED) holds a non-initial join phase open until it joins")
    void testJoinGroupCompletionWhenPendingMemberJoins() {
        String leaderId = stableDynamicGroup(context, GROUP_ID, 1, 10_000, 10_000).get(0);
        String pendingId = joinResponse(context.join(GROUP_ID).version(4).send()).memberId();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);

        parkedMemberId(context.join(GROUP_ID).version(4).memberId(leaderId).send());
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        Result pendingJoin = context.join(GROUP_ID).version(4).memberId(pendingId).send();

        assertThat(joinResponse(pendingJoin)).isEqualTo(success(2, "range", leaderId, pendingId, List.of()));
        assertThat(context.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(2, "range", leaderId, leaderId,
                List.of(joined(leaderId, null, "range"), joined(pendingId, null, "range"))));
        assertThat(context.group(GROUP_ID).pendingMembers()).isEmpty();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    @DisplayName("an unchanged follower rejoining a Stable group gets the current generation at once, with no "
            + "record")
    void testStableFollowerRejoinWithUnchangedMetadataGetsCurrentGeneration() {
        List<String> memberIds = stableDynamicGroup(context, GROUP_ID, 2, 10_000, 10_000);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = context.join(GROUP_ID).memberId(memberIds.get(1)).send();

        assertThat(joinResponse(result)).isEqualTo(success(1, "range", memberIds.get(0), memberIds.get(1), List.of()));
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(result.completions()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("a follower rejoining a Stable group with changed metadata triggers a rebalance")
    void testJoinGroupAsExistingMemberWithUpdatedMetadataTriggersRebalanceInStableState() {
        List<String> memberIds = stableDynamicGroup(context, GROUP_ID, 2, 10_000, 10_000);
        String leaderId = memberIds.get(0);
        String followerId = memberIds.get(1);

        Result followerRejoin = context.join(GROUP_ID).memberId(followerId).protocols(changedRangeMetadata()).send();

        assertThat(parkedMemberId(followerRejoin)).isEqualTo(followerId);
        assertThat(followerRejoin.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        Result leaderRejoin = context.join(GROUP_ID).memberId(leaderId).send();

        assertThat(joinResponse(leaderRejoin)).isEqualTo(success(2, "range", leaderId, leaderId, List.of(
                joined(leaderId, null, "range"),
                new ClassicGroup.JoinedMember(followerId, null, changedRangeMetadata().get(0).metadata()))));
        assertThat(context.takeJoin(GROUP_ID, followerId)).isEqualTo(success(2, "range", leaderId, followerId,
                List.of()));
    }

    @Test
    @DisplayName("an unchanged member retrying JoinGroup in CompletingRebalance gets the current generation; the "
            + "leader also gets the member list")
    void testCompletingRebalanceRetryGetsCurrentGeneration() {
        List<String> memberIds = joinAndCompleteInitialRebalance(context, GROUP_ID, List.of(
                context.join(GROUP_ID).sessionTimeoutMs(10_000).rebalanceTimeoutMs(10_000),
                context.join(GROUP_ID).sessionTimeoutMs(10_000).rebalanceTimeoutMs(10_000)));
        String leaderId = memberIds.get(0);
        String followerId = memberIds.get(1);
        ClassicGroup before = context.group(GROUP_ID);

        Result followerRetry = context.join(GROUP_ID).memberId(followerId).send();
        Result leaderRetry = context.join(GROUP_ID).memberId(leaderId).send();

        assertThat(joinResponse(followerRetry)).isEqualTo(success(1, "range", leaderId, followerId, List.of()));
        assertThat(joinResponse(leaderRetry)).isEqualTo(success(1, "range", leaderId, leaderId,
                List.of(joined(leaderId, null, "range"), joined(followerId, null, "range"))));
        for (Result result : List.of(followerRetry, leaderRetry)) {
            assertThat(result.records()).isEmpty();
            assertThat(result.completions()).isEmpty();
        }
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("a member rejoining in CompletingRebalance with changed metadata rebalances; parked syncs get "
            + "REBALANCE_IN_PROGRESS")
    void testCompletingRebalanceRejoinWithChangedMetadataRebalances() {
        List<String> memberIds = joinAndCompleteInitialRebalance(context, GROUP_ID, List.of(
                context.join(GROUP_ID).sessionTimeoutMs(10_000).rebalanceTimeoutMs(10_000),
                context.join(GROUP_ID).sessionTimeoutMs(10_000).rebalanceTimeoutMs(10_000)));
        String leaderId = memberIds.get(0);
        String followerId = memberIds.get(1);
        assertThat(context.sync(GROUP_ID, followerId, 1, List.of()).reply()).isInstanceOf(Result.Reply.Parked.class);

        Result leaderRejoin = context.join(GROUP_ID).memberId(leaderId).protocols(changedRangeMetadata()).send();

        assertThat(parkedMemberId(leaderRejoin)).isEqualTo(leaderId);
        assertThat(leaderRejoin.completions()).containsExactly(new Result.Completion(ParkKey.sync(GROUP_ID, followerId),
                new SyncGroupResponse(ErrorCode.REBALANCE_IN_PROGRESS, "consumer", "range", Bytes.EMPTY)));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        Result followerRejoin = context.join(GROUP_ID).memberId(followerId).send();

        assertThat(joinResponse(followerRejoin)).isEqualTo(success(2, "range", leaderId, followerId, List.of()));
    }

    /** Joins one member per protocol list to a fresh group and returns the protocol it selects. */
    private static String selectedProtocol(List<List<String>> memberProtocols) {
        GroupShardTestContext fresh = new GroupShardTestContext();
        List<GroupShardTestContext.JoinBuilder> joins = memberProtocols.stream()
                .map(names -> fresh.join(GROUP_ID).protocols(protocols(names.toArray(String[]::new))))
                .toList();
        List<String> memberIds = new ArrayList<>();
        for (GroupShardTestContext.JoinBuilder join : joins) {
            memberIds.add(parkedMemberId(join.send()));
        }
        fresh.sleep(DELAY_MS);
        String selected = fresh.group(GROUP_ID).protocolName();
        String leaderId = memberIds.get(0);
        assertThat(fresh.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(1, selected, leaderId, leaderId,
                memberIds.stream().map(id -> joined(id, null, selected)).toList()));
        for (String followerId : memberIds.subList(1, memberIds.size())) {
            assertThat(fresh.takeJoin(GROUP_ID, followerId))
                    .isEqualTo(success(1, selected, leaderId, followerId, List.of()));
        }
        return selected;
    }

    @Test
    @DisplayName("the protocol is selected among those every member supports")
    void testProtocolSelectionAmongProtocolsAllMembersSupport() {
        assertThat(selectedProtocol(List.of(
                List.of("range", "roundrobin"), List.of("roundrobin", "range"), List.of("roundrobin"))))
                .isEqualTo("roundrobin");
    }

    @Test
    @DisplayName("the protocol is selected by vote: each member's first supported preference")
    void testProtocolSelectionByVote() {
        // The first member prefers "range", but two of three members vote "roundrobin".
        assertThat(selectedProtocol(List.of(
                List.of("range", "roundrobin"), List.of("roundrobin", "range"), List.of("roundrobin", "range"))))
                .isEqualTo("roundrobin");
    }

    @Test
    @DisplayName("a tied vote goes to the first member's preference (deterministic on every replica)")
    void testProtocolSelectionTieBrokenByFirstMemberPreference() {
        assertThat(selectedProtocol(List.of(List.of("range", "roundrobin"), List.of("roundrobin", "range"))))
                .isEqualTo("range");
        assertThat(selectedProtocol(List.of(List.of("roundrobin", "range"), List.of("range", "roundrobin"))))
                .isEqualTo("roundrobin");
    }

    @Test
    @DisplayName("a member supporting none of the protocols all current members support is "
            + "INCONSISTENT_GROUP_PROTOCOL")
    void testJoinGroupInconsistentGroupProtocol() {
        String firstId = parkedMemberId(context.join(GROUP_ID).protocols(protocols("range")).send());
        String secondId = parkedMemberId(context.join(GROUP_ID).protocols(protocols("range", "roundrobin")).send());
        ClassicGroup before = context.group(GROUP_ID);

        Result newMember = context.join(GROUP_ID).protocols(protocols("roundrobin")).send();
        // The rejoining member's own old protocols count: "roundrobin" is not supported by the first member.
        Result knownMember = context.join(GROUP_ID).memberId(secondId).protocols(protocols("roundrobin")).send();

        assertThat(joinResponse(newMember))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
        assertThat(joinResponse(knownMember))
                .isEqualTo(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, secondId));
        for (Result result : List.of(newMember, knownMember)) {
            assertThat(result.records()).isEmpty();
            assertThat(result.timers()).isEmpty();
            assertThat(result.completions()).isEmpty();
        }
        assertThat(context.group(GROUP_ID)).isEqualTo(before);

        // A member that supports a common protocol, even as its second choice, is admitted.
        String thirdId = parkedMemberId(context.join(GROUP_ID).protocols(protocols("roundrobin", "range")).send());
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(firstId, secondId, thirdId);
    }
}
