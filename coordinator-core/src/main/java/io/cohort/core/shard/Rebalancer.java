package io.cohort.core.shard;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.JoinTimer;
import io.cohort.core.group.SyncTimer;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.util.List;
import java.util.Map;

/**
 * The rebalance steps every handler shares (reference 2.2-2.8): starting a join phase, completing
 * it, propagating assignments, removing members, and the timers that bound each phase. All of them
 * edit a private group copy and add to the command's {@link ResultBuilder}; none touches the shard.
 */
final class Rebalancer {
    private final ClassicGroupEditor group;
    private final ResultBuilder result;

    Rebalancer(ClassicGroupEditor group, ResultBuilder result) {
        this.group = group;
        this.result = result;
    }

    /** Restarts the member's session timer at its session timeout. */
    void rescheduleHeartbeat(ClassicGroupMember member) {
        rescheduleHeartbeat(member.memberId(), member.sessionTimeoutMs());
    }

    void rescheduleHeartbeat(String memberId, int timeoutMs) {
        rescheduleHeartbeat(result, group.groupId(), memberId, timeoutMs);
    }

    /** Restarts a session timer without editing the group (heartbeats and commits change no state). */
    static void rescheduleHeartbeat(ResultBuilder result, String groupId, ClassicGroupMember member) {
        rescheduleHeartbeat(result, groupId, member.memberId(), member.sessionTimeoutMs());
    }

    private static void rescheduleHeartbeat(ResultBuilder result, String groupId, String memberId, int timeoutMs) {
        result.schedule(TimerOp.Keys.heartbeat(groupId, memberId), result.nowMs + timeoutMs,
                new Command.ExpireMemberSession(groupId, memberId));
    }

    void cancelHeartbeat(String memberId) {
        result.cancel(TimerOp.Keys.heartbeat(group.groupId(), memberId));
    }

    /** Starts a rebalance if the state allows one, else tries to finish the running join phase. */
    void maybePrepareRebalanceOrCompleteJoin() {
        if (ClassicGroupState.PREPARING_REBALANCE.validPreviousStates().contains(group.state())) {
            prepareRebalance();
        } else {
            maybeCompleteJoinPhase();
        }
    }

    /**
     * Moves the group to PreparingRebalance. Parked syncs are failed with REBALANCE_IN_PROGRESS; the
     * initial rebalance of an empty group waits group.initial.rebalance.delay.ms for more members.
     */
    void prepareRebalance() {
        if (group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            resetAndPropagateAssignmentWithError(ErrorCode.REBALANCE_IN_PROGRESS);
        }
        cancelSyncTimer();

        boolean isInitialRebalance = group.isInState(ClassicGroupState.EMPTY);
        if (isInitialRebalance) {
            int delayMs = result.config.initialRebalanceDelayMs();
            int remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
            armJoinTimer(JoinTimer.initialDelay(result.nowMs + delayMs, delayMs, remainingMs));
        }
        group.transitionTo(ClassicGroupState.PREPARING_REBALANCE, result.nowMs);
        if (!isInitialRebalance) {
            maybeCompleteJoinElseSchedule();
        }
    }

    private void maybeCompleteJoinElseSchedule() {
        if (group.hasAllMembersJoined()) {
            completeJoin();
        } else {
            armJoinTimer(JoinTimer.rebalanceTimeout(result.nowMs + group.rebalanceTimeoutMs()));
        }
    }

    /** Completes a non-initial join phase once every member has rejoined. */
    void maybeCompleteJoinPhase() {
        if (group.isInState(ClassicGroupState.PREPARING_REBALANCE)
                && group.hasAllMembersJoined()
                && group.previousState() != ClassicGroupState.EMPTY) {
            completeJoin();
        }
    }

    /**
     * The initial-delay timer fired: wait one more delay if members arrived and budget remains
     * (reference 2.6), otherwise complete the join phase.
     */
    void tryCompleteInitialRebalanceElseSchedule(JoinTimer fired) {
        if (group.newMemberAdded() && fired.remainingMs() != 0) {
            group.setNewMemberAdded(false);
            int newDelayMs = Math.min(result.config.initialRebalanceDelayMs(), fired.remainingMs());
            int newRemainingMs = Math.max(fired.remainingMs() - fired.delayMs(), 0);
            armJoinTimer(JoinTimer.initialDelay(result.nowMs + newDelayMs, newDelayMs, newRemainingMs));
        } else {
            completeJoin();
        }
    }

