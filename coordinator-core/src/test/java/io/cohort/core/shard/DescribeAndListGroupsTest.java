package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.assignment;
import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static io.cohort.core.shard.OffsetTestSupport.rangeSubscribedTo;
import static io.cohort.core.shard.OffsetTestSupport.stableGroup;
import static io.cohort.core.shard.OffsetTestSupport.subscription;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.DescribedGroup;
import io.cohort.core.response.DescribedGroup.DescribedMember;
import io.cohort.core.response.ListedGroup;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** DescribeGroups and ListGroups (reference 1.9, 1.10; cases 5, 125, 127). Both read the applied state. */
class DescribeAndListGroupsTest {
    private static final short V5 = 5;
    private static final short V6 = 6;
    private static final String HOST = "/127.0.0.1";
    private static final List<String> ALL_STATES =
            List.of("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead");

    private final GroupShardTestContext context = new GroupShardTestContext();

    private List<DescribedGroup> describe(short version, String... groupIds) {
        return context.shard().describeGroups(Arrays.asList(groupIds), version);
    }

    private List<ListedGroup> list(List<String> states, List<String> types) {
        return context.shard().listGroups(states, types);
    }

    private static DescribedGroup deadGroup(String groupId) {
        return DescribedGroup.absent(groupId, ErrorCode.NONE, "Dead");
    }

    @Test
    @DisplayName("case 5: DescribeGroups with a null group id among others: INVALID_GROUP_ID for it, others answered")
    void testDescribeGroupsInvalidGroupId() {
        String memberId = context.stableGroupWithOneMember("group");

        List<DescribedGroup> described = describe(V5, "group", null, "missing");

        assertThat(described).hasSize(3);
        assertThat(described.get(0).groupId()).isEqualTo("group");
        assertThat(described.get(0).error()).isEqualTo(ErrorCode.NONE);
        assertThat(described.get(0).state()).isEqualTo("Stable");
        assertThat(described.get(0).members()).extracting(DescribedMember::memberId).containsExactly(memberId);
        assertThat(described.get(1)).isEqualTo(DescribedGroup.absent(null, ErrorCode.INVALID_GROUP_ID, ""));
        assertThat(described.get(2)).isEqualTo(deadGroup("missing"));
    }

    @Test
    @DisplayName("case 125: DescribeGroups of an unknown group: v5 state Dead with NONE, v6 GROUP_ID_NOT_FOUND")
    void testDescribeGroupsGroupIdNotFoundException() {
        assertThat(describe(V5, "unknown")).containsExactly(deadGroup("unknown"));
        assertThat(describe(V6, "unknown")).containsExactly(
                DescribedGroup.absent("unknown", ErrorCode.GROUP_ID_NOT_FOUND, "Dead"));
        // "" is a legal group id for DescribeGroups: unknown, not invalid.
        assertThat(describe(V5, "")).containsExactly(deadGroup(""));
    }

    @Test
    @DisplayName("DescribeGroups of a Stable group: protocol data and each member's metadata for it and assignment")
    void testDescribeStableGroup() {
        List<String> members = stableGroup(context, "group",
                context.join("group").protocols(rangeSubscribedTo("foo")).clientId("client-a"),
                context.join("group").protocols(rangeSubscribedTo("bar")).clientId("client-b").instanceId("b"));

        assertThat(describe(V5, "group")).containsExactly(new DescribedGroup("group", ErrorCode.NONE, "Stable",
                "consumer", "range", 1, members.get(0), List.of(
                        new DescribedMember(members.get(0), null, "client-a", HOST, subscription("foo"),
                                assignment(0)),
                        new DescribedMember(members.get(1), "b", "client-b", HOST, subscription("bar"),
                                assignment(1)))));
    }

    @Test
    @DisplayName("DescribeGroups of a rebalancing group: protocol data \"\", no metadata, but the last assignments")
    void testDescribeRebalancingGroup() {
        List<String> members = stableGroup(context, "group",
                context.join("group").protocols(rangeSubscribedTo("foo")),
                context.join("group").protocols(rangeSubscribedTo("bar")));
        Result third = context.join("group").protocols(rangeSubscribedTo("baz")).send();
        String thirdId = ((Result.Reply.Parked) third.reply()).key().memberId();
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        assertThat(describe(V5, "group")).containsExactly(new DescribedGroup("group", ErrorCode.NONE,
                "PreparingRebalance", "consumer", "", 1, members.get(0), List.of(
                        new DescribedMember(members.get(0), null, "client", HOST, Bytes.EMPTY, assignment(0)),
                        new DescribedMember(members.get(1), null, "client", HOST, Bytes.EMPTY, assignment(1)),
                        new DescribedMember(thirdId, null, "client", HOST, Bytes.EMPTY, Bytes.EMPTY))));

        // Everyone rejoins: CompletingRebalance at generation 2, assignments still shown until the sync.
        context.join("group").memberId(members.get(0)).protocols(rangeSubscribedTo("foo")).send();
        context.join("group").memberId(members.get(1)).protocols(rangeSubscribedTo("bar")).send();
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        DescribedGroup completing = describe(V5, "group").get(0);
        assertThat(completing.state()).isEqualTo("CompletingRebalance");
        assertThat(completing.generationId()).isEqualTo(2);
        assertThat(completing.protocolData()).isEmpty();
        assertThat(completing.members()).extracting(DescribedMember::metadata)
                .containsExactly(Bytes.EMPTY, Bytes.EMPTY, Bytes.EMPTY);
        assertThat(completing.members()).extracting(DescribedMember::assignment)
                .containsExactly(assignment(0), assignment(1), Bytes.EMPTY);
    }

