package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * JoinGroup and SyncGroup against the partition's {@link StateLimits}: a join that would create one
 * group too many or add member metadata beyond the partition's budget, and a leader's SyncGroup whose
 * assignments would, are refused with GROUP_MAX_SIZE_REACHED and a message naming the limit; nothing
 * of them is applied (no record, no timer, no completion).
 */
class GroupLimitsTest {
    private static GroupShardTestContext contextWith(StateLimits limits) {
        return new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG.withLimits(limits));
    }

    private static void assertNothingApplied(Result result) {
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(result.completions()).isEmpty();
    }

    @Test
    @DisplayName("offsets.partition.max.groups: a JoinGroup creating one group too many is refused")
    void testJoinGroupBeyondMaxGroupsPerPartition() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxGroupsPerPartition(1));
        context.apply(commit("existing").topic("t", partition(0, 1L)).build());

        Result result = context.join("new-group").send();
        assertThat(result.immediateResponse()).isEqualTo(JoinGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, "",
                "offsets.partition.max.groups=1 would be exceeded: the partition holds 1 groups and this request "
                        + "would add 1; nothing of the request was applied"));
        assertNothingApplied(result);
        assertThat(context.group("new-group")).isNull();
    }

    @Test
    @DisplayName("offsets.partition.max.metadata.bytes: a member whose protocol metadata would not fit is refused")
    void testJoinGroupBeyondMaxMetadataBytesPerPartition() {
        // protocols("range") carries the 5 bytes "range": one member fits in 8 bytes, two do not.
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxMetadataBytesPerPartition(8));
        assertThat(context.join("g").send().reply()).isInstanceOf(Result.Reply.Parked.class);
        assertThat(context.shard().metadataBytes()).isEqualTo(5);
        ClassicGroup before = context.group("g");

        Result second = context.join("g").send();
        assertThat(second.immediateResponse()).isEqualTo(JoinGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, "",
                "offsets.partition.max.metadata.bytes=8 would be exceeded: the partition holds 5 bytes of metadata "
                        + "and this request would add 5; nothing of the request was applied"));
        assertNothingApplied(second);
        assertThat(context.group("g")).isEqualTo(before);
    }

    @Test
    @DisplayName("offsets.partition.max.metadata.bytes: a leader's SyncGroup with assignments that do not fit is refused")
    void testSyncGroupBeyondMaxMetadataBytesPerPartition() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxMetadataBytesPerPartition(6));
        String leader = context.joinedLeaderInCompletingRebalance("g");
        assertThat(context.shard().metadataBytes()).isEqualTo(5);
        ClassicGroup before = context.group("g");

        Result sync = context.sync("g", leader, 1,
                List.of(new Command.MemberAssignment(leader, Bytes.copyOf(new byte[] {1, 2}))));
        assertThat(sync.immediateResponse()).isEqualTo(SyncGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED,
                "offsets.partition.max.metadata.bytes=6 would be exceeded: the partition holds 5 bytes of metadata "
                        + "and this request would add 2; nothing of the request was applied"));
        assertNothingApplied(sync);
        assertThat(context.group("g")).isEqualTo(before);
        assertThat(context.group("g").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

        // An assignment that fits completes the sync.
        Result fitting = context.sync("g", leader, 1,
                List.of(new Command.MemberAssignment(leader, Bytes.copyOf(new byte[] {1}))));
        assertThat(((SyncGroupResponse) fitting.immediateResponse()).error()).isEqualTo(ErrorCode.NONE);
        assertThat(context.shard().metadataBytes()).isEqualTo(6);
    }

    @Test
    @DisplayName("the counters follow members leaving and groups being deleted")
    void testMetadataBytesShrinkWhenMembersLeave() {
        GroupShardTestContext context = contextWith(StateLimits.defaults());
        String leader = context.joinedLeaderInCompletingRebalance("g");
        assertThat(context.shard().metadataBytes()).isEqualTo(5);
        context.apply(new Command.LeaveGroup("g", List.of(new Command.LeavingMember(leader, null, null))));
        assertThat(context.group("g").members()).isEmpty();
        assertThat(context.shard().metadataBytes()).isZero();
    }
}
