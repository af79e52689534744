package io.cohort.core.shard;

import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_NAME;
import static io.cohort.core.shard.RebalanceFixtures.PROTOCOL_TYPE;
import static io.cohort.core.shard.RebalanceFixtures.assignmentOf;
import static io.cohort.core.shard.RebalanceFixtures.assignmentsFor;
import static io.cohort.core.shard.RebalanceFixtures.dynamicMembersInCompletingRebalance;
import static io.cohort.core.shard.RebalanceFixtures.groupValueOf;
import static io.cohort.core.shard.RebalanceFixtures.markDead;
import static io.cohort.core.shard.RebalanceFixtures.staticMembersInCompletingRebalance;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.SyncGroupResponse;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** SyncGroup (reference 1.3) and the pending-sync timeout (2.7, KAFKA-12890). */
class SyncGroupTest {
    private static final String GROUP_ID = "group-id";

    private final GroupShardTestContext context = new GroupShardTestContext();

    private Result sync(String memberId, int generationId, String instanceId, String protocolType,
                        String protocolName, List<Command.MemberAssignment> assignments) {
        return context.apply(new Command.SyncGroup(GROUP_ID, generationId, memberId, instanceId, protocolType,
                protocolName, assignments));
    }

    private static SyncGroupResponse error(ErrorCode error) {
        return new SyncGroupResponse(error, null, null, Bytes.EMPTY);
    }

