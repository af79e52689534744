package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.offsetTombstone;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static io.cohort.core.shard.OffsetTestSupport.rangeSubscribedTo;
import static io.cohort.core.shard.OffsetTestSupport.stableGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The offset-expiration job (KIP-211, reference 3.4, case 119). Cohort has no transactional offsets,
 * so the pending-transaction protection of case 119 does not apply.
 *
 * <p>Most tests run the job directly on the shard at the context's time, so its self-rescheduling
 * timer does not fire by itself while the clock moves; {@link #testExpirationJobReschedulesItself}
 * checks the timer.
 */
class OffsetExpiryTest {
    private static final long START_MS = 1_000_000L;
    private static final long RETENTION_MS = 60_000L;
    /** Long enough that no member expires while a test waits out the retention. */
    private static final int LONG_TIMEOUT_MS = 600_000;

    private final GroupShardTestContext context = new GroupShardTestContext(
            GroupShardTestContext.TEST_CONFIG.withOffsetsRetentionMs(RETENTION_MS), START_MS);

    /** Runs the expiration job now and replays its records. */
    private static List<CoordinatorRecord> expire(GroupShardTestContext context) {
        return context.shard().apply(new Command.ExpireOffsets(), context.nowMs()).records();
    }

    private List<CoordinatorRecord> expire() {
        return expire(context);
    }

    private String stableConsumer(String groupId, String... subscribedTopics) {
        return stableGroup(context, groupId, context.join(groupId).protocols(rangeSubscribedTo(subscribedTopics))
                .sessionTimeoutMs(LONG_TIMEOUT_MS).rebalanceTimeoutMs(LONG_TIMEOUT_MS)).get(0);
    }

    private void leave(String groupId, String memberId) {
        context.apply(new Command.LeaveGroup(groupId, List.of(new Command.LeavingMember(memberId, null, null))));
    }

    @Test
    @DisplayName("case 119: only unsubscribed offsets past retention expire; the group goes once all offsets expired")
    void testCleanupExpiredOffsets() {
        String memberId = stableConsumer("group-id", "firstTopic");
        context.apply(commit("group-id").member(memberId).generation(1)
                .topic("firstTopic", partition(0, 100L)).topic("secondTopic", partition(0, 100L)).build());
        context.sleep(500);
        context.apply(commit("group-id").member(memberId).generation(1).topic("secondTopic", partition(1, 100L)).build());

        // firstTopic-0: subscribed, kept. secondTopic-0: retention passed. secondTopic-1: not yet.
        context.sleep(RETENTION_MS - 500);
        assertThat(expire()).containsExactly(offsetTombstone("group-id", "secondTopic", 0));

        context.sleep(500);
        assertThat(expire()).containsExactly(offsetTombstone("group-id", "secondTopic", 1));
        assertThat(context.group("group-id").state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(context.shard().offsetCount()).isEqualTo(1);

        // The member leaves: the Empty group's last offset expires a retention after it became Empty,
        // and with it the group.
        leave("group-id", memberId);
        long becameEmptyMs = context.nowMs();
        assertThat(context.group("group-id").stateTimestampMs()).isEqualTo(becameEmptyMs);
        context.sleep(RETENTION_MS - 1);
        assertThat(expire()).isEmpty();
        context.sleep(1);
        assertThat(expire()).containsExactly(offsetTombstone("group-id", "firstTopic", 0),
                new CoordinatorRecord.GroupTombstone("group-id"));
        assertThat(context.group("group-id")).isNull();
        assertThat(context.shard().offsetCount()).isZero();
    }

    @Test
    @DisplayName("case 119: no expiration condition (CompletingRebalance): nothing of the group expires")
    void testCleanupExpiredOffsetsEmptyOffsetExpirationConditionCompletingRebalance() {
        // Offsets committed as a simple group, then a member joins: the group now has a protocol type.
        context.apply(commit("group-id").topic("foo", partition(0, 100L)).build());
        context.apply(commit("control").topic("foo", partition(0, 100L)).build());
        context.join("group-id").sessionTimeoutMs(LONG_TIMEOUT_MS).rebalanceTimeoutMs(LONG_TIMEOUT_MS).send();
        context.sleep(GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs());
        assertThat(context.group("group-id").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

        context.sleep(RETENTION_MS);

        // The simple control group, committed at the same time, shows the retention has passed.
        assertThat(expire()).containsExactly(offsetTombstone("control", "foo", 0),
                new CoordinatorRecord.GroupTombstone("control"));
        assertThat(context.group("group-id").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.shard().offsetCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("case 119: no expiration condition (PreparingRebalance): unsubscribed offsets are kept too")
    void testCleanupExpiredOffsetsEmptyOffsetExpirationConditionPreparingRebalance() {
        String memberId = stableConsumer("group-id", "foo");
        context.apply(commit("group-id").member(memberId).generation(1).topic("bar", partition(0, 100L)).build());
        context.join("group-id").sessionTimeoutMs(LONG_TIMEOUT_MS).rebalanceTimeoutMs(LONG_TIMEOUT_MS).send();
        assertThat(context.group("group-id").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        context.sleep(RETENTION_MS);

        assertThat(expire()).isEmpty();
        assertThat(context.group("group-id").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.shard().offsetCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("case 119: the same unsubscribed offset expires once the group is Stable with known subscriptions")
    void testUnsubscribedOffsetOfStableGroupExpires() {
        String memberId = stableConsumer("group-id", "foo");
        context.apply(commit("group-id").member(memberId).generation(1)
                .topic("bar", partition(0, 100L)).topic("foo", partition(0, 100L)).build());

        context.sleep(RETENTION_MS - 1);
        assertThat(expire()).isEmpty();
        context.sleep(1);
        assertThat(expire()).containsExactly(offsetTombstone("group-id", "bar", 0));
    }

    @Test
    @DisplayName("an explicit expireTimestamp (from a retention time) decides, shorter or longer than the retention")
    void testExplicitExpireTimestamp() {
        context.apply(commit("group").retention(1_000L).topic("foo", partition(0, 1L)).build());
        context.apply(commit("group").topic("foo", partition(1, 1L)).build());
        context.apply(commit("group").retention(2 * RETENTION_MS).topic("foo", partition(2, 1L)).build());

        context.sleep(999);
        assertThat(expire()).isEmpty();
        context.sleep(1);
        assertThat(expire()).containsExactly(offsetTombstone("group", "foo", 0));

        context.sleep(RETENTION_MS - 1_000);
        assertThat(expire()).containsExactly(offsetTombstone("group", "foo", 1));

        context.sleep(RETENTION_MS - 1);
        assertThat(expire()).isEmpty();
        context.sleep(1);
        assertThat(expire()).containsExactly(offsetTombstone("group", "foo", 2),
                new CoordinatorRecord.GroupTombstone("group"));
    }

    @Test
    @DisplayName("a simple group: each offset expires a retention after its commit; the group with the last one")
    void testSimpleGroupExpiresByCommitTimestamp() {
        context.apply(commit("b-group").topic("foo", partition(0, 1L)).build());
        context.apply(commit("a-group").topic("foo", partition(0, 1L)).build());
        context.sleep(500);
        context.apply(commit("a-group").topic("foo", partition(1, 1L)).build());
        context.sleep(RETENTION_MS - 500 - 1);
        assertThat(expire()).isEmpty();

        context.sleep(1);
        // Groups in id order, each group's offsets before its tombstone.
        assertThat(expire()).containsExactly(offsetTombstone("a-group", "foo", 0),
                offsetTombstone("b-group", "foo", 0), new CoordinatorRecord.GroupTombstone("b-group"));
        assertThat(context.group("a-group")).isNotNull();
        assertThat(context.group("b-group")).isNull();

        context.sleep(500);
        assertThat(expire()).containsExactly(offsetTombstone("a-group", "foo", 1),
                new CoordinatorRecord.GroupTombstone("a-group"));
        assertThat(context.shard().groupIds()).isEmpty();
    }

    @Test
    @DisplayName("an Empty group's offsets count from when it became Empty, not from their commit")
    void testEmptyGroupExpiresFromStateTimestamp() {
        String memberId = stableConsumer("group", "foo");
        context.apply(commit("group").member(memberId).generation(1).topic("foo", partition(0, 100L)).build());
        context.sleep(2 * RETENTION_MS);
        // Subscribed: kept while the group is Stable.
        assertThat(expire()).isEmpty();

        leave("group", memberId);
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.EMPTY);
        context.sleep(RETENTION_MS - 1);
        assertThat(expire()).isEmpty();
        context.sleep(1);
        assertThat(expire()).containsExactly(offsetTombstone("group", "foo", 0),
                new CoordinatorRecord.GroupTombstone("group"));
    }

    @Test
    @DisplayName("an Empty group without offsets is deleted at the next run; a group with members is not")
    void testEmptyGroupWithoutOffsetsIsDeleted() {
        String leftId = stableConsumer("left", "foo");
        leave("left", leftId);
        stableConsumer("stable", "foo");

        assertThat(expire()).containsExactly(new CoordinatorRecord.GroupTombstone("left"));
        assertThat(context.shard().groupIds()).containsExactly("stable");
    }

    @Test
    @DisplayName("retention 7 days is computed in long; retentions beyond Integer.MAX_VALUE ms work")
    void testOffsetsRetentionMsIntegerOverflow() {
        assertThat(GroupConfig.DEFAULT_OFFSETS_RETENTION_MS).isEqualTo(604_800_000L);
        assertThat(GroupConfig.defaults().offsetsRetentionMs()).isEqualTo(7L * 24 * 60 * 60 * 1000);

        GroupShardTestContext defaults = new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG, START_MS);
        defaults.apply(commit("group").topic("foo", partition(0, 1L)).build());
        defaults.sleep(GroupConfig.DEFAULT_OFFSETS_RETENTION_MS - 1);
        assertThat(expire(defaults)).isEmpty();
        defaults.sleep(1);
        assertThat(expire(defaults)).containsExactly(offsetTombstone("group", "foo", 0),
                new CoordinatorRecord.GroupTombstone("group"));

        // 30 days is more milliseconds than an int holds (offsets.retention.minutes 43200).
        long thirtyDaysMs = 43_200L * 60_000L;
        assertThat(thirtyDaysMs).isGreaterThan(Integer.MAX_VALUE);
        GroupShardTestContext longRetention = new GroupShardTestContext(
                GroupShardTestContext.TEST_CONFIG.withOffsetsRetentionMs(thirtyDaysMs), START_MS);
        longRetention.apply(commit("group").topic("foo", partition(0, 1L)).build());
        longRetention.sleep(thirtyDaysMs - 1);
        assertThat(expire(longRetention)).isEmpty();
        longRetention.sleep(1);
        assertThat(expire(longRetention)).containsExactly(offsetTombstone("group", "foo", 0),
                new CoordinatorRecord.GroupTombstone("group"));
    }

    @Test
    @DisplayName("the job reschedules itself at now + offsets.retention.check.interval.ms; a new leader arms it")
    void testExpirationJobReschedulesItself() {
        long intervalMs = GroupConfig.DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS;
        TimerOp.Schedule first = new TimerOp.Schedule(TimerOp.Keys.EXPIRE_OFFSETS, START_MS + intervalMs,
                new Command.ExpireOffsets());
        assertThat(context.shard().onLeaderReady(START_MS)).containsExactly(first);

        Result run = context.apply(new Command.ExpireOffsets());
        assertThat(run.records()).isEmpty();
        assertThat(run.timers()).containsExactly(first);
        assertThat(context.timer(TimerOp.Keys.EXPIRE_OFFSETS)).contains(first);

        context.apply(commit("group").topic("foo", partition(0, 1L)).build());
        List<Result> fired = context.sleep(intervalMs);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).containsExactly(offsetTombstone("group", "foo", 0),
                new CoordinatorRecord.GroupTombstone("group"));
        assertThat(fired.get(0).timers()).containsExactly(new TimerOp.Schedule(TimerOp.Keys.EXPIRE_OFFSETS,
                START_MS + 2 * intervalMs, new Command.ExpireOffsets()));
        assertThat(context.timer(TimerOp.Keys.EXPIRE_OFFSETS)).map(TimerOp.Schedule::deadlineMs)
                .contains(START_MS + 2 * intervalMs);
    }
}