    @Test
    @DisplayName("DescribeGroups of Empty groups: a simple group has protocol type \"\", an emptied one keeps its type")
    void testDescribeEmptyGroups() {
        context.apply(commit("simple").topic("foo", partition(0, 1L)).build());
        String memberId = context.stableGroupWithOneMember("emptied");
        context.apply(new Command.LeaveGroup("emptied", List.of(new Command.LeavingMember(memberId, null, null))));

        assertThat(describe(V5, "simple", "emptied")).containsExactly(
                new DescribedGroup("simple", ErrorCode.NONE, "Empty", "", "", 0, "", List.of()),
                new DescribedGroup("emptied", ErrorCode.NONE, "Empty", "consumer", "", 2, "", List.of()));
    }

    @Test
    @DisplayName("case 127: a group moving CompletingRebalance -> Stable -> Empty is listed only under its current state")
    void testListGroupsWithStates() {
        String memberId = context.joinedLeaderInCompletingRebalance("group");
        assertListedOnlyUnder("CompletingRebalance");

        context.sync("group", memberId, 1, List.of(new Command.MemberAssignment(memberId, assignment(0))));
        assertListedOnlyUnder("Stable");

        context.apply(new Command.LeaveGroup("group", List.of(new Command.LeavingMember(memberId, null, null))));
        assertListedOnlyUnder("Empty");
    }

    private void assertListedOnlyUnder(String currentState) {
        for (String state : ALL_STATES) {
            List<ListedGroup> listed = list(List.of(state), List.of());
            if (state.equals(currentState)) {
                assertThat(listed).as("listed under %s", state)
                        .containsExactly(new ListedGroup("group", "consumer", currentState, "classic"));
            } else {
                assertThat(listed).as("listed under %s", state).isEmpty();
            }
        }
    }

    @Test
    @DisplayName("ListGroups: state filters are case-insensitive, an empty or null filter lists all")
    void testListGroupsStateFilterCaseInsensitive() {
        context.stableGroupWithOneMember("stable");
        context.apply(commit("simple").topic("foo", partition(0, 1L)).build());

        ListedGroup stable = new ListedGroup("stable", "consumer", "Stable", "classic");
        ListedGroup simple = new ListedGroup("simple", "", "Empty", "classic");
        assertThat(list(List.of("stable"), List.of())).containsExactly(stable);
        assertThat(list(List.of("STABLE"), List.of())).containsExactly(stable);
        assertThat(list(List.of("eMpTy", "Stable"), List.of())).containsExactly(simple, stable);
        assertThat(list(List.of("NoSuchState"), List.of())).isEmpty();
        assertThat(list(List.of(), List.of())).containsExactly(simple, stable);
        assertThat(list(null, null)).containsExactly(simple, stable);
    }

    @Test
    @DisplayName("ListGroups: type filter \"classic\" (any case) lists classic groups; \"consumer\" matches nothing")
    void testListGroupsTypeFilter() {
        context.stableGroupWithOneMember("group");
        ListedGroup group = new ListedGroup("group", "consumer", "Stable", "classic");

        assertThat(list(List.of(), List.of("classic"))).containsExactly(group);
        assertThat(list(List.of(), List.of("Classic"))).containsExactly(group);
        assertThat(list(List.of(), List.of("consumer"))).isEmpty();
        assertThat(list(List.of(), List.of("share"))).isEmpty();
        assertThat(list(List.of(), List.of("consumer", "CLASSIC"))).containsExactly(group);
        assertThat(list(List.of("Stable"), List.of("classic"))).containsExactly(group);
        assertThat(list(List.of("Empty"), List.of("classic"))).isEmpty();
    }

    @Test
    @DisplayName("ListGroups output is sorted by group id, whatever the creation order")
    void testListGroupsSorted() {
        for (String groupId : List.of("delta", "alpha", "charlie", "bravo")) {
            context.apply(commit(groupId).topic("foo", partition(0, 1L)).build());
        }
        context.join("echo").send();

        assertThat(list(List.of(), List.of())).extracting(ListedGroup::groupId)
                .containsExactly("alpha", "bravo", "charlie", "delta", "echo");
        assertThat(list(List.of(), List.of())).extracting(ListedGroup::state)
                .containsExactly("Empty", "Empty", "Empty", "Empty", "PreparingRebalance");
    }
}
