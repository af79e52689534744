package io.cohort.core.shard;

import static io.cohort.core.shard.JoinGroupFixtures.GROUP_ID;
import static io.cohort.core.shard.JoinGroupFixtures.joinResponse;
import static io.cohort.core.shard.RebalanceFixtures.dynamicMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.parkedMemberId;
import static io.cohort.core.shard.RebalanceFixtures.syncAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.GroupSettings;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.GroupConfigResponse;
import io.cohort.core.response.JoinGroupResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SetGroupConfig: online group settings as replicated shard state, and group.max.size lowered below a group. */
class GroupConfigShardTest {
    private static final int SESSION_MS = 60_000;
    private static final int REBALANCE_MS = 1_000;

    private final GroupShardTestContext context = new GroupShardTestContext();

    private static GroupSettings settings(long version, GroupConfig base, int maxGroupSize) {
        return new GroupSettings(version, base.minSessionTimeoutMs(), base.maxSessionTimeoutMs(),
                base.initialRebalanceDelayMs(), maxGroupSize, base.offsetsRetentionMs());
    }

    private GroupConfigResponse set(GroupSettings settings) {
        return (GroupConfigResponse) context.apply(new Command.SetGroupConfig(settings)).immediateResponse();
    }

    private Result rejoin(String memberId) {
        return context.join(GROUP_ID).memberId(memberId).sessionTimeoutMs(SESSION_MS)
                .rebalanceTimeoutMs(REBALANCE_MS).send();
    }

