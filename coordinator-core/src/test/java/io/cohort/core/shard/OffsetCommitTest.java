package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.commitResponse;
import static io.cohort.core.shard.OffsetTestSupport.error;
import static io.cohort.core.shard.OffsetTestSupport.makeDead;
import static io.cohort.core.shard.OffsetTestSupport.offsetRecord;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static io.cohort.core.shard.OffsetTestSupport.stableGroup;
import static io.cohort.core.shard.OffsetTestSupport.topicErrors;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.response.OffsetFetchResponse.PartitionOffset;
import io.cohort.core.response.OffsetFetchResponse.TopicOffsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * OffsetCommit (reference 1.6, 3.1, cases 93-105). Kafka's "append failed" paths do not exist in
 * core: Raft applies only committed entries, and the server maps write failures at the edge. Case
 * 111 (TxnOffsetCommit) does not apply: Cohort has no transactional offsets.
 */
class OffsetCommitTest {
    /** Commits are stamped with leader time; starting away from 0 makes timestamps meaningful. */
    private static final long START_MS = 100_000L;

    private final GroupShardTestContext context =
            new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG, START_MS);

    @Test
    @DisplayName("case 93: commit with generation 10 to an unknown group: v9 GROUP_ID_NOT_FOUND, v8 ILLEGAL_GENERATION")
    void testOffsetCommitWithUnknownGroup() {
        Result v9 = context.apply(commit("foo").member("member").generation(10).version(9)
                .topic("bar", partition(0, 100L)).build());
        assertThat(v9.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.GROUP_ID_NOT_FOUND))));
        assertThat(v9.records()).isEmpty();

        Result v8 = context.apply(commit("foo").member("member").generation(10).version(8)
                .topic("bar", partition(0, 100L)).build());
        assertThat(v8.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.ILLEGAL_GENERATION))));
        assertThat(v8.records()).isEmpty();
        assertThat(context.group("foo")).isNull();
    }

    @Test
    @DisplayName("case 95: commit with generation -1 and an instance id to an unknown group is accepted")
    void testSimpleGroupOffsetCommitWithInstanceId() {
        Result result = context.apply(commit("foo").member("unknown").instance("instance-id").generation(-1)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(offsetRecord("foo", "bar", 0, 100L, START_MS));
        // The instance id is ignored: the group has no members and no static mapping.
        assertThat(context.group("foo").members()).isEmpty();
    }

    @Test
    @DisplayName("simple commit: the offset record alone creates an Empty group with no protocol type on replay")
    void testSimpleGroupOffsetCommitCreatesEmptyGroupOnReplay() {
        Result result = context.apply(commit("foo").topic("bar", partition(0, 100L)).build());

        assertThat(result.records()).containsExactly(offsetRecord("foo", "bar", 0, 100L, START_MS));
        assertThat(context.group("foo")).isEqualTo(ClassicGroup.newEmpty("foo", START_MS));
        assertThat(context.group("foo").protocolType()).isNull();
        assertThat(context.group("foo").state()).isEqualTo(ClassicGroupState.EMPTY);

        // A later simple commit does not touch the group value (it was created once).
        context.sleep(1_000);
        Result again = context.apply(commit("foo").topic("bar", partition(1, 7L)).build());
        assertThat(again.records()).containsExactly(offsetRecord("foo", "bar", 1, 7L, START_MS + 1_000));
        assertThat(context.group("foo")).isEqualTo(ClassicGroup.newEmpty("foo", START_MS));
    }

    @Test
    @DisplayName("commit with a null group id: INVALID_GROUP_ID for every partition; \"\" is a legal group id")
    void testOffsetCommitGroupIdValidation() {
        Result nullId = context.apply(commit(null).topic("bar", partition(0, 1L), partition(1, 2L)).build());
        assertThat(nullId.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar",
                error(0, ErrorCode.INVALID_GROUP_ID), error(1, ErrorCode.INVALID_GROUP_ID))));
        assertThat(nullId.records()).isEmpty();

        Result emptyId = context.apply(commit("").topic("bar", partition(0, 1L)).build());
        assertThat(emptyId.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(emptyId.records()).containsExactly(offsetRecord("", "bar", 0, 1L, START_MS));
    }

    @Test
    @DisplayName("case 97: commit from an unknown member id: UNKNOWN_MEMBER_ID")
    void testGenericGroupOffsetCommitWithUnknownMemberId() {
        context.stableGroupWithOneMember("foo");

        Result result = context.apply(commit("foo").member("member1").generation(1)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.UNKNOWN_MEMBER_ID))));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("case 99: a dynamic member's commit carrying an unknown instance id: UNKNOWN_MEMBER_ID")
    void testGenericGroupOffsetCommitWithUnknownInstanceId() {
        String memberId = context.stableGroupWithOneMember("foo");

        Result result = context.apply(commit("foo").member(memberId).instance("unknown-instance").generation(1)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.UNKNOWN_MEMBER_ID))));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("case 99: a commit with an instance id mapped to another member id: FENCED_INSTANCE_ID")
    void testGenericGroupOffsetCommitWithFencedInstanceId() {
        String memberId = stableGroup(context, "foo", context.join("foo").instanceId("instance-id")).get(0);
        assertThat(memberId).isEqualTo("instance-id-id1");

        Result fenced = context.apply(commit("foo").member("old-member-id").instance("instance-id").generation(1)
                .topic("bar", partition(0, 100L)).build());
        assertThat(fenced.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.FENCED_INSTANCE_ID))));
        assertThat(fenced.records()).isEmpty();

        // The current member id with the same instance id is accepted.
        Result accepted = context.apply(commit("foo").member(memberId).instance("instance-id").generation(1)
                .topic("bar", partition(0, 100L)).build());
        assertThat(accepted.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
    }

    @Test
    @DisplayName("case 101: commit without member id and generation to a non-empty group: UNKNOWN_MEMBER_ID")
    void testGenericGroupOffsetCommitWithoutMemberIdAndGeneration() {
        context.stableGroupWithOneMember("foo");

        Result result = context.apply(commit("foo").member("").generation(-1)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.UNKNOWN_MEMBER_ID))));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("case 103: commit with RetentionTimeMs 1234: record with expireTimestamp now + 1234, session reset")
    void testGenericGroupOffsetCommitWithRetentionTime() {
        String memberId = context.stableGroupWithOneMember("foo");
        long now = context.nowMs();

        Result result = context.apply(commit("foo").member(memberId).generation(1).retention(1234L)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(new CoordinatorRecord.OffsetValue("foo", "bar", 0,
                new OffsetAndMetadata(100L, -1, "", now, now + 1234L)));
        assertThat(result.timers()).containsExactly(new TimerOp.Schedule(TimerOp.Keys.heartbeat("foo", memberId),
                now + 500, new Command.ExpireMemberSession("foo", memberId)));
    }

    @Test
    @DisplayName("case 105: metadata over offset.metadata.max.bytes fails that partition only; one record")
    void testOffsetCommitWithOffsetMetadataTooLarge() {
        GroupShardTestContext small = new GroupShardTestContext(
                GroupShardTestContext.TEST_CONFIG.withOffsetMetadataMaxBytes(5), START_MS);
        String memberId = small.stableGroupWithOneMember("foo");
        long now = small.nowMs();

        Result result = small.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(0, 100L, -1, "toolarge"), partition(1, 110L, -1, "small")).build());

        assertThat(result.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar",
                error(0, ErrorCode.OFFSET_METADATA_TOO_LARGE), error(1, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(new CoordinatorRecord.OffsetValue("foo", "bar", 1,
                new OffsetAndMetadata(110L, -1, "small", now, OffsetAndMetadata.NO_EXPIRE_TIMESTAMP)));
    }

    @Test
    @DisplayName("commit in CompletingRebalance: REBALANCE_IN_PROGRESS")
    void testOffsetCommitInCompletingRebalance() {
        String memberId = context.joinedLeaderInCompletingRebalance("foo");

        Result result = context.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.REBALANCE_IN_PROGRESS))));
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
    }

    @Test
    @DisplayName("commit in PreparingRebalance by a member of the current generation: accepted, session reset")
    void testOffsetCommitInPreparingRebalanceWithCurrentGeneration() {
        String memberId = context.stableGroupWithOneMember("foo");
        Result newMember = context.join("foo").send();
        assertThat(newMember.reply()).isInstanceOf(Result.Reply.Parked.class);
        assertThat(context.group("foo").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        long now = context.nowMs();

        Result result = context.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(0, 100L)).build());

        assertThat(result.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(offsetRecord("foo", "bar", 0, 100L, now));
        assertThat(result.timers()).containsExactly(new TimerOp.Schedule(TimerOp.Keys.heartbeat("foo", memberId),
                now + 500, new Command.ExpireMemberSession("foo", memberId)));
    }

    @Test
    @DisplayName("commit with the old generation after the bump: ILLEGAL_GENERATION in CompletingRebalance and Stable")
    void testOffsetCommitWithIllegalGeneration() {
        String memberId = context.stableGroupWithOneMember("foo");
        // A generation the group has not reached is illegal too.
        assertThat(context.apply(commit("foo").member(memberId).generation(2).topic("bar", partition(0, 1L)).build())
                .immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.ILLEGAL_GENERATION))));

        // The leader rejoins: a new generation is completed at once (its only member rejoined).
        context.join("foo").memberId(memberId).send();
        assertThat(context.group("foo").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(context.group("foo").generationId()).isEqualTo(2);

        Result completing = context.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(0, 100L)).build());
        // The generation check comes before the state check.
        assertThat(completing.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.ILLEGAL_GENERATION))));
        assertThat(completing.records()).isEmpty();

        context.sync("foo", memberId, 2, List.of());
        assertThat(context.group("foo").state()).isEqualTo(ClassicGroupState.STABLE);
        Result stable = context.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(0, 100L)).build());
        assertThat(stable.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.ILLEGAL_GENERATION))));
        assertThat(stable.records()).isEmpty();

        Result current = context.apply(commit("foo").member(memberId).generation(2)
                .topic("bar", partition(0, 100L)).build());
        assertThat(current.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
    }

    @Test
    @DisplayName("commit in PreparingRebalance, then the join completes: the old generation becomes ILLEGAL_GENERATION")
    void testOffsetCommitAcceptedUntilGenerationBump() {
        List<String> members = stableGroup(context, "foo", context.join("foo"), context.join("foo"));
        String leader = members.get(0);
        String follower = members.get(1);

        // A third member joins: PreparingRebalance, generation 1 is still current.
        Result third = context.join("foo").send();
        String thirdId = ((Result.Reply.Parked) third.reply()).key().memberId();
        assertThat(context.apply(commit("foo").member(follower).generation(1).topic("bar", partition(0, 1L)).build())
                .immediateResponse()).isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));

        context.join("foo").memberId(leader).send();
        context.join("foo").memberId(follower).send();
        JoinGroupResponse joined = context.takeJoin("foo", thirdId);
        assertThat(joined.generationId()).isEqualTo(2);

        assertThat(context.apply(commit("foo").member(follower).generation(1).topic("bar", partition(0, 2L)).build())
                .immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.ILLEGAL_GENERATION))));
    }

    @Test
    @DisplayName("null metadata is stored as \"\", the leader epoch is kept, and exact OffsetValue records in request order")
    void testOffsetCommitRecords() {
        String memberId = context.stableGroupWithOneMember("foo");
        context.sleep(250);
        long now = context.nowMs();

        Result result = context.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(1, 11L, 7, null), partition(0, 10L, -1, "meta"))
                .topic("baz", partition(3, 30L, 2, "")).build());

        assertThat(result.immediateResponse()).isEqualTo(commitResponse(
                topicErrors("bar", error(1, ErrorCode.NONE), error(0, ErrorCode.NONE)),
                topicErrors("baz", error(3, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(
                new CoordinatorRecord.OffsetValue("foo", "bar", 1, new OffsetAndMetadata(11L, 7, "", now, -1L)),
                new CoordinatorRecord.OffsetValue("foo", "bar", 0, new OffsetAndMetadata(10L, -1, "meta", now, -1L)),
                new CoordinatorRecord.OffsetValue("foo", "baz", 3, new OffsetAndMetadata(30L, 2, "", now, -1L)));

        OffsetFetchResponse fetched = context.shard().fetchOffsets("foo", Map.of("bar", List.of(1)));
        assertThat(fetched.topics()).containsExactly(
                new TopicOffsets("bar", List.of(new PartitionOffset(1, 11L, 7, "", ErrorCode.NONE))));
    }

    @Test
    @DisplayName("a commit may move the offset backwards: the last commit wins")
    void testOffsetCommitMayMoveOffsetBackwards() {
        context.apply(commit("foo").topic("bar", partition(0, 100L)).build());
        context.sleep(10);
        Result backwards = context.apply(commit("foo").topic("bar", partition(0, 50L)).build());

        assertThat(backwards.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(backwards.records()).containsExactly(offsetRecord("foo", "bar", 0, 50L, START_MS + 10));
        assertThat(context.shard().fetchOffsets("foo", Map.of("bar", List.of(0))).topics()).containsExactly(
                new TopicOffsets("bar", List.of(new PartitionOffset(0, 50L, -1, "", ErrorCode.NONE))));
    }

    @Test
    @DisplayName("commit to a Dead group: COORDINATOR_NOT_AVAILABLE for every partition, nothing written")
    void testOffsetCommitToDeadGroup() {
        context.apply(commit("foo").topic("bar", partition(0, 100L)).build());
        makeDead(context, "foo");

        for (int generation : new int[] {-1, 0, 1}) {
            Result result = context.apply(commit("foo").member(generation < 0 ? "" : "member").generation(generation)
                    .topic("bar", partition(0, 1L), partition(1, 2L)).topic("baz", partition(5, 3L)).build());

            assertThat(result.immediateResponse()).isEqualTo(commitResponse(
                    topicErrors("bar", error(0, ErrorCode.COORDINATOR_NOT_AVAILABLE),
                            error(1, ErrorCode.COORDINATOR_NOT_AVAILABLE)),
                    topicErrors("baz", error(5, ErrorCode.COORDINATOR_NOT_AVAILABLE))));
            assertThat(result.records()).isEmpty();
        }
        assertThat(context.shard().offsetCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("commit with generation -1 to an Empty group that had members: accepted without member validation")
    void testManualCommitToEmptyConsumerGroup() {
        String memberId = context.stableGroupWithOneMember("foo");
        context.apply(new Command.LeaveGroup("foo", List.of(new Command.LeavingMember(memberId, null, null))));
        assertThat(context.group("foo").state()).isEqualTo(ClassicGroupState.EMPTY);

        Result manual = context.apply(commit("foo").member("whoever").instance("some-instance").generation(-1)
                .topic("bar", partition(0, 5L)).build());
        assertThat(manual.immediateResponse()).isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(manual.records()).containsExactly(offsetRecord("foo", "bar", 0, 5L, context.nowMs()));

        // With a generation, the member must exist.
        Result withGeneration = context.apply(commit("foo").member(memberId).generation(1)
                .topic("bar", partition(0, 6L)).build());
        assertThat(withGeneration.immediateResponse())
                .isEqualTo(commitResponse(topicErrors("bar", error(0, ErrorCode.UNKNOWN_MEMBER_ID))));
    }
}
