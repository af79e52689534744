package io.cohort.core.shard;

import static io.cohort.core.shard.ConsumerGroupTestContext.assignment;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.Protocol;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.DeleteGroupsResponse;
import io.cohort.core.response.DescribedConsumerGroup;
import io.cohort.core.response.DescribedGroup;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.ListedGroup;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.OffsetFetchResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Consumer groups beside classic ones: OffsetCommit epoch checks (Kafka's OffsetMetadataManager),
 * ConsumerGroupDescribe, DescribeGroups, ListGroups, DeleteGroups, offset expiry, and one type per
 * group id.
 */
class ConsumerGroupAdminTest {
    private static final String GROUP = "grp";
    private ConsumerGroupTestContext ctx;

    @BeforeEach
    void setUp() {
        ctx = new ConsumerGroupTestContext();
        ctx.createTopic("foo", 2);
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build()));
        ctx.member(GROUP, "m1").joining("foo").instanceId("i1").rackId("r1").send();
    }

    private ErrorCode commit(String memberId, int epoch, short version) {
        return commit(GROUP, memberId, epoch, version, "foo");
    }

    private ErrorCode commit(String groupId, String memberId, int epoch, short version, String topic) {
        OffsetCommitResponse response = (OffsetCommitResponse) ctx.apply(new Command.OffsetCommit(groupId, epoch,
                memberId, null, -1, List.of(new Command.TopicCommit(topic,
                List.of(new Command.PartitionCommit(0, 42, -1, "")))), version)).immediateResponse();
        return response.topics().get(0).partitions().get(0).error();
    }

    @Test
    void testOffsetCommitWithMemberEpoch() {
        assertThat(commit("m1", 1, (short) 9)).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.shard().fetchOffsets(GROUP, Map.of("foo", List.of(0))).topics().get(0).partitions().get(0)
                .offset()).isEqualTo(42);
        assertThat(ctx.shard().group(GROUP)).as("offsets do not create a classic group").isNull();
    }

    @Test
    void testOffsetCommitWithStaleMemberEpoch() {
        assertThat(commit("m1", 0, (short) 9)).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH);
        assertThat(commit("m1", 2, (short) 9)).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH);
    }

    @Test
    void testOffsetCommitFromUnknownMemberOrOldVersion() {
        assertThat(commit("m9", 1, (short) 9)).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        assertThat(commit("m1", 1, (short) 8)).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
    }

    @Test
    void testOffsetFetchWithMemberEpoch() {
        commit("m1", 1, (short) 9);
        OffsetFetchResponse fetched = ctx.shard().fetchOffsets(GROUP, Map.of("foo", List.of(0)), "m1", 1);
        assertThat(fetched.error()).isEqualTo(ErrorCode.NONE);
        assertThat(fetched.topics().get(0).partitions().get(0).offset()).isEqualTo(42);
    }

    @Test
    void testOffsetFetchWithStaleOrUnknownMember() {
        commit("m1", 1, (short) 9);
        OffsetFetchResponse stale = ctx.shard().fetchOffsets(GROUP, Map.of("foo", List.of(0)), "m1", 2);
        assertThat(stale.error()).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH);
        assertThat(stale.topics()).as("no offsets with a group-level error").isEmpty();
        assertThat(ctx.shard().fetchOffsets(GROUP, null, "m1", 0).error()).isEqualTo(ErrorCode.STALE_MEMBER_EPOCH);
        assertThat(ctx.shard().fetchOffsets(GROUP, null, "m9", 1).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        // Kafka: a member epoch without a member id is a lookup of no member.
        assertThat(ctx.shard().fetchOffsets(GROUP, null, null, 1).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    void testOffsetFetchWithoutMemberIsNotChecked() {
        commit("m1", 1, (short) 9);
        assertThat(ctx.shard().fetchOffsets(GROUP, null, null, -1).topics()).hasSize(1);
        // A classic group checks no member: Kafka's ClassicGroup.validateOffsetFetch.
        classicGroupWithOneMember("classic");
        assertThat(ctx.shard().fetchOffsets("classic", null, "someone", 7).error()).isEqualTo(ErrorCode.NONE);
        // An unknown group has no offsets and no error.
        assertThat(ctx.shard().fetchOffsets("nope", Map.of("foo", List.of(0)), "m1", 1).error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testAdminOffsetCommitOnlyWhenGroupIsEmpty() {
        assertThat(commit("", -1, (short) 9)).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        ctx.member(GROUP, "m1").epoch(-1).instanceId("i1").send();
        assertThat(commit("", -1, (short) 9)).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testConsumerGroupDescribe() {
        DescribedConsumerGroup described = ctx.shard().describeConsumerGroups(List.of(GROUP, "nope")).get(0);

        assertThat(described.error()).isEqualTo(ErrorCode.NONE);
        assertThat(described.groupState()).isEqualTo("Stable");
        assertThat(described.groupEpoch()).isEqualTo(1);
        assertThat(described.assignmentEpoch()).isEqualTo(1);
        assertThat(described.assignorName()).isEqualTo("mock");
        assertThat(described.topicNames()).containsEntry(ConsumerGroupTestContext.topicId("foo"), "foo");
        assertThat(described.members()).containsExactly(new DescribedConsumerGroup.Member("m1", "i1", "r1", 1, "client",
                "/127.0.0.1", List.of("foo"), null, assignment("foo", 0, 1).build(), assignment("foo", 0, 1).build(),
                "STABLE", "consumer"));
        DescribedConsumerGroup unknown = ctx.shard().describeConsumerGroups(List.of("nope")).get(0);
        assertThat(unknown.error()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
    }

    @Test
    void testDescribeGroupsAndListGroupsShowTheConsumerGroup() {
        DescribedGroup classicShape = ctx.shard().describeGroups(List.of(GROUP), (short) 6).get(0);
        assertThat(classicShape.state()).isEqualTo("Stable");
        assertThat(classicShape.protocolType()).isEqualTo("consumer");
        assertThat(classicShape.protocolData()).isEqualTo("mock");
        assertThat(classicShape.members()).extracting(DescribedGroup.DescribedMember::memberId).containsExactly("m1");

        classicGroupWithOneMember("classic");
        assertThat(ctx.shard().listGroups(List.of(), List.of())).extracting(ListedGroup::groupId, ListedGroup::groupType)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("classic", "classic"),
                        org.assertj.core.groups.Tuple.tuple(GROUP, "consumer"));
        assertThat(ctx.shard().listGroups(List.of(), List.of("Consumer"))).containsExactly(
                new ListedGroup(GROUP, "consumer", "Stable", "consumer"));
        assertThat(ctx.shard().listGroups(List.of("stable"), List.of("classic"))).isEmpty();
        assertThat(ctx.shard().listGroups(List.of("reconciling"), List.of())).isEmpty();
    }

    @Test
    void testDeleteGroups() {
        commit("m1", 1, (short) 9);
        DeleteGroupsResponse refused = (DeleteGroupsResponse) ctx.apply(new Command.DeleteGroups(List.of(GROUP)))
                .immediateResponse();
        assertThat(refused.results().get(0).error()).isEqualTo(ErrorCode.NON_EMPTY_GROUP);

        ctx.member(GROUP, "m1").epoch(-1).instanceId("i1").send();
        Result deleted = ctx.apply(new Command.DeleteGroups(List.of(GROUP)));

        assertThat(((DeleteGroupsResponse) deleted.immediateResponse()).results().get(0).error())
                .isEqualTo(ErrorCode.NONE);
        assertThat(deleted.records()).containsExactly(new CoordinatorRecord.OffsetTombstone(GROUP, "foo", 0),
                new CoordinatorRecord.ConsumerGroupTombstone(GROUP));
        assertThat(ctx.group(GROUP)).isNull();
    }

    @Test
    void testOffsetExpiryKeepsSubscribedTopicsAndExpiresAnEmptyGroup() {
        commit("m1", 1, (short) 9);
        commit(GROUP, "m1", 1, (short) 9, "old");
        ctx.jumpClock(io.cohort.core.GroupConfig.DEFAULT_OFFSETS_RETENTION_MS);
        ctx.member(GROUP, "m1").epoch(1).send();

        Result expired = ctx.apply(new Command.ExpireOffsets());
        assertThat(expired.records()).containsExactly(new CoordinatorRecord.OffsetTombstone(GROUP, "old", 0));

        ctx.member(GROUP, "m1").epoch(-1).instanceId("i1").send();
        expired = ctx.apply(new Command.ExpireOffsets());
        assertThat(expired.records()).containsExactly(new CoordinatorRecord.OffsetTombstone(GROUP, "foo", 0),
                new CoordinatorRecord.ConsumerGroupTombstone(GROUP));
    }

    @Test
    void testOffsetDeleteRefusesSubscribedTopicsOfANonEmptyConsumerGroup() {
        commit("m1", 1, (short) 9);
        commit(GROUP, "m1", 1, (short) 9, "old");

        io.cohort.core.response.OffsetDeleteResponse response = (io.cohort.core.response.OffsetDeleteResponse) ctx
                .apply(new Command.OffsetDelete(GROUP, List.of(new Command.TopicPartitions("foo", List.of(0)),
                        new Command.TopicPartitions("old", List.of(0))))).immediateResponse();

        assertThat(response.error()).isEqualTo(ErrorCode.NONE);
        assertThat(response.topics().get(0).partitions().get(0).error()).isEqualTo(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
        assertThat(response.topics().get(1).partitions().get(0).error()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.lastRecords()).containsExactly(new CoordinatorRecord.OffsetTombstone(GROUP, "old", 0));
    }

    @Test
    void testClassicJoinToConsumerGroupIsInconsistentGroupProtocol() {
        JoinGroupResponse response = (JoinGroupResponse) ctx.apply(join(GROUP)).immediateResponse();

        assertThat(response.error()).isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(ctx.lastRecords()).isEmpty();
    }

    @Test
    void testClassicJoinConvertsAnEmptyConsumerGroupKeepingOffsets() {
        commit("m1", 1, (short) 9);
        ctx.member(GROUP, "m1").epoch(-1).instanceId("i1").send();

        JoinGroupResponse response = (JoinGroupResponse) ctx.apply(join(GROUP)).immediateResponse();

        assertThat(response.error()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(ctx.group(GROUP)).isNull();
        assertThat(ctx.shard().group(GROUP)).isNotNull();
        assertThat(ctx.shard().offsetCount()).isEqualTo(1);
    }

    @Test
    void testHeartbeatToClassicGroupWithMembersIsGroupIdNotFound() {
        classicGroupWithOneMember("classic");

        var response = ctx.member("classic", "m1").joining("foo").send();

        assertThat(response.error()).isEqualTo(ErrorCode.GROUP_ID_NOT_FOUND);
        assertThat(response.errorMessage()).isEqualTo("Group classic is not a consumer group.");
    }

    @Test
    void testHeartbeatConvertsAnEmptyClassicGroupKeepingOffsets() {
        assertThat(commit("simple", "", -1, (short) 9, "foo")).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.shard().group("simple")).isNotNull();

        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0).build()));
        var response = ctx.member("simple", "m1").joining("foo").send();

        assertThat(response.error()).isEqualTo(ErrorCode.NONE);
        assertThat(ctx.shard().group("simple")).isNull();
        assertThat(ctx.group("simple").members()).containsOnlyKeys("m1");
        assertThat(ctx.shard().fetchOffsets("simple", Map.of("foo", List.of(0))).topics().get(0).partitions().get(0)
                .offset()).isEqualTo(42);
    }

    private void classicGroupWithOneMember(String groupId) {
        JoinGroupResponse first = (JoinGroupResponse) ctx.apply(join(groupId)).immediateResponse();
        ctx.apply(new Command.JoinGroup(groupId, first.memberId(), null, "consumer",
                List.of(new Protocol("range", Bytes.EMPTY)), 10_000, 10_000, "c", "h", "", (short) 9, "x"));
        assertThat(ctx.shard().group(groupId).members()).hasSize(1);
    }

    private static Command.JoinGroup join(String groupId) {
        return new Command.JoinGroup(groupId, "", null, "consumer", List.of(new Protocol("range", Bytes.EMPTY)),
                10_000, 10_000, "c", "h", "", (short) 9, "suffix");
    }
}