    @Test
    void testLoweringMaxSizeRebalancesTheGroupAndTheLastRejoinerIsRemovedWithGroupMaxSizeReached() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 3, SESSION_MS, REBALANCE_MS);
        syncAll(context, GROUP_ID, members);

        Result applied = context.apply(new Command.SetGroupConfig(settings(1, GroupShardTestContext.TEST_CONFIG, 2)));

        GroupConfigResponse response = (GroupConfigResponse) applied.immediateResponse();
        assertThat(response.changed()).isTrue();
        assertThat(response.groupsRebalanced()).isEqualTo(1);
        assertThat(applied.records()).hasSize(2);
        assertThat(applied.records().get(0)).isInstanceOf(CoordinatorRecord.GroupConfigValue.class);
        assertThat(context.shard().config().maxGroupSize()).isEqualTo(2);
        // Kafka's onLoaded for a group over capacity: a rebalance, so the members can commit and rejoin.
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(members);

        assertThat(parkedMemberId(rejoin(members.get(0)))).isEqualTo(members.get(0));
        assertThat(parkedMemberId(rejoin(members.get(1)))).isEqualTo(members.get(1));
        Result refused = rejoin(members.get(2));
        assertThat(joinResponse(refused)).isEqualTo(JoinGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, ""));
        assertThat(context.group(GROUP_ID).hasMember(members.get(2))).isFalse();

        context.sleep(REBALANCE_MS);

        assertThat(context.takeJoin(GROUP_ID, members.get(0)).generationId()).isEqualTo(2);
        assertThat(context.takeJoin(GROUP_ID, members.get(1)).generationId()).isEqualTo(2);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.group(GROUP_ID).members()).containsOnlyKeys(members.subList(0, 2));
    }

    @Test
    void testAGroupWithinTheNewMaxSizeIsNotRebalanced() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, SESSION_MS, REBALANCE_MS);
        syncAll(context, GROUP_ID, members);

        Result applied = context.apply(new Command.SetGroupConfig(settings(1, GroupShardTestContext.TEST_CONFIG, 2)));

        assertThat(((GroupConfigResponse) applied.immediateResponse()).groupsRebalanced()).isZero();
        assertThat(applied.records()).hasSize(1);
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    void testNewSessionTimeoutBoundsApplyToTheNextJoinGroup() {
        GroupConfig base = GroupShardTestContext.TEST_CONFIG;
        set(new GroupSettings(1, 1_000, 2_000, base.initialRebalanceDelayMs(), base.maxGroupSize(),
                base.offsetsRetentionMs()));

        Result tooShort = context.join(GROUP_ID).sessionTimeoutMs(500).send();

        assertThat(joinResponse(tooShort).error()).isEqualTo(ErrorCode.INVALID_SESSION_TIMEOUT);
        assertThat(context.shard().config().minSessionTimeoutMs()).isEqualTo(1_000);
    }

    @Test
    void testTheSameSettingsProposedAgainWriteNothingAndAnswerThatThePartitionHoldsThem() {
        GroupConfig base = GroupShardTestContext.TEST_CONFIG;
        set(settings(2, base, 5));

        // A proposer whose answer was lost proposes the same change again.
        Result again = context.apply(new Command.SetGroupConfig(settings(2, base, 5)));

        assertThat(again.records()).isEmpty();
        GroupConfigResponse response = (GroupConfigResponse) again.immediateResponse();
        assertThat(response.error()).isEqualTo(ErrorCode.NONE);
        assertThat(response.changed()).isTrue();
        assertThat(response.groupsRebalanced()).isZero();
        assertThat(context.shard().settings()).isEqualTo(settings(2, base, 5));
    }

    @Test
    void testOlderSettingsAreIgnoredAndInvalidOnesRefused() {
        GroupConfig base = GroupShardTestContext.TEST_CONFIG;
        set(settings(2, base, 5));

        Result older = context.apply(new Command.SetGroupConfig(settings(1, base, 7)));
        assertThat(older.records()).isEmpty();
        assertThat(((GroupConfigResponse) older.immediateResponse()).changed()).isFalse();
        assertThat(context.shard().settings().maxGroupSize()).isEqualTo(5);

        Result invalid = context.apply(new Command.SetGroupConfig(new GroupSettings(3, 5_000, 4_000, 0, 5,
                base.offsetsRetentionMs())));
        assertThat(invalid.records()).isEmpty();
        assertThat(((GroupConfigResponse) invalid.immediateResponse()).error()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(context.shard().settings().version()).isEqualTo(2);
    }

    @Test
    void testTwoChangesOfTheSameVersionEndInTheSameSettingsInEitherOrder() {
        GroupConfig base = GroupShardTestContext.TEST_CONFIG;
        GroupSettings first = settings(1, base, 5);
        GroupSettings second = settings(1, base, 9);
        GroupCoordinatorShard oneOrder = new GroupCoordinatorShard(base);
        GroupCoordinatorShard otherOrder = new GroupCoordinatorShard(base);

        oneOrder.apply(new Command.SetGroupConfig(first), 0);
        oneOrder.apply(new Command.SetGroupConfig(second), 0);
        otherOrder.apply(new Command.SetGroupConfig(second), 0);
        otherOrder.apply(new Command.SetGroupConfig(first), 0);

        assertThat(oneOrder.settings()).isEqualTo(otherOrder.settings()).isEqualTo(second);
    }

    @Test
    void testSnapshotCarriesChangedSettingsAndRestoreStartsFromTheInitialOnes() {
        GroupConfig base = GroupShardTestContext.TEST_CONFIG;
        assertThat(context.shard().snapshot()).isEmpty();
        set(settings(4, base, 3));

        List<CoordinatorRecord> snapshot = context.shard().snapshot();
        assertThat(snapshot).containsExactly(new CoordinatorRecord.GroupConfigValue(settings(4, base, 3)));
        assertThat(snapshot).isSortedAccordingTo(CoordinatorRecord.SNAPSHOT_ORDER);

        GroupCoordinatorShard restored = new GroupCoordinatorShard(base);
        restored.restore(snapshot);
        assertThat(restored.settings()).isEqualTo(settings(4, base, 3));
        assertThat(restored.config().maxGroupSize()).isEqualTo(3);

        restored.restore(List.of());
        assertThat(restored.settings()).isEqualTo(GroupSettings.of(base, 0));
        assertThat(restored.config()).isEqualTo(base);
    }
}
