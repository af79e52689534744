package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static io.cohort.core.shard.OffsetTestSupport.rangeSubscribedTo;
import static io.cohort.core.shard.OffsetTestSupport.stableGroup;
import static io.cohort.core.shard.OffsetTestSupport.subscription;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.Protocol;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.HeartbeatResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Replay, snapshot and restore (reference 2.13, style rule 7; case 121 adapted to Cohort).
 *
 * <p>Case 123 (unloading a partition makes every group Dead and fails parked joins with
 * NOT_COORDINATOR) has no counterpart in core: Cohort never unloads a shard. Every replica applies
 * every committed entry, so all replicas stay warm and a group never becomes Dead by losing
 * leadership; on step-down the server fails the parked JoinGroup/SyncGroup calls it holds with
 * NOT_COORDINATOR and cancels its timers, which is a server-side test, not a core one.
 */
class ReplayTest {
    private final GroupShardTestContext context = new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG, 50_000L);

    private static ClassicGroupMember member(String memberId, String instanceId, int rebalanceTimeoutMs,
                                             int sessionTimeoutMs, String topic, int assignment) {
        return new ClassicGroupMember(memberId, instanceId, "client-" + memberId, "host-" + memberId,
                rebalanceTimeoutMs, sessionTimeoutMs, "consumer",
                List.of(new Protocol("range", subscription(topic)), new Protocol("roundrobin", Bytes.EMPTY)),
                Bytes.copyOf(new byte[] {(byte) assignment}), false, false, false);
    }

    /** A Stable group at generation 5, as a GroupValue would carry it. */
    private static ClassicGroup persistedStableGroup() {
        Map<String, ClassicGroupMember> members = new LinkedHashMap<>();
        members.put("member-1", member("member-1", null, 4_000, 3_000, "foo", 1));
        members.put("instance-2-x", member("instance-2-x", "instance-2", 6_000, 5_000, "bar", 2));
        return new ClassicGroup("group", ClassicGroupState.STABLE, ClassicGroupState.COMPLETING_REBALANCE, 12_345L,
                5, "consumer", "range", "member-1", members, Map.of(), Set.of(), Set.of("bar", "foo"), null, false,
                null);
    }

    @Test
    @DisplayName("case 121: replaying a GroupValue restores exactly that group, and it continues from there")
    void testReplayGroupMetadataRecords() {
        ClassicGroup persisted = persistedStableGroup();

        context.replay(new CoordinatorRecord.GroupValue(persisted));

        assertThat(context.group("group")).isEqualTo(persisted);
        assertThat(context.shard().groupIds()).containsExactly("group");
        // The group works at the persisted generation, protocol and leader.
        assertThat(context.heartbeat("group", "member-1", 5)).isEqualTo(new HeartbeatResponse(ErrorCode.NONE));
        assertThat(context.heartbeat("group", "member-1", 4))
                .isEqualTo(new HeartbeatResponse(ErrorCode.ILLEGAL_GENERATION));
        assertThat(context.heartbeat("group", "instance-2-x", "instance-2", 5))
                .isEqualTo(new HeartbeatResponse(ErrorCode.NONE));
        assertThat(context.apply(new Command.SyncGroup("group", 5, "instance-2-x", "instance-2", null, null, List.of()))
                .immediateResponse())
                .isEqualTo(new SyncGroupResponse(ErrorCode.NONE, "consumer", "range", Bytes.copyOf(new byte[] {2})));
        // A new leader arms each member's session at its own timeout, and the expiration job.
        long now = context.nowMs();
        assertThat(context.shard().onLeaderReady(now)).containsExactly(
                new TimerOp.Schedule(TimerOp.Keys.heartbeat("group", "member-1"), now + 3_000,
                        new Command.ExpireMemberSession("group", "member-1")),
                new TimerOp.Schedule(TimerOp.Keys.heartbeat("group", "instance-2-x"), now + 5_000,
                        new Command.ExpireMemberSession("group", "instance-2-x")),
                new TimerOp.Schedule(TimerOp.Keys.EXPIRE_OFFSETS,
                        now + GroupShardTestContext.TEST_CONFIG.offsetsRetentionCheckIntervalMs(),
                        new Command.ExpireOffsets()));
    }

    @Test
    @DisplayName("case 121: a member that sent no rebalance timeout (v0) gets its session timeout as rebalance timeout")
    void testRebalanceTimeoutDefaultsToSessionTimeout() {
        Result result = context.join("group").version(0).sessionTimeoutMs(700).rebalanceTimeoutMs(-1).send();
        String memberId = ((Result.Reply.Parked) result.reply()).key().memberId();

        assertThat(context.group("group").member(memberId).rebalanceTimeoutMs()).isEqualTo(700);
        assertThat(context.group("group").member(memberId).sessionTimeoutMs()).isEqualTo(700);
    }

    @Test
    @DisplayName("replaying an offset for an unknown group creates an Empty simple group; a GroupValue keeps offsets")
    void testReplayOffsetRecords() {
        OffsetAndMetadata value = new OffsetAndMetadata(10L, 2, "m", 777L, -1L);
        context.replay(new CoordinatorRecord.OffsetValue("group", "foo", 0, value));

        assertThat(context.group("group")).isEqualTo(ClassicGroup.newEmpty("group", 777L));
        assertThat(context.shard().offsetCount()).isEqualTo(1);

        ClassicGroup persisted = persistedStableGroup();
        context.replay(new CoordinatorRecord.GroupValue(persisted));
        assertThat(context.group("group")).isEqualTo(persisted);
        assertThat(context.shard().fetchOffsets("group", Map.of("foo", List.of(0))).topics().get(0).partitions()
                .get(0).offset()).isEqualTo(10L);

        // Another offset for an existing group does not touch the group value.
        context.replay(new CoordinatorRecord.OffsetValue("group", "foo", 1, value));
        assertThat(context.group("group")).isEqualTo(persisted);

        context.replay(new CoordinatorRecord.OffsetTombstone("group", "foo", 0));
        context.replay(new CoordinatorRecord.OffsetTombstone("group", "foo", 1));
        // A tombstone for an offset that does not exist changes nothing.
        context.replay(new CoordinatorRecord.OffsetTombstone("group", "foo", 9));
        assertThat(context.shard().offsetCount()).isZero();
        context.replay(new CoordinatorRecord.GroupTombstone("group"));
        assertThat(context.group("group")).isNull();
    }

    @Test
    @DisplayName("a GroupTombstone while the group still has offsets breaks an invariant: IllegalStateException")
    void testGroupTombstoneWithOffsetsThrows() {
        context.apply(commit("group").topic("foo", partition(0, 1L)).build());
        ClassicGroup before = context.group("group");

        assertThatThrownBy(() -> context.replay(new CoordinatorRecord.GroupTombstone("group")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("group");
        assertThat(context.group("group")).isEqualTo(before);
        assertThat(context.shard().offsetCount()).isEqualTo(1);
    }

    /**
     * A shard with groups in every interesting situation: Stable with a static member and offsets, a
     * simple group, a rebalance in PreparingRebalance with a parked join and a pending member, and one
     * in CompletingRebalance with an armed sync timer.
     */
    private void buildRichState() {
        int longMs = 600_000;
        List<String> stable = stableGroup(context, "stable",
                context.join("stable").protocols(rangeSubscribedTo("foo")).sessionTimeoutMs(longMs),
                context.join("stable").protocols(rangeSubscribedTo("bar")).instanceId("static-1")
                        .sessionTimeoutMs(longMs));
        context.apply(commit("stable").member(stable.get(0)).generation(1)
                .topic("foo", partition(0, 10L, 3, "meta")).topic("baz", partition(1, 11L)).build());
        stableGroup(context, "preparing", context.join("preparing").sessionTimeoutMs(longMs).rebalanceTimeoutMs(longMs));
        // The last set-up that waits: nothing below lets time pass, so every group stays as built.
        context.joinedLeaderInCompletingRebalance("completing");
        assertThat(context.group("completing").syncTimer()).isNotNull();

        context.join("preparing").sessionTimeoutMs(longMs).rebalanceTimeoutMs(longMs).send();
        context.join("preparing").version(4).sessionTimeoutMs(longMs).send();
        assertThat(context.group("preparing").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(context.group("preparing").joinTimer()).isNotNull();
        assertThat(context.group("preparing").pendingMembers()).hasSize(1);
        context.apply(commit("simple").retention(99_000L).topic("t", partition(2, 5L), partition(0, 4L)).build());
        assertThat(context.group("stable").state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    @DisplayName("snapshot() restored into a fresh shard gives equal snapshot records, groups, offsets and timers")
    void testSnapshotRestoreRoundTrip() {
        buildRichState();
        List<CoordinatorRecord> snapshot = context.shard().snapshot();
        assertThat(snapshot).isSortedAccordingTo(CoordinatorRecord.SNAPSHOT_ORDER);
        assertThat(snapshot).filteredOn(r -> r instanceof CoordinatorRecord.GroupValue).hasSize(4);
        assertThat(snapshot).filteredOn(r -> r instanceof CoordinatorRecord.OffsetValue).hasSize(4);

        GroupCoordinatorShard restored = new GroupCoordinatorShard(context.shard().config());
        restored.restore(snapshot);

        assertThat(restored.snapshot()).isEqualTo(snapshot);
        for (String groupId : context.shard().groupIds()) {
            assertThat(restored.group(groupId)).isEqualTo(context.group(groupId));
            assertThat(restored.fetchOffsets(groupId, null)).isEqualTo(context.shard().fetchOffsets(groupId, null));
        }
        assertThat(restored.groupIds()).isEqualTo(context.shard().groupIds());
        long now = context.nowMs();
        assertThat(restored.onLeaderReady(now)).isEqualTo(context.shard().onLeaderReady(now));
    }

    @Test
    @DisplayName("a restored replica and the original answer the same commands with the same results and state")
    void testRestoredShardContinuesIdentically() {
        buildRichState();
        GroupCoordinatorShard original = context.shard();
        GroupCoordinatorShard restored = new GroupCoordinatorShard(original.config());
        restored.restore(original.snapshot());

        ClassicGroup completing = original.group("completing");
        String completingLeader = completing.leaderId();
        ClassicGroup preparing = original.group("preparing");
        long t = context.nowMs();
        List<Command> commands = new ArrayList<>(List.of(
                commit("stable").topic("foo", partition(0, 1L)).build(),
                new Command.SyncGroup("completing", 1, completingLeader, null, null, null,
                        List.of(new Command.MemberAssignment(completingLeader, Bytes.copyOf(new byte[] {9})))),
                new Command.FireJoinTimer("preparing", preparing.joinTimer().deadlineMs()),
                new Command.ExpireOffsets(),
                commit("simple").topic("t", partition(7, 70L)).build(),
                new Command.DeleteGroups(List.of("simple", "stable"))));
        for (int i = 0; i < commands.size(); i++) {
            long atMs = t + 100_000L * (i + 1);
            assertThat(restored.apply(commands.get(i), atMs)).as("command %s", i)
                    .isEqualTo(original.apply(commands.get(i), atMs));
            assertThat(restored.snapshot()).isEqualTo(original.snapshot());
        }
        // The commands did change the state (the comparison above was not between two idle shards).
        assertThat(original.group("completing").state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(original.group("simple")).isNull();
    }

    @Test
    @DisplayName("restore() replaces the whole state: groups and offsets not in the snapshot are gone")
    void testRestoreReplacesState() {
        context.apply(commit("kept").topic("foo", partition(0, 1L)).build());
        List<CoordinatorRecord> snapshot = context.shard().snapshot();
        context.apply(commit("dropped").topic("foo", partition(0, 2L)).build());
        context.apply(commit("kept").topic("foo", partition(1, 3L)).build());

        context.shard().restore(snapshot);

        assertThat(context.shard().groupIds()).containsExactly("kept");
        assertThat(context.shard().offsetCount()).isEqualTo(1);
        assertThat(context.shard().fetchOffsets("dropped", null).topics()).isEmpty();
        assertThat(context.shard().snapshot()).isEqualTo(snapshot);
    }

    @Test
    @DisplayName("a cut keeps the state it was taken of while the shard goes on applying (snapshots written beside apply)")
    void aCutIsTheStateAtItsEntryWhateverIsAppliedAfter() {
        List<String> members = stableGroup(context, "stable", context.join("stable").protocols(rangeSubscribedTo("foo")));
        context.apply(commit("stable").member(members.get(0)).generation(1).topic("foo", partition(0, 10), partition(1, 11))
                .build());
        context.apply(commit("simple").topic("bar", partition(0, 5)).build());
        List<CoordinatorRecord> before = context.shard().snapshot();

        StateCut cut = context.shard().cut();
        // After the cut: offsets overwritten and added, a group deleted, a new group, a member leaving.
        context.apply(commit("stable").member(members.get(0)).generation(1).topic("foo", partition(0, 20), partition(2, 22))
                .build());
        context.apply(new Command.DeleteGroups(List.of("simple")));
        context.apply(commit("later").topic("baz", partition(0, 1)).build());
        context.apply(new Command.LeaveGroup("stable", List.of(new Command.LeavingMember(members.get(0), null, null))));
        assertThat(context.shard().snapshot()).isNotEqualTo(before);

        assertThat(cut.records()).isEqualTo(before);
        assertThat(cut.groupCount()).isEqualTo(2);
        assertThat(cut.offsetCount()).isEqualTo(3);
        GroupCoordinatorShard restored = new GroupCoordinatorShard(GroupShardTestContext.TEST_CONFIG);
        restored.restore(cut.records());
        assertThat(restored.snapshot()).isEqualTo(before);
    }
}