    /**
     * Completes the join phase (reference 2.3): dynamic members that did not rejoin are removed, a
     * rejoined leader is ensured, the generation moves on and every parked JoinGroup is answered.
     */
    void completeJoin() {
        cancelJoinTimer();
        for (ClassicGroupMember member : group.allMembers()) {
            if (!member.awaitingJoin() && !member.isStatic()) {
                group.remove(member.memberId());
                cancelHeartbeat(member.memberId());
            }
        }
        if (group.isInState(ClassicGroupState.DEAD)) {
            return;
        }
        if (!group.maybeElectNewJoinedLeader() && group.numMembers() > 0) {
            // Only static members remain and none rejoined: wait another rebalance timeout for their
            // sessions to expire rather than complete a generation without a leader.
            armJoinTimer(JoinTimer.rebalanceTimeout(result.nowMs + group.rebalanceTimeoutMs()));
            return;
        }
        group.initNextGeneration(result.nowMs);
        if (group.isInState(ClassicGroupState.EMPTY)) {
            return;
        }
        for (ClassicGroupMember member : group.allMembers()) {
            if (member.awaitingJoin()) {
                boolean isLeader = group.isLeader(member.memberId());
                result.complete(ParkKey.join(group.groupId(), member.memberId()), new JoinGroupResponse(
                        ErrorCode.NONE, group.generationId(), group.protocolType(), group.protocolName(),
                        group.leaderId(), false, member.memberId(),
                        isLeader ? group.view().joinedMembersForLeader() : List.of()));
            }
            ClassicGroupMember updated = member.withAwaitingJoin(false).withIsNew(false);
            group.update(updated);
            rescheduleHeartbeat(updated);
            group.addPendingSyncMember(member.memberId());
        }
        armSyncTimer();
    }

    /** Fails every parked SyncGroup with {@code error} and clears the assignments. */
    void resetAndPropagateAssignmentWithError(ErrorCode error) {
        if (!group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            throw new IllegalStateException("Group " + group.groupId() + " must be in "
                    + ClassicGroupState.COMPLETING_REBALANCE + " to reset assignments, but is " + group.state());
        }
        group.clearAssignments();
        propagateAssignment(error);
    }

    /** Stores the leader's assignments and answers every parked SyncGroup with its member's share. */
    void setAndPropagateAssignment(Map<String, Bytes> assignments) {
        group.setAssignments(assignments);
        propagateAssignment(ErrorCode.NONE);
    }

    private void propagateAssignment(ErrorCode error) {
        for (ClassicGroupMember member : group.allMembers()) {
            if (member.awaitingSync()) {
                result.complete(ParkKey.sync(group.groupId(), member.memberId()), new SyncGroupResponse(
                        error, group.protocolType(), group.protocolName(), member.assignment()));
                ClassicGroupMember updated = member.withAwaitingSync(false);
                group.update(updated);
                // A session that expired while the member waited was ignored; expect heartbeats again.
                rescheduleHeartbeat(updated);
            }
        }
    }

    /**
     * Removes a member whose session expired (or that was fenced) and moves the group on. Its parked
     * JoinGroup gets UNKNOWN_MEMBER_ID so a live client rejoins.
     */
    void removeMemberAndUpdateGroup(ClassicGroupMember member) {
        failParkedCalls(member);
        group.remove(member.memberId());
        if (group.isInState(ClassicGroupState.STABLE) || group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            prepareRebalance();
        } else if (group.isInState(ClassicGroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
            completeJoin();
        }
    }

    /** Removes members that left (LeaveGroup) and moves the group on. */
    void removeMembersAndRebalance(List<ClassicGroupMember> leaving) {
        for (ClassicGroupMember member : leaving) {
            cancelHeartbeat(member.memberId());
            failParkedCalls(member);
            group.remove(member.memberId());
        }
        if (group.isInState(ClassicGroupState.STABLE) || group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            prepareRebalance();
        } else if (group.isInState(ClassicGroupState.PREPARING_REBALANCE)) {
            maybeCompleteJoinPhase();
        }
    }

    /**
     * A removed member's parked calls get UNKNOWN_MEMBER_ID with member id "". Kafka leaves a parked
     * SyncGroup of a removed member to time out; answering it tells the client at once to rejoin.
     */
    private void failParkedCalls(ClassicGroupMember member) {
        if (member.awaitingJoin()) {
            result.complete(ParkKey.join(group.groupId(), member.memberId()),
                    JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, ""));
        }
        if (member.awaitingSync()) {
            result.complete(ParkKey.sync(group.groupId(), member.memberId()),
                    SyncGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID));
        }
    }

    private void armJoinTimer(JoinTimer timer) {
        group.setJoinTimer(timer);
        result.schedule(TimerOp.Keys.join(group.groupId()), timer.deadlineMs(),
                new Command.FireJoinTimer(group.groupId(), timer.deadlineMs()));
    }

    private void cancelJoinTimer() {
        if (group.joinTimer() != null) {
            group.setJoinTimer(null);
            result.cancel(TimerOp.Keys.join(group.groupId()));
        }
    }

    private void armSyncTimer() {
        long deadlineMs = result.nowMs + group.rebalanceTimeoutMs();
        group.setSyncTimer(new SyncTimer(deadlineMs, group.generationId()));
        result.schedule(TimerOp.Keys.sync(group.groupId()), deadlineMs,
                new Command.FireSyncTimer(group.groupId(), group.generationId(), deadlineMs));
    }

    /** Kafka's removeSyncExpiration: the pending-sync set goes with the timer that enforces it. */
    void cancelSyncTimer() {
        group.clearPendingSyncMembers();
        if (group.syncTimer() != null) {
            group.setSyncTimer(null);
            result.cancel(TimerOp.Keys.sync(group.groupId()));
        }
    }
}
