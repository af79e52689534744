package io.cohort.core.shard;

import static io.cohort.core.shard.GroupShardTestContext.protocols;
import static io.cohort.core.shard.JoinGroupFixtures.CONSUMER;
import static io.cohort.core.shard.JoinGroupFixtures.GROUP_ID;
import static io.cohort.core.shard.JoinGroupFixtures.joinResponse;
import static io.cohort.core.shard.JoinGroupFixtures.joined;
import static io.cohort.core.shard.JoinGroupFixtures.parkedMemberId;
import static io.cohort.core.shard.JoinGroupFixtures.success;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** group.max.size admission of classic groups (reference 2.9, KIP-389, KAFKA-9885). */
class JoinGroupMaxSizeTest {
    private static final int MAX_SIZE = 10;
    private static final int DELAY_MS = GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs();

    private final GroupShardTestContext context =
            new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG.withMaxGroupSize(MAX_SIZE));

    private static final JoinGroupResponse MAX_SIZE_REACHED =
            JoinGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, "");

    /** Eleven v4 joins with MemberId "": every one gets MEMBER_ID_REQUIRED and stays pending. */
    private List<String> elevenPendingMembers() {
        List<String> memberIds = new ArrayList<>();
        for (int i = 0; i < MAX_SIZE + 1; i++) {
            JoinGroupResponse response = joinResponse(context.join(GROUP_ID).version(4).send());
            assertThat(response.error()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
            memberIds.add(response.memberId());
        }
        assertThat(memberIds).doesNotHaveDuplicates();
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group.members()).isEmpty();
        assertThat(group.pendingMembers()).containsOnlyKeys(memberIds);
        return memberIds;
    }

    /** The second round: the first ten park, the eleventh is refused and leaves the pending set. */
    private List<String> secondRoundAdmitsTen(List<String> memberIds) {
        List<String> accepted = memberIds.subList(0, MAX_SIZE);
        String rejected = memberIds.get(MAX_SIZE);
        for (String memberId : accepted) {
            assertThat(parkedMemberId(context.join(GROUP_ID).version(4).memberId(memberId).send())).isEqualTo(memberId);
        }
        Result refused = context.join(GROUP_ID).version(4).memberId(rejected).send();
        assertThat(joinResponse(refused)).isEqualTo(MAX_SIZE_REACHED);
        assertThat(refused.records()).containsExactly(new CoordinatorRecord.GroupValue(context.group(GROUP_ID)));

        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.members()).containsOnlyKeys(accepted);
        assertThat(group.numAwaitingJoin()).isEqualTo(MAX_SIZE);
        assertThat(group.pendingMembers()).isEmpty();
        return accepted;
    }

    private void assertJoinCompletedForTen(List<String> accepted, int generationId) {
        String leaderId = accepted.get(0);
        assertThat(context.takeJoin(GROUP_ID, leaderId)).isEqualTo(success(generationId, "range", leaderId, leaderId,
                accepted.stream().map(id -> joined(id, null, "range")).toList()));
        for (String followerId : accepted.subList(1, accepted.size())) {
            assertThat(context.takeJoin(GROUP_ID, followerId))
                    .isEqualTo(success(generationId, "range", leaderId, followerId, List.of()));
        }
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(generationId);
        assertThat(group.members()).containsOnlyKeys(accepted);
    }

    @Test
    @DisplayName("case 43: with max 10, eleven pending members are allowed; on their second join ten are "
            + "admitted and the eleventh gets GROUP_MAX_SIZE_REACHED, also on later rejoins")
    void testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember() {
        List<String> memberIds = elevenPendingMembers();
        List<String> accepted = secondRoundAdmitsTen(memberIds);
        String rejected = memberIds.get(MAX_SIZE);

        context.sleep(DELAY_MS);

        assertJoinCompletedForTen(accepted, 1);
        assertThat(context.takeJoin(GROUP_ID, rejected)).isNull();

        // In CompletingRebalance the admitted members may rejoin; the refused one is still refused.
        ClassicGroup before = context.group(GROUP_ID);
        for (String memberId : accepted) {
            JoinGroupResponse response = joinResponse(context.join(GROUP_ID).version(4).memberId(memberId).send());
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.generationId()).isEqualTo(1);
        }
        Result refusedAgain = context.join(GROUP_ID).version(4).memberId(rejected).send();
        assertThat(joinResponse(refusedAgain)).isEqualTo(MAX_SIZE_REACHED);
        assertThat(refusedAgain.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 43: admitted members can rejoin while the group is rebalancing at its max size; the "
            + "refused member cannot")
    void testDynamicMembersCanRejoinGroupWithMaxSizeWhileRebalancing() {
        List<String> memberIds = elevenPendingMembers();
        List<String> accepted = secondRoundAdmitsTen(memberIds);
        String rejected = memberIds.get(MAX_SIZE);

        for (String memberId : accepted) {
            assertThat(parkedMemberId(context.join(GROUP_ID).version(4).memberId(memberId).send())).isEqualTo(memberId);
        }
        assertThat(joinResponse(context.join(GROUP_ID).version(4).memberId(rejected).send()))
                .isEqualTo(MAX_SIZE_REACHED);
        assertThat(context.group(GROUP_ID).numAwaitingJoin()).isEqualTo(MAX_SIZE);

        context.sleep(DELAY_MS);

        assertJoinCompletedForTen(accepted, 1);
    }

    @Test
    @DisplayName("case 45: in a group of 12 over a max of 10, the last two rejoiners of a rebalance get "
            + "GROUP_MAX_SIZE_REACHED and are gone when the join phase completes")
    void testLastJoiningMembersAreKickedOutWhenRejoiningGroupWithMaxSize() {
        // A Stable group of 12 as persisted before group.max.size was lowered to 10.
        Map<String, ClassicGroupMember> members = new LinkedHashMap<>();
        List<String> memberIds = new ArrayList<>();
        for (int i = 0; i < MAX_SIZE + 2; i++) {
            String memberId = "client-member-" + i;
            memberIds.add(memberId);
            members.put(memberId, new ClassicGroupMember(memberId, null, "client", "/127.0.0.1", 10_000, 5_000,
                    CONSUMER, protocols("range"), Bytes.EMPTY, false, false, false));
        }
        context.replay(new CoordinatorRecord.GroupValue(new ClassicGroup(GROUP_ID, ClassicGroupState.STABLE,
                ClassicGroupState.COMPLETING_REBALANCE, 0, 1, CONSUMER, "range", memberIds.get(0), members, Map.of(),
                Set.of(), null, null, false, null)));

        List<JoinGroupResponse> refused = new ArrayList<>();
        for (String memberId : memberIds) {
            Result result = context.join(GROUP_ID).memberId(memberId).sessionTimeoutMs(5_000)
                    .rebalanceTimeoutMs(10_000).send();
            if (memberIds.indexOf(memberId) < MAX_SIZE) {
                assertThat(parkedMemberId(result)).isEqualTo(memberId);
            } else {
                refused.add(joinResponse(result));
            }
        }

        assertThat(refused).containsExactly(MAX_SIZE_REACHED, MAX_SIZE_REACHED);
        List<String> firstTen = memberIds.subList(0, MAX_SIZE);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(firstTen);
        assertThat(context.group(GROUP_ID).numAwaitingJoin()).isEqualTo(MAX_SIZE);

        context.sleep(10_000);

        assertJoinCompletedForTen(firstTen, 2);
        for (String lastTwo : memberIds.subList(MAX_SIZE, MAX_SIZE + 2)) {
            assertThat(context.group(GROUP_ID).hasMember(lastTwo)).isFalse();
            assertThat(context.takeJoin(GROUP_ID, lastTwo)).isNull();
        }
    }
}
