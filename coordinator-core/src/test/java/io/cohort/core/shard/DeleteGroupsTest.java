package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.makeDead;
import static io.cohort.core.shard.OffsetTestSupport.offsetTombstone;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.DeleteGroupsResponse;
import io.cohort.core.response.DeleteGroupsResponse.GroupResult;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** DeleteGroups (reference 1.11, 3.5; case 117). */
class DeleteGroupsTest {
    private final GroupShardTestContext context = new GroupShardTestContext();

    private Result deleteGroups(String... groupIds) {
        return context.apply(new Command.DeleteGroups(Arrays.asList(groupIds)));
    }

    private static DeleteGroupsResponse results(GroupResult... results) {
        return new DeleteGroupsResponse(Arrays.asList(results));
    }

    @Test
    @DisplayName("case 117: DeleteGroups on a group with a member: NON_EMPTY_GROUP, nothing written")
    void testDeleteNonEmptyGroup() {
        String memberId = context.stableGroupWithOneMember("group");
        context.apply(commit("group").member(memberId).generation(1).topic("foo", partition(0, 1L)).build());

        Result result = deleteGroups("group");

        assertThat(result.immediateResponse())
                .isEqualTo(results(new GroupResult("group", ErrorCode.NON_EMPTY_GROUP)));
        assertThat(result.records()).isEmpty();
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(context.shard().offsetCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("case 117: groups in PreparingRebalance and CompletingRebalance are non-empty too")
    void testDeleteRebalancingGroups() {
        context.join("preparing").send();
        assertThat(context.group("preparing").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        context.joinedLeaderInCompletingRebalance("completing");

        Result result = deleteGroups("preparing", "completing");

        assertThat(result.immediateResponse()).isEqualTo(results(
                new GroupResult("preparing", ErrorCode.NON_EMPTY_GROUP),
                new GroupResult("completing", ErrorCode.NON_EMPTY_GROUP)));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("DeleteGroups on a missing or Dead group: GROUP_ID_NOT_FOUND")
    void testDeleteMissingOrDeadGroup() {
        context.apply(commit("dead").topic("foo", partition(0, 1L)).build());
        makeDead(context, "dead");

        Result result = deleteGroups("missing", "dead");

        assertThat(result.immediateResponse()).isEqualTo(results(
                new GroupResult("missing", ErrorCode.GROUP_ID_NOT_FOUND),
                new GroupResult("dead", ErrorCode.GROUP_ID_NOT_FOUND)));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("DeleteGroups with a null group id: INVALID_GROUP_ID for it, the others answered")
    void testDeleteGroupsInvalidGroupId() {
        context.apply(commit("group").topic("foo", partition(0, 1L)).build());

        Result result = deleteGroups(null, "group");

        assertThat(result.immediateResponse()).isEqualTo(results(
                new GroupResult(null, ErrorCode.INVALID_GROUP_ID),
                new GroupResult("group", ErrorCode.NONE)));
        assertThat(result.records()).containsExactly(
                offsetTombstone("group", "foo", 0), new CoordinatorRecord.GroupTombstone("group"));
    }

    @Test
    @DisplayName("deleting an Empty group with offsets: offset tombstones then a GroupTombstone; group and offsets gone")
    void testDeleteEmptyGroupWithOffsets() {
        String memberId = context.stableGroupWithOneMember("group");
        context.apply(commit("group").member(memberId).generation(1)
                .topic("foo", partition(1, 11L), partition(0, 10L)).topic("bar", partition(0, 20L)).build());
        context.apply(commit("other").topic("foo", partition(0, 1L)).build());
        context.apply(new Command.LeaveGroup("group", List.of(new Command.LeavingMember(memberId, null, null))));
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.EMPTY);

        Result result = deleteGroups("group");

        assertThat(result.immediateResponse()).isEqualTo(results(new GroupResult("group", ErrorCode.NONE)));
        // Offsets in topic-partition order, then the group.
        assertThat(result.records()).containsExactly(
                offsetTombstone("group", "bar", 0),
                offsetTombstone("group", "foo", 0),
                offsetTombstone("group", "foo", 1),
                new CoordinatorRecord.GroupTombstone("group"));
        assertThat(context.group("group")).isNull();
        assertThat(context.shard().groupIds()).containsExactly("other");
        assertThat(context.shard().fetchOffsets("group", null).topics()).isEmpty();
        assertThat(context.shard().offsetCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("deleting an Empty group without offsets: only a GroupTombstone")
    void testDeleteEmptyGroupWithoutOffsets() {
        String memberId = context.stableGroupWithOneMember("group");
        context.apply(new Command.LeaveGroup("group", List.of(new Command.LeavingMember(memberId, null, null))));

        Result result = deleteGroups("group");

        assertThat(result.immediateResponse()).isEqualTo(results(new GroupResult("group", ErrorCode.NONE)));
        assertThat(result.records()).containsExactly(new CoordinatorRecord.GroupTombstone("group"));
        assertThat(context.group("group")).isNull();
    }

    @Test
    @DisplayName("duplicates in the request are answered once and deleted once")
    void testDeleteGroupsDuplicates() {
        context.apply(commit("group").topic("foo", partition(0, 1L)).build());

        Result result = deleteGroups("group", "missing", "group", "missing");

        assertThat(result.immediateResponse()).isEqualTo(results(
                new GroupResult("group", ErrorCode.NONE),
                new GroupResult("missing", ErrorCode.GROUP_ID_NOT_FOUND)));
        assertThat(result.records()).containsExactly(
                offsetTombstone("group", "foo", 0), new CoordinatorRecord.GroupTombstone("group"));
        assertThat(context.group("group")).isNull();
    }
}
