package io.cohort.core.shard;

import static io.cohort.core.shard.ConsumerGroupTestContext.assignment;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerGroupState;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.ConsumerMemberMetadata;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.ConsumerGroupHeartbeatResponse;
import io.cohort.core.topic.TopicMetadata;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer-group heartbeat's member update, epochs, target assignment and reconciliation, as the
 * consumer-group section of Kafka's GroupMetadataManagerTest: joins, revoke before assign across
 * two members, unreleased partitions, epoch fencing and the previous-epoch acceptance.
 */
class ConsumerGroupHeartbeatTest {
    private static final String GROUP = "grp";
    private ConsumerGroupTestContext ctx;
    private TopicMetadata foo;
    private TopicMetadata bar;

    @BeforeEach
    void setUp() {
        ctx = new ConsumerGroupTestContext();
        foo = ctx.createTopic("foo", 6);
        bar = ctx.createTopic("bar", 3);
    }

    @Test
    void testJoiningEmptyGroupWritesMemberEpochsTargetAndCurrentAssignment() {
        Assignment all = assignment("foo", 0, 1, 2, 3, 4, 5).and("bar", 0, 1, 2).build();
        ctx.assignor.prepare(Map.of("m1", all));

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").joining("foo", "bar").send();

        assertThat(response).isEqualTo(new ConsumerGroupHeartbeatResponse(ErrorCode.NONE, null, "m1", 1, 5_000, all));
        TreeMap<String, TopicMetadata> metadata = new TreeMap<>(Map.of("foo", foo, "bar", bar));
        assertThat(ctx.lastRecords()).containsExactly(
                new CoordinatorRecord.ConsumerMemberMetadataValue(GROUP, "m1", new ConsumerMemberMetadata(null, null,
                        300_000, "client", "/127.0.0.1", new TreeSet<>(List.of("bar", "foo")), null, null)),
                new CoordinatorRecord.ConsumerSubscriptionMetadataValue(GROUP, metadata),
                new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 1),
                new CoordinatorRecord.ConsumerTargetAssignmentValue(GROUP, "m1", all),
                new CoordinatorRecord.ConsumerAssignmentEpochValue(GROUP, 1),
                new CoordinatorRecord.ConsumerCurrentAssignmentValue(GROUP, "m1",
                        new ConsumerMemberAssignment(1, 0, MemberState.STABLE, all, Assignment.EMPTY)));
        assertThat(ctx.group(GROUP).state()).isEqualTo(ConsumerGroupState.STABLE);
        assertThat(ctx.timer(TimerOp.Keys.consumerSession(GROUP, "m1")).orElseThrow().deadlineMs())
                .isEqualTo(45_000);
    }

    @Test
    void testHeartbeatThatChangesNothingWritesNoRecordAndRearmsTheSession() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.sleep(10_000);

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").epoch(1).send();

        assertThat(ctx.lastRecords()).isEmpty();
        assertThat(response.memberEpoch()).isEqualTo(1);
        assertThat(response.assignment()).as("unchanged and not a full request").isNull();
        assertThat(ctx.timer(TimerOp.Keys.consumerSession(GROUP, "m1")).orElseThrow().deadlineMs())
                .isEqualTo(55_000);
    }

    @Test
    void testFullRequestGetsTheAssignmentEvenWhenUnchanged() {
        Assignment a = assignment("foo", 0, 1).build();
        ctx.assignor.prepare(Map.of("m1", a));
        ctx.member(GROUP, "m1").joining("foo").send();

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").epoch(1).rebalanceTimeoutMs(300_000)
                .topics("foo").owned(a).send();

        assertThat(ctx.lastRecords()).isEmpty();
        assertThat(response.assignment()).isEqualTo(a);
    }

    @Test
    void testMemberReportingOtherOwnedPartitionsThanAssignedGetsTheAssignmentAgain() {
        // The answer that carried the assignment was lost with a killed coordinator; the member's
        // next heartbeat (same epoch, not a full request) still owns nothing.
        Assignment a = assignment("foo", 0, 1).build();
        ctx.assignor.prepare(Map.of("m1", a));
        ctx.member(GROUP, "m1").joining("foo").send();

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").epoch(1).owned(Assignment.EMPTY).send();

        assertThat(ctx.lastRecords()).as("nothing changed in the group").isEmpty();
        assertThat(response.memberEpoch()).isEqualTo(1);
        assertThat(response.assignment()).isEqualTo(a);
        // Once it reports owning its assignment, the answers go back to carrying none.
        assertThat(ctx.member(GROUP, "m1").epoch(1).owned(a).send().assignment()).isNull();
    }

    @Test
    void testRevokeBeforeAssignAcrossTwoMembers() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3, 4, 5).build()));
        ctx.member(GROUP, "m1").joining("foo").send();

        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2).build(), "m2", assignment("foo", 3, 4, 5).build()));
        ConsumerGroupHeartbeatResponse m2 = ctx.member(GROUP, "m2").joining("foo").send();
        // m2 reaches epoch 2 but foo-3..5 are still m1's: it waits for them.
        assertThat(m2.memberEpoch()).isEqualTo(2);
        assertThat(m2.assignment()).isEqualTo(Assignment.EMPTY);
        assertThat(ctx.group(GROUP).member("m2").state()).isEqualTo(MemberState.UNRELEASED_PARTITIONS);
        assertThat(ctx.group(GROUP).state()).isEqualTo(ConsumerGroupState.RECONCILING);

        // m1 keeps epoch 1 and must revoke foo-3..5 first.
        ConsumerGroupHeartbeatResponse m1 = ctx.member(GROUP, "m1").epoch(1)
                .owned(assignment("foo", 0, 1, 2, 3, 4, 5).build()).send();
        assertThat(m1.memberEpoch()).isEqualTo(1);
        assertThat(m1.assignment()).isEqualTo(assignment("foo", 0, 1, 2).build());
        assertThat(ctx.lastRecords()).containsExactly(new CoordinatorRecord.ConsumerCurrentAssignmentValue(GROUP, "m1",
                new ConsumerMemberAssignment(1, 0, MemberState.UNREVOKED_PARTITIONS,
                        assignment("foo", 0, 1, 2).build(), assignment("foo", 3, 4, 5).build())));
        assertThat(ctx.timer(TimerOp.Keys.consumerRebalance(GROUP, "m1"))).isPresent();

        // m2 still cannot have them: m1 has not confirmed the revocation.
        ctx.member(GROUP, "m2").epoch(2).owned(Assignment.EMPTY).send();
        assertThat(ctx.lastRecords()).isEmpty();

        // m1 reports it dropped them: it moves to epoch 2.
        m1 = ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0, 1, 2).build()).send();
        assertThat(m1.memberEpoch()).isEqualTo(2);
        assertThat(m1.assignment()).as("the assigned set did not change").isNull();
        assertThat(ctx.group(GROUP).member("m1").current()).isEqualTo(new ConsumerMemberAssignment(2, 1,
                MemberState.STABLE, assignment("foo", 0, 1, 2).build(), Assignment.EMPTY));
        assertThat(ctx.timer(TimerOp.Keys.consumerRebalance(GROUP, "m1"))).isEmpty();

        // Now m2 gets them.
        m2 = ctx.member(GROUP, "m2").epoch(2).owned(Assignment.EMPTY).send();
        assertThat(m2.assignment()).isEqualTo(assignment("foo", 3, 4, 5).build());
        assertThat(ctx.group(GROUP).member("m2").state()).isEqualTo(MemberState.STABLE);
        assertThat(ctx.group(GROUP).state()).isEqualTo(ConsumerGroupState.STABLE);
    }

    @Test
    void testMemberThatAlreadyDroppedRevokedPartitionsMovesOnAtOnce() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build(), "m2", assignment("foo", 2, 3).build()));
        ctx.member(GROUP, "m2").joining("foo").send();

        ConsumerGroupHeartbeatResponse m1 = ctx.member(GROUP, "m1").epoch(1)
                .owned(assignment("foo", 0, 1).build()).send();

        assertThat(m1.memberEpoch()).isEqualTo(2);
        assertThat(ctx.group(GROUP).member("m1").state()).isEqualTo(MemberState.STABLE);
    }

    @Test
    void testMemberWithoutOwnedPartitionsInRequestKeepsWaitingToRevoke() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build(), "m2", assignment("foo", 1).build()));
        ctx.member(GROUP, "m2").joining("foo").send();
        ctx.member(GROUP, "m1").epoch(1).send();
        assertThat(ctx.group(GROUP).member("m1").state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);

        ctx.member(GROUP, "m1").epoch(1).send();

        assertThat(ctx.lastRecords()).isEmpty();
        assertThat(ctx.group(GROUP).member("m1").state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);
    }

    @Test
    void testPreviousEpochWithSubsetOfAssignedPartitionsIsAccepted() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2).build()));
        ctx.createTopic("foo", 7);
        ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0, 1).build()).send();
        assertThat(ctx.group(GROUP).member("m1").memberEpoch()).isEqualTo(2);

        // The answer carrying epoch 2 was lost: the member retries with epoch 1.
        ConsumerGroupHeartbeatResponse retry = ctx.member(GROUP, "m1").epoch(1)
                .owned(assignment("foo", 0, 1).build()).send();

        assertThat(retry.error()).isEqualTo(ErrorCode.NONE);
        assertThat(retry.memberEpoch()).isEqualTo(2);
    }

    @Test
    void testPreviousEpochOwningPartitionsNotAssignedIsFenced() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build(), "m2", assignment("foo", 1).build()));
        ctx.member(GROUP, "m2").joining("foo").send();
        ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0).build()).send();
        assertThat(ctx.group(GROUP).member("m1").memberEpoch()).isEqualTo(2);

        ConsumerGroupHeartbeatResponse stale = ctx.member(GROUP, "m1").epoch(1)
                .owned(assignment("foo", 0, 1).build()).send();

        assertThat(stale.error()).isEqualTo(ErrorCode.FENCED_MEMBER_EPOCH);
        assertThat(stale.errorMessage()).contains("smaller member epoch (1)");
        assertThat(ctx.lastRecords()).isEmpty();
    }

    @Test
    void testGreaterOrOlderEpochIsFenced() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ctx.member(GROUP, "m1").joining("foo").send();

        assertThat(ctx.member(GROUP, "m1").epoch(2).send().error()).isEqualTo(ErrorCode.FENCED_MEMBER_EPOCH);
        ConsumerGroupHeartbeatResponse older = ctx.member(GROUP, "m1").epoch(0).rebalanceTimeoutMs(1).topics("foo")
                .owned(assignment("foo", 0).build()).send();
        assertThat(older.error()).isEqualTo(ErrorCode.INVALID_REQUEST);
    }

    @Test
    void testKnownMemberRejoiningWithEpochZeroAfterBeingFencedGetsItsAssignmentBack() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        assertThat(ctx.member(GROUP, "m1").epoch(7).send().error()).isEqualTo(ErrorCode.FENCED_MEMBER_EPOCH);

        ConsumerGroupHeartbeatResponse rejoin = ctx.member(GROUP, "m1").joining("foo").send();

        assertThat(rejoin.error()).isEqualTo(ErrorCode.NONE);
        assertThat(rejoin.memberEpoch()).isEqualTo(1);
        assertThat(rejoin.assignment()).isEqualTo(assignment("foo", 0, 1).build());
        assertThat(ctx.group(GROUP).groupEpoch()).as("same subscription: no new epoch").isEqualTo(1);
    }

    @Test
    void testUnknownMemberAndUnknownGroup() {
        assertThat(ctx.member(GROUP, "m1").epoch(3).send().error()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        ctx.assignor.prepare(Map.of());
        ctx.member(GROUP, "m1").joining("foo").send();
        ConsumerGroupHeartbeatResponse unknown = ctx.member(GROUP, "nobody").epoch(1).send();
        assertThat(unknown.error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(unknown.errorMessage()).isEqualTo("Member nobody is not a member of group grp.");
    }

    @Test
    void testSubscriptionChangeBumpsGroupEpoch() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).and("bar", 0).build()));

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").epoch(1).topics("foo", "bar").send();

        assertThat(ctx.group(GROUP).groupEpoch()).isEqualTo(2);
        assertThat(response.memberEpoch()).isEqualTo(2);
        assertThat(response.assignment()).isEqualTo(assignment("foo", 0).and("bar", 0).build());
    }

    @Test
    void testTopicMetadataChangeBumpsGroupEpoch() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        TopicMetadata bigger = ctx.createTopic("foo", 12);

        ctx.member(GROUP, "m1").epoch(1).send();

        assertThat(ctx.lastRecords()).startsWith(new CoordinatorRecord.ConsumerSubscriptionMetadataValue(GROUP,
                new TreeMap<>(Map.of("foo", bigger))), new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 2));
        assertThat(ctx.assignor.lastSpec.topics().get(bigger.topicId()).partitionCount()).isEqualTo(12);
    }

    @Test
    void testDeletedTopicLeavesSubscriptionMetadataAndBumpsEpoch() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ctx.member(GROUP, "m1").joining("foo", "bar").send();
        ctx.registry.remove("bar");
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));

        ctx.member(GROUP, "m1").epoch(1).send();

        assertThat(ctx.group(GROUP).subscriptionMetadata()).containsOnlyKeys("foo");
        assertThat(ctx.group(GROUP).groupEpoch()).isEqualTo(2);
    }

    @Test
    void testRegexResolutionChangeBumpsGroupEpoch() {
        ctx.regexResolutions.put("f.*", java.util.Set.of("foo"));
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ConsumerGroupHeartbeatResponse joined = ctx.member(GROUP, "m1").joining().topicList(List.of()).regex("f.*")
                .send();
        assertThat(joined.error()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.group(GROUP).regexResolutions()).containsEntry("f.*", new TreeSet<>(List.of("foo")));
        assertThat(ctx.assignor.lastSpec.members().get("m1").subscribedTopicIds()).containsExactly(foo.topicId());

        ctx.createTopic("fab", 2);
        ctx.regexResolutions.put("f.*", java.util.Set.of("foo", "fab"));
        ctx.member(GROUP, "m1").epoch(1).send();

        assertThat(ctx.group(GROUP).groupEpoch()).isEqualTo(2);
        assertThat(ctx.group(GROUP).subscriptionMetadata()).containsOnlyKeys("fab", "foo");
    }

    @Test
    void testGroupMaxSizeRefusesNewMembers() {
        ctx = new ConsumerGroupTestContext(ConsumerGroupTestContext.CONFIG.withConsumerSettings(45_000, 5_000, 1,
                List.of("mock")));
        ctx.createTopic("foo", 2);
        ctx.assignor.prepare(Map.of());
        ctx.member(GROUP, "m1").joining("foo").send();

        ConsumerGroupHeartbeatResponse refused = ctx.member(GROUP, "m2").joining("foo").send();

        assertThat(refused.error()).isEqualTo(ErrorCode.GROUP_MAX_SIZE_REACHED);
        assertThat(refused.errorMessage()).isEqualTo("The consumer group has reached its maximum capacity of 1 members.");
        assertThat(ctx.lastRecords()).isEmpty();
        assertThat(ctx.member(GROUP, "m1").epoch(1).send().error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testNewGroupBeyondThePartitionGroupLimitIsRefused() {
        ctx = new ConsumerGroupTestContext(ConsumerGroupTestContext.CONFIG.withLimits(
                io.cohort.core.StateLimits.defaults().withMaxGroupsPerPartition(1)));
        ctx.createTopic("foo", 2);
        ctx.assignor.prepare(Map.of());
        ctx.member("g1", "m1").joining("foo").send();

        ConsumerGroupHeartbeatResponse refused = ctx.member("g2", "m1").joining("foo").send();

        assertThat(refused.error()).isEqualTo(ErrorCode.GROUP_MAX_SIZE_REACHED);
        assertThat(refused.errorMessage()).startsWith("offsets.partition.max.groups=1 would be exceeded");
        assertThat(ctx.group("g2")).isNull();
        assertThat(ctx.member("g1", "m2").joining("foo").send().error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testPreferredAssignorIsTheMostCommonOneElseTheFirstConfigured() {
        ctx.member(GROUP, "m1").joining("foo").send();
        assertThat(ctx.shard().describeConsumerGroups(List.of(GROUP)).get(0).assignorName()).isEqualTo("mock");

        ctx.member(GROUP, "m2").joining("foo").assignor("roundrobin").send();

        assertThat(ctx.shard().describeConsumerGroups(List.of(GROUP)).get(0).assignorName()).isEqualTo("roundrobin");
        assertThat(ctx.group(GROUP).targetAssignment("m1").size() + ctx.group(GROUP).targetAssignment("m2").size())
                .as("the round-robin assignor dealt all six partitions").isEqualTo(6);
    }

    @Test
    void testUnsupportedAssignor() {
        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").joining("foo").assignor("sticky").send();

        assertThat(response.error()).isEqualTo(ErrorCode.UNSUPPORTED_ASSIGNOR);
        assertThat(response.errorMessage())
                .isEqualTo("ServerAssignor sticky is not supported. Supported assignors: mock, roundrobin.");
        assertThat(ctx.group(GROUP)).isNull();
    }

    @Test
    void testAssignorFailureIsUnknownServerErrorAndWritesNothing() {
        ctx.assignor.failWith("boom");

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").joining("foo").send();

        assertThat(response.error()).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
        assertThat(response.errorMessage()).contains("boom");
        assertThat(ctx.lastRecords()).isEmpty();
        assertThat(ctx.group(GROUP)).isNull();
    }

    @Test
    void testAssignorOutputAssigningAPartitionTwiceIsRefused() {
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build(), "m2", assignment("foo", 0).build()));

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m2").joining("foo").send();

        assertThat(response.error()).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
        assertThat(ctx.lastRecords()).isEmpty();
    }

    @Test
    void testEmptyTargetForMemberSubscribedToMissingTopic() {
        ctx.assignor.prepare(Map.of());

        ConsumerGroupHeartbeatResponse response = ctx.member(GROUP, "m1").joining("missing").send();

        assertThat(response.error()).isEqualTo(ErrorCode.NONE);
        assertThat(response.assignment()).isEqualTo(Assignment.EMPTY);
        assertThat(ctx.group(GROUP).subscriptionMetadata()).isEmpty();
        assertThat(ctx.assignor.lastSpec.members().get("m1").subscribedTopicIds()).isEmpty();
    }
}
