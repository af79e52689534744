package io.cohort.core.shard;

import static io.cohort.core.shard.ConsumerGroupTestContext.assignment;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerGroupState;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.ConsumerGroupHeartbeatResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leaving, static members (-2 leave, rejoin under a new member id), session expiry and rebalance timeouts. */
class ConsumerGroupMembershipTest {
    private static final String GROUP = "grp";
    private ConsumerGroupTestContext ctx;

    @BeforeEach
    void setUp() {
        ctx = new ConsumerGroupTestContext();
        ctx.createTopic("foo", 4);
    }

    private void twoStableMembers() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build(), "m2", assignment("foo", 2, 3).build()));
        ctx.member(GROUP, "m2").joining("foo").send();
        ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0, 1).build()).send();
        ctx.member(GROUP, "m2").epoch(2).owned(Assignment.EMPTY).send();
        assertThat(ctx.group(GROUP).state()).isEqualTo(ConsumerGroupState.STABLE);
    }

    @Test
    void testLeaveRemovesTheMemberAndBumpsTheEpoch() {
        twoStableMembers();

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m2").epoch(-1).send();

        assertThat(response).isEqualTo(new ConsumerGroupHeartbeatResponse(ErrorCode.NONE, null, "m2", -1, 0, null));
        assertThat(ctx.lastRecords()).containsExactly(new CoordinatorRecord.ConsumerMemberTombstone(GROUP, "m2"),
                new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 3));
        assertThat(ctx.timer(TimerOp.Keys.consumerSession(GROUP, "m2"))).isEmpty();
        assertThat(ctx.group(GROUP).state()).isEqualTo(ConsumerGroupState.ASSIGNING);

        // The next heartbeat of m1 computes the new target and m1 takes the freed partitions at once.
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3).build()));
        ConsumerGroupHeartbeatResponse m1 = ctx.member(GROUP, "m1").epoch(2).send();
        assertThat(m1.memberEpoch()).isEqualTo(3);
        assertThat(m1.assignment()).isEqualTo(assignment("foo", 0, 1, 2, 3).build());
    }

    @Test
    void testLeaveOfUnknownMember() {
        twoStableMembers();
        assertThat(ctx.member(GROUP, "m9").epoch(-1).send().error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    void testLastMemberLeavingEmptiesTheGroup() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ctx.member(GROUP, "m1").joining("foo").send();

        ctx.member(GROUP, "m1").epoch(-1).send();

        assertThat(ctx.group(GROUP).state()).isEqualTo(ConsumerGroupState.EMPTY);
        assertThat(ctx.group(GROUP).subscriptionMetadata()).isEmpty();
    }

    @Test
    void testStaticMemberLeaveKeepsAssignmentAndRejoinTakesItOver() {
        Assignment all = assignment("foo", 0, 1, 2, 3).build();
        ctx.assignor.prepare(Map.of("s1", all));
        ctx.member(GROUP, "s1").joining("foo").instanceId("i1").send();

        ConsumerGroupHeartbeatResponse left = ctx.member(GROUP, "s1").epoch(-2).instanceId("i1").send();
        assertThat(left.memberEpoch()).isEqualTo(-2);
        assertThat(ctx.lastRecords()).containsExactly(new CoordinatorRecord.ConsumerCurrentAssignmentValue(GROUP, "s1",
                new ConsumerMemberAssignment(-2, 0, MemberState.STABLE, all, Assignment.EMPTY)));
        assertThat(ctx.group(GROUP).ownerOf(ConsumerGroupTestContext.topicId("foo"), 0)).isEqualTo("s1");
        assertThat(ctx.timer(TimerOp.Keys.consumerSession(GROUP, "s1"))).as("session still runs").isPresent();

        ctx.assignor.prepare(Map.of("s2", all));
        ConsumerGroupHeartbeatResponse rejoined = ctx.member(GROUP, "s2").joining("foo").instanceId("i1").send();

        assertThat(rejoined.memberEpoch()).as("no epoch bump").isEqualTo(1);
        assertThat(rejoined.assignment()).isEqualTo(all);
        assertThat(ctx.group(GROUP).groupEpoch()).isEqualTo(1);
        assertThat(ctx.group(GROUP).members()).containsOnlyKeys("s2");
        assertThat(ctx.assignor.lastSpec.members().get("s2").currentTarget()).as("inherited target").isEqualTo(all);
        assertThat(ctx.lastRecords().get(0)).isEqualTo(new CoordinatorRecord.ConsumerMemberTombstone(GROUP, "s1"));
        assertThat(ctx.timer(TimerOp.Keys.consumerSession(GROUP, "s1"))).isEmpty();
    }

    @Test
    void testStaticMemberJoiningWithUnreleasedInstanceId() {
        ctx.assignor.prepare(Map.of());
        ctx.member(GROUP, "s1").joining("foo").instanceId("i1").send();

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "s2").joining("foo").instanceId("i1").send();

        assertThat(response.error()).isEqualTo(ErrorCode.UNRELEASED_INSTANCE_ID);
        assertThat(response.errorMessage()).isEqualTo("Static member s1 with instance id i1 cannot join the group grp"
                + " since the instance id has not been released.");
        assertThat(ctx.lastRecords()).isEmpty();
    }

    @Test
    void testStaticMemberFencedByInstanceIdOwner() {
        ctx.assignor.prepare(Map.of());
        ctx.member(GROUP, "s1").joining("foo").instanceId("i1").send();

        assertThat(ctx.member(GROUP, "s9").epoch(1).instanceId("i1").send().error())
                .isEqualTo(ErrorCode.FENCED_INSTANCE_ID);
        assertThat(ctx.member(GROUP, "s9").epoch(-2).instanceId("i1").send().error())
                .isEqualTo(ErrorCode.FENCED_INSTANCE_ID);
        assertThat(ctx.member(GROUP, "s1").epoch(1).instanceId("i2").send().error())
                .isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    void testSessionExpiryFencesTheMember() {
        twoStableMembers();
        ctx.sleep(40_000);
        assertThat(ctx.member(GROUP, "m1").epoch(2).send().error()).isEqualTo(ErrorCode.NONE);

        List<Result> fired = ctx.sleep(10_000);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).containsExactly(new CoordinatorRecord.ConsumerMemberTombstone(GROUP, "m2"),
                new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 3));
        assertThat(ctx.group(GROUP).members()).containsOnlyKeys("m1");
        assertThat(ctx.member(GROUP, "m2").epoch(2).send().error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    void testExpiryCommandForAMemberThatLeftDoesNothing() {
        twoStableMembers();
        ctx.member(GROUP, "m2").epoch(-1).send();

        Result result = ctx.apply(new Command.ExpireConsumerMember(GROUP, "m2"));

        assertThat(result.records()).isEmpty();
    }

    @Test
    void testRebalanceTimeoutFencesAMemberThatDoesNotRevoke() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3).build()));
        ctx.member(GROUP, "m1").joining("foo").rebalanceTimeoutMs(10_000).send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build(), "m2", assignment("foo", 2, 3).build()));
        ctx.member(GROUP, "m2").joining("foo").send();
        ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0, 1, 2, 3).build()).send();
        assertThat(ctx.timer(TimerOp.Keys.consumerRebalance(GROUP, "m1")).orElseThrow().deadlineMs())
                .isEqualTo(10_000);

        List<Result> fired = ctx.sleep(10_000);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records().get(0)).isEqualTo(new CoordinatorRecord.ConsumerMemberTombstone(GROUP, "m1"));
        // m2 now takes what m1 held.
        ctx.assignor.prepare(Map.of("m2", assignment("foo", 0, 1, 2, 3).build()));
        assertThat(ctx.member(GROUP, "m2").epoch(2).send().assignment())
                .isEqualTo(assignment("foo", 0, 1, 2, 3).build());
    }

    @Test
    void testRebalanceTimeoutOfAnOlderEpochDoesNothing() {
        twoStableMembers();

        Result result = ctx.apply(new Command.FireConsumerRebalanceTimeout(GROUP, "m1", 1));

        assertThat(result.records()).isEmpty();
        assertThat(ctx.group(GROUP).members()).containsOnlyKeys("m1", "m2");
    }

    @Test
    void testOnLeaderReadyArmsSessionsAndPendingRebalanceTimeouts() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3).build()));
        ctx.member(GROUP, "m1").joining("foo").rebalanceTimeoutMs(10_000).send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build(), "m2", assignment("foo", 2, 3).build()));
        ctx.member(GROUP, "m2").joining("foo").send();
        ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0, 1, 2, 3).build()).send();

        Map<String, TimerOp.Schedule> timers = new TreeMap<>();
        for (TimerOp op : ctx.shard().onLeaderReady(1_000)) {
            timers.put(op.key(), (TimerOp.Schedule) op);
        }

        assertThat(timers.get(TimerOp.Keys.consumerSession(GROUP, "m1")).deadlineMs()).isEqualTo(46_000);
        assertThat(timers.get(TimerOp.Keys.consumerSession(GROUP, "m2")).deadlineMs()).isEqualTo(46_000);
        assertThat(timers.get(TimerOp.Keys.consumerRebalance(GROUP, "m1")).command())
                .isEqualTo(new Command.FireConsumerRebalanceTimeout(GROUP, "m1", 1));
        assertThat(timers).doesNotContainKey(TimerOp.Keys.consumerRebalance(GROUP, "m2"));
    }
}
