package io.cohort.core.shard;

import static io.cohort.core.shard.JoinGroupFixtures.GROUP_ID;
import static io.cohort.core.shard.JoinGroupFixtures.joinResponse;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.JoinGroupResponse;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupCoordinatorShard#memberIdRequired}: the answer the leader's front end sends a new
 * dynamic member before the join's entry commits. It must be exactly what applying the join gives
 * when it gives MEMBER_ID_REQUIRED, nothing otherwise, and it must change no state.
 */
class MemberIdRequiredAtOnceTest {
    private final GroupShardTestContext context = new GroupShardTestContext();

    @Test
    void testANewGroupsFirstJoinGetsTheIdItsCommitHandsOutAndNothingChangesBeforeTheCommit() {
        Command.JoinGroup join = context.join(GROUP_ID).version(4).build();

        Optional<JoinGroupResponse> atOnce = context.shard().memberIdRequired(join, context.nowMs());

        assertThat(context.group(GROUP_ID)).as("the preview created no group").isNull();
        JoinGroupResponse applied = joinResponse(context.apply(join));
        assertThat(applied.error()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(atOnce).contains(applied);
        assertThat(context.group(GROUP_ID).pendingMembers()).containsOnlyKeys(applied.memberId());
    }

    @Test
    void testAJoinToAStableGroupIsAnsweredAtOnceAndTheGroupStaysAsItWas() {
        context.stableGroupWithOneMember(GROUP_ID);
        Command.JoinGroup join = context.join(GROUP_ID).version(4).build();

        Optional<JoinGroupResponse> atOnce = context.shard().memberIdRequired(join, context.nowMs());

        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(context.group(GROUP_ID).pendingMembers()).isEmpty();
        assertThat(atOnce).contains(joinResponse(context.apply(join)));
    }

    @Test
    void testJoinsThatAreNotANewDynamicMembersFirstOfV4AreNeverAnsweredAtOnce() {
        String memberId = context.stableGroupWithOneMember(GROUP_ID);
        GroupCoordinatorShard shard = context.shard();

        assertThat(shard.memberIdRequired(context.join(GROUP_ID).version(3).build(), context.nowMs()))
                .as("v3 joins without an id and is admitted at once").isEmpty();
        assertThat(shard.memberIdRequired(context.join(GROUP_ID).version(4).memberId(memberId).build(),
                context.nowMs())).as("a known member").isEmpty();
        assertThat(shard.memberIdRequired(context.join(GROUP_ID).version(5).instanceId("static-1").build(),
                context.nowMs())).as("a static member gets its id without MEMBER_ID_REQUIRED").isEmpty();
    }

    @Test
    void testAJoinTheCommitWouldRefuseWaitsForTheCommit() {
        context.stableGroupWithOneMember(GROUP_ID);

        Command.JoinGroup otherProtocolType = context.join(GROUP_ID).version(4).protocolType("connect").build();
        assertThat(context.shard().memberIdRequired(otherProtocolType, context.nowMs())).isEmpty();
        assertThat(joinResponse(context.apply(otherProtocolType)).error())
                .isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);

        Command.JoinGroup badSessionTimeout = context.join(GROUP_ID).version(4).sessionTimeoutMs(1).build();
        assertThat(context.shard().memberIdRequired(badSessionTimeout, context.nowMs())).isEmpty();
        assertThat(joinResponse(context.apply(badSessionTimeout)).error()).isEqualTo(ErrorCode.INVALID_SESSION_TIMEOUT);
    }

    @Test
    void testAJoinThatWouldCreateAGroupBeyondThePartitionsLimitWaitsForTheCommit() {
        GroupShardTestContext full = new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG
                .withLimits(StateLimits.defaults().withMaxGroupsPerPartition(1)));
        full.stableGroupWithOneMember("first");
        Command.JoinGroup join = full.join("second").version(4).build();

        assertThat(full.shard().memberIdRequired(join, full.nowMs())).isEmpty();
        assertThat(joinResponse(full.apply(join)).error()).isEqualTo(ErrorCode.GROUP_MAX_SIZE_REACHED);
        // A new member of the group the partition already holds grows nothing and is answered at once.
        assertThat(full.shard().memberIdRequired(full.join("first").version(4).build(), full.nowMs())).isPresent();
    }
}
