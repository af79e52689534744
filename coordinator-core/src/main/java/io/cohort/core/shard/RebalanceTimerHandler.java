package io.cohort.core.shard;

import io.cohort.core.command.Command.ExpireMemberSession;
import io.cohort.core.command.Command.FireJoinTimer;
import io.cohort.core.command.Command.FireSyncTimer;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.JoinTimer;
import io.cohort.core.group.SyncTimer;
import java.util.Map;

/**
 * The commands the leader proposes when a rebalance timer fires (reference 2.7). Each is
 * re-validated against the applied state: between the firing and the commit the group may have
 * moved on, and then the command changes nothing.
 */
final class RebalanceTimerHandler {
    private final Map<String, ClassicGroup> groups;

    RebalanceTimerHandler(Map<String, ClassicGroup> groups) {
        this.groups = groups;
    }

    /** A session (or pending member, or new member join) timeout. */
    void expireSession(ExpireMemberSession command, ResultBuilder result) {
        ClassicGroup existing = groups.get(command.groupId());
        if (existing == null || existing.isInState(ClassicGroupState.DEAD)) {
            return;
        }
        ClassicGroupEditor group = existing.edit();
        Rebalancer rebalancer = new Rebalancer(group, result);
        if (group.isPendingMember(command.memberId())) {
            group.remove(command.memberId());
            if (group.isInState(ClassicGroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
                rebalancer.completeJoin();
            }
        } else {
            ClassicGroupMember member = group.member(command.memberId());
            if (member != null && !member.hasSatisfiedHeartbeat()) {
                rebalancer.removeMemberAndUpdateGroup(member);
            }
        }
        result.recordGroupIfChanged(existing, group);
    }

    /** The join-phase timer: the initial delay, or the rebalance timeout. */
    void fireJoinTimer(FireJoinTimer command, ResultBuilder result) {
        ClassicGroup existing = groups.get(command.groupId());
        if (existing == null || !existing.isInState(ClassicGroupState.PREPARING_REBALANCE)) {
            return;
        }
        JoinTimer armed = existing.joinTimer();
        if (armed == null || armed.deadlineMs() != command.deadlineMs()) {
            return;
        }
        ClassicGroupEditor group = existing.edit();
        Rebalancer rebalancer = new Rebalancer(group, result);
        if (armed.initial()) {
            rebalancer.tryCompleteInitialRebalanceElseSchedule(armed);
        } else {
            rebalancer.completeJoin();
        }
        result.recordGroupIfChanged(existing, group);
    }

    /**
     * The pending-sync timer (KAFKA-12890): members of the generation that never sent SyncGroup are
     * removed and the group rebalances, even if it already reached Stable.
     */
    void fireSyncTimer(FireSyncTimer command, ResultBuilder result) {
        ClassicGroup existing = groups.get(command.groupId());
        if (existing == null) {
            return;
        }
        SyncTimer armed = existing.syncTimer();
        if (armed == null || armed.deadlineMs() != command.deadlineMs()
                || command.generationId() != existing.generationId()) {
            return;
        }
        ClassicGroupEditor group = existing.edit();
        group.setSyncTimer(null);
        if ((group.isInState(ClassicGroupState.COMPLETING_REBALANCE) || group.isInState(ClassicGroupState.STABLE))
                && !group.hasReceivedSyncFromAllMembers()) {
            Rebalancer rebalancer = new Rebalancer(group, result);
            for (String memberId : group.pendingSyncMembers()) {
                group.remove(memberId);
                rebalancer.cancelHeartbeat(memberId);
            }
            rebalancer.prepareRebalance();
        }
        result.recordGroupIfChanged(existing, group);
    }
}