    @Test
    @DisplayName("null or empty group id: INVALID_GROUP_ID")
    void testSyncGroupWithInvalidGroupId() {
        for (String groupId : new String[] {null, ""}) {
            Result result = context.apply(new Command.SyncGroup(groupId, 1, "member", null, null, null, List.of()));
            assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.INVALID_GROUP_ID));
            assertThat(result.records()).isEmpty();
        }
        assertThat(context.shard().groupCount()).isZero();
    }

    @Test
    @DisplayName("unknown group: UNKNOWN_MEMBER_ID and no group created")
    void testSyncGroupFromUnknownGroup() {
        Result result = context.sync(GROUP_ID, "member-id", 1, List.of());
        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.UNKNOWN_MEMBER_ID));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isNull();
    }

    @Test
    @DisplayName("Empty group: a former member's SyncGroup gets UNKNOWN_MEMBER_ID")
    void testSyncGroupEmptyGroup() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        context.apply(new Command.LeaveGroup(GROUP_ID, List.of(new Command.LeavingMember(member, null, null))));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.EMPTY);

        Result result = context.sync(GROUP_ID, member, context.group(GROUP_ID).generationId(), List.of());

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.UNKNOWN_MEMBER_ID));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("case 63: Stable group, SyncGroup from an unknown member: UNKNOWN_MEMBER_ID, empty assignment")
    void testSyncGroupFromUnknownMember() {
        context.stableGroupWithOneMember(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = context.sync(GROUP_ID, "unknown-member-id", 1, List.of());

        SyncGroupResponse response = (SyncGroupResponse) result.immediateResponse();
        assertThat(response).isEqualTo(error(ErrorCode.UNKNOWN_MEMBER_ID));
        assertThat(response.assignment().isEmpty()).isTrue();
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 65: SyncGroup with an inconsistent protocol type: INCONSISTENT_GROUP_PROTOCOL")
    void testSyncGroupReturnsAnErrorWhenProtocolTypeIsInconsistent() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = sync(leader, 1, null, "protocolType", null, assignmentsFor(List.of(leader)));

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 65: SyncGroup with an inconsistent protocol name: INCONSISTENT_GROUP_PROTOCOL")
    void testSyncGroupReturnsAnErrorWhenProtocolNameIsInconsistent() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = sync(leader, 1, null, PROTOCOL_TYPE, "roundrobin", assignmentsFor(List.of(leader)));

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("case 65: SyncGroup without protocol type and name: NONE, echoing the group's")
    void testSyncGroupSucceedWhenProtocolTypeAndNameAreNotProvided() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);

        Result result = sync(leader, 1, null, null, null, assignmentsFor(List.of(leader)));

        assertThat(result.immediateResponse()).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentOf(leader)));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    @DisplayName("case 65: SyncGroup with the group's protocol type and name: NONE")
    void testSyncGroupSucceedWhenProtocolTypeAndNameAreConsistent() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);

        Result result = sync(leader, 1, null, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentsFor(List.of(leader)));

        assertThat(result.immediateResponse()).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentOf(leader)));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
    }

    // Case 67 (the leader's SyncGroup whose append fails with NOT_LEADER_OR_FOLLOWER answers
    // NOT_COORDINATOR) does not exist in core: Raft applies only committed entries, so a SyncGroup that
    // reaches the shard is already durable. Mapping a failed proposal to an error is the server's job.

    @Test
    @DisplayName("ILLEGAL_GENERATION for a generation other than the group's")
    void testSyncGroupFromIllegalGeneration() {
        String leader = context.joinedLeaderInCompletingRebalance(GROUP_ID);
        ClassicGroup before = context.group(GROUP_ID);

        for (int generationId : new int[] {0, 2}) {
            Result result = context.sync(GROUP_ID, leader, generationId, assignmentsFor(List.of(leader)));
            assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.ILLEGAL_GENERATION));
            assertThat(result.records()).isEmpty();
        }
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("a member id check wins over the generation check: UNKNOWN_MEMBER_ID")
    void testSyncGroupUnknownMemberWithIllegalGeneration() {
        context.joinedLeaderInCompletingRebalance(GROUP_ID);

        Result result = context.sync(GROUP_ID, "unknown-member-id", 7, List.of());

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.UNKNOWN_MEMBER_ID));
    }

    @Test
    @DisplayName("SyncGroup in PreparingRebalance: REBALANCE_IN_PROGRESS and nothing changes")
    void testSyncGroupInPreparingRebalance() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        RebalanceFixtures.syncAll(context, GROUP_ID, members);
        // The leader's rejoin starts a new rebalance.
        context.join(GROUP_ID).memberId(members.get(0)).send();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = context.sync(GROUP_ID, members.get(1), 1, List.of());

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.REBALANCE_IN_PROGRESS));
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("Dead group: COORDINATOR_NOT_AVAILABLE")
    void testSyncGroupDeadGroup() {
        String member = context.stableGroupWithOneMember(GROUP_ID);
        markDead(context, GROUP_ID);

        Result result = context.sync(GROUP_ID, member, 1, List.of());

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.COORDINATOR_NOT_AVAILABLE));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("case 69: a parked follower SyncGroup and the leader's both complete NONE with their own assignments")
    void testSyncGroupLeaderAfterFollower() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        String leader = members.get(0);
        String follower = members.get(1);

        Result followerSync = context.sync(GROUP_ID, follower, 1, List.of());

        assertThat(followerSync.reply()).isEqualTo(new Result.Reply.Parked(ParkKey.sync(GROUP_ID, follower)));
        assertThat(followerSync.completions()).isEmpty();
        // Cohort replicates the parked call: the follower awaits sync and is no longer pending.
        assertThat(followerSync.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).member(follower).awaitingSync()).isTrue();
        assertThat(context.group(GROUP_ID).pendingSyncMembers()).containsExactly(leader);
        assertThat(context.takeSync(GROUP_ID, follower)).isNull();

        Result leaderSync = context.sync(GROUP_ID, leader, 1, assignmentsFor(members));

        assertThat(leaderSync.immediateResponse()).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentOf(leader)));
        assertThat(leaderSync.completions()).containsExactly(new Result.Completion(ParkKey.sync(GROUP_ID, follower),
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentOf(follower))));
        assertThat(context.takeSync(GROUP_ID, follower)).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentOf(follower)));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group.member(follower).awaitingSync()).isFalse();
        assertThat(group.pendingSyncMembers()).isEmpty();
    }

    @Test
    @DisplayName("the leader's SyncGroup writes exactly one GroupValue: Stable, with every assignment")
    void testSyncGroupAsLeaderWritesOneGroupValue() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        ClassicGroup before = context.group(GROUP_ID);

        Result result = context.sync(GROUP_ID, members.get(0), 1, assignmentsFor(members));

        assertThat(result.records()).hasSize(1);
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup written = ((CoordinatorRecord.GroupValue) result.records().get(0)).group();
        assertThat(written.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(written.previousState()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(written.stateTimestampMs()).isEqualTo(context.nowMs());
        assertThat(written.generationId()).isEqualTo(1);
        assertThat(written.protocolName()).isEqualTo(PROTOCOL_NAME);
        assertThat(written.leaderId()).isEqualTo(members.get(0));
        assertThat(written.members().keySet()).containsExactlyElementsOf(members);
        for (String member : members) {
            assertThat(written.member(member).assignment()).isEqualTo(assignmentOf(member));
            assertThat(written.member(member).awaitingSync()).isFalse();
        }
        // The follower has not sent SyncGroup yet: still pending under the sync deadline.
        assertThat(written.pendingSyncMembers()).containsExactly(members.get(1));
        assertThat(written.syncTimer()).isEqualTo(before.syncTimer());
    }

    @Test
    @DisplayName("a member missing from the leader's assignment gets an empty assignment, not its previous one")
    void testSyncGroupLeaderAssignmentMissingMember() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        String leader = members.get(0);
        String follower = members.get(1);
        RebalanceFixtures.syncAll(context, GROUP_ID, members);
        // Generation 2: a rebalance from Stable keeps the generation-1 assignments until the leader syncs.
        context.join(GROUP_ID).memberId(leader).send();
        context.join(GROUP_ID).memberId(follower).send();
        assertThat(context.takeJoin(GROUP_ID, leader).generationId()).isEqualTo(2);
        assertThat(context.group(GROUP_ID).member(follower).assignment()).isEqualTo(assignmentOf(follower));
        context.sync(GROUP_ID, follower, 2, List.of());

        context.sync(GROUP_ID, leader, 2, assignmentsFor(List.of(leader)));

        assertThat(context.takeSync(GROUP_ID, follower)).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, Bytes.EMPTY));
        assertThat(context.group(GROUP_ID).member(follower).assignment()).isEqualTo(Bytes.EMPTY);
        assertThat(context.group(GROUP_ID).member(leader).assignment()).isEqualTo(assignmentOf(leader));
    }

    @Test
    @DisplayName("Stable: SyncGroup answers the stored assignment at once and restarts the session")
    void testSyncGroupInStableReturnsStoredAssignment() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 500);
        String follower = members.get(1);
        context.sync(GROUP_ID, members.get(0), 1, assignmentsFor(members));
        context.sleep(100);

        Result result = context.sync(GROUP_ID, follower, 1, List.of());

        assertThat(result.immediateResponse()).isEqualTo(
                new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME, assignmentOf(follower)));
        assertThat(result.completions()).isEmpty();
        // Only the pending-sync set changed; the last member to sync also disarms the sync timer.
        assertThat(result.records()).isEqualTo(groupValueOf(context, GROUP_ID));
        assertThat(context.group(GROUP_ID).pendingSyncMembers()).isEmpty();
        assertThat(context.group(GROUP_ID).syncTimer()).isNull();
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(result.timers()).containsExactly(
                new TimerOp.Cancel(TimerOp.Keys.sync(GROUP_ID)),
                new TimerOp.Schedule(TimerOp.Keys.heartbeat(GROUP_ID, follower),
                        context.nowMs() + 500, new Command.ExpireMemberSession(GROUP_ID, follower)));

        // A retry changes nothing and writes nothing.
        Result retry = context.sync(GROUP_ID, follower, 1, List.of());
        assertThat(retry.immediateResponse()).isEqualTo(result.immediateResponse());
        assertThat(retry.records()).isEmpty();
    }

    @Test
    @DisplayName("case 71: the leader's session expires while a follower waits in SyncGroup: REBALANCE_IN_PROGRESS")
    void testLeaderFailureInSyncGroup() {
        // Rebalance timeout 1000 > session timeout 500: the session expiry, not the sync timer, acts.
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 500, 1_000);
        String leader = members.get(0);
        String follower = members.get(1);
        context.sync(GROUP_ID, follower, 1, List.of());

        context.sleep(499);
        assertThat(context.takeSync(GROUP_ID, follower)).isNull();
        assertThat(context.group(GROUP_ID).hasMember(leader)).isTrue();

        context.sleep(1);

        assertThat(context.takeSync(GROUP_ID, follower)).isEqualTo(
                new SyncGroupResponse(ErrorCode.REBALANCE_IN_PROGRESS, PROTOCOL_TYPE, PROTOCOL_NAME, Bytes.EMPTY));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(group.members().keySet()).containsExactly(follower);
        assertThat(group.leaderId()).isEqualTo(follower);
        assertThat(group.member(follower).awaitingSync()).isFalse();
        assertThat(group.syncTimer()).isNull();
        assertThat(context.timer(TimerOp.Keys.sync(GROUP_ID))).isEmpty();
        assertThat(context.heartbeat(GROUP_ID, follower, 1).error()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
    }

    @Test
    @DisplayName("case 73: the leader never syncs: at the rebalance timeout it is removed and parked syncs fail")
    void testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 3, 500, 500);
        String leader = members.get(0);
        List<String> followers = members.subList(1, 3);
        assertThat(context.sleep(250)).isEmpty();
        // Heartbeats keep every session alive but do not extend the sync deadline.
        for (String member : members) {
            assertThat(context.heartbeat(GROUP_ID, member, 1).error()).isEqualTo(ErrorCode.NONE);
        }
        for (String follower : followers) {
            assertThat(context.sync(GROUP_ID, follower, 1, List.of()).reply()).isInstanceOf(Result.Reply.Parked.class);
        }

        assertThat(context.sleep(249)).isEmpty();
        List<Result> fired = context.sleep(1);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEqualTo(groupValueOf(context, GROUP_ID));
        for (String follower : followers) {
            assertThat(context.takeSync(GROUP_ID, follower)).isEqualTo(new SyncGroupResponse(
                    ErrorCode.REBALANCE_IN_PROGRESS, PROTOCOL_TYPE, PROTOCOL_NAME, Bytes.EMPTY));
        }
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.members().keySet()).containsExactlyElementsOf(followers);
        assertThat(group.leaderId()).isEqualTo(followers.get(0));
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, leader))).isEmpty();
        assertThat(context.heartbeat(GROUP_ID, leader, 1).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
        for (String follower : followers) {
            assertThat(context.heartbeat(GROUP_ID, follower, 1).error()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS);
        }
    }

    @Test
    @DisplayName("pending-sync timeout (KAFKA-12890): a follower that never syncs is removed even after Stable")
    void testPendingSyncTimeoutRemovesFollowerThatNeverSyncedInStable() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 1_000, 500);
        String leader = members.get(0);
        String follower = members.get(1);
        context.sync(GROUP_ID, leader, 1, assignmentsFor(members));
        assertThat(context.group(GROUP_ID).state()).isEqualTo(ClassicGroupState.STABLE);
        // The follower heartbeats (NONE) but never sends SyncGroup.
        assertThat(context.heartbeat(GROUP_ID, follower, 1).error()).isEqualTo(ErrorCode.NONE);

        assertThat(context.sleep(499)).isEmpty();
        List<Result> fired = context.sleep(1);

        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).records()).isEqualTo(groupValueOf(context, GROUP_ID));
        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(group.members().keySet()).containsExactly(leader);
        assertThat(group.pendingSyncMembers()).isEmpty();
        assertThat(group.syncTimer()).isNull();
        assertThat(context.timer(TimerOp.Keys.heartbeat(GROUP_ID, follower))).isEmpty();
        assertThat(context.timer(TimerOp.Keys.join(GROUP_ID)).orElseThrow().deadlineMs())
                .isEqualTo(context.nowMs() + 500);
        assertThat(context.heartbeat(GROUP_ID, follower, 1).error()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
    }

    @Test
    @DisplayName("the pending-sync timer changes nothing once every member has synced")
    void testPendingSyncTimeoutAfterEveryoneSynced() {
        List<String> members = dynamicMembersInCompletingRebalance(context, GROUP_ID, 2, 1_000, 500);
        RebalanceFixtures.syncAll(context, GROUP_ID, members);

        context.sleep(500);

        ClassicGroup group = context.group(GROUP_ID);
        assertThat(group.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group.members().keySet()).containsExactlyElementsOf(members);
        assertThat(group.syncTimer()).isNull();
        assertThat(context.timer(TimerOp.Keys.sync(GROUP_ID))).isEmpty();
    }

    @Test
    @DisplayName("case 75: SyncGroup with a follower's instance id and an invalid member id: FENCED_INSTANCE_ID")
    void testStaticMemberSyncAsLeaderWithInvalidMemberId() {
        staticMembersInCompletingRebalance(context, GROUP_ID, "leader-instance-id", "follower-instance-id");
        ClassicGroup before = context.group(GROUP_ID);

        Result result = sync("invalid-member-id", 1, "follower-instance-id", null, null, List.of());

        assertThat(result.immediateResponse()).isEqualTo(error(ErrorCode.FENCED_INSTANCE_ID));
        assertThat(result.records()).isEmpty();
        assertThat(context.group(GROUP_ID)).isEqualTo(before);
    }

    @Test
    @DisplayName("SyncGroup with an unknown instance id: UNKNOWN_MEMBER_ID; with the right pair: parked")
    void testStaticMemberSyncWithUnknownInstanceId() {
        List<String> members = staticMembersInCompletingRebalance(context, GROUP_ID, "leader-instance-id",
                "follower-instance-id");

        Result unknown = sync(members.get(1), 1, "unknown-instance-id", null, null, List.of());
        Result valid = sync(members.get(1), 1, "follower-instance-id", null, null, List.of());

        assertThat(unknown.immediateResponse()).isEqualTo(error(ErrorCode.UNKNOWN_MEMBER_ID));
        assertThat(valid.reply()).isEqualTo(new Result.Reply.Parked(ParkKey.sync(GROUP_ID, members.get(1))));
    }
}
