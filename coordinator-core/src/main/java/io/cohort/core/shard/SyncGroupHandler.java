package io.cohort.core.shard;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.command.Command.SyncGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.SyncGroupResponse;
import java.util.HashMap;
import java.util.Map;

/** SyncGroup (reference 1.3): followers park, the leader's assignment completes the rebalance. */
final class SyncGroupHandler {
    private final Map<String, ClassicGroup> groups;

    SyncGroupHandler(Map<String, ClassicGroup> groups) {
        this.groups = groups;
    }

    void handle(SyncGroup request, ResultBuilder result) {
        if (MemberValidation.isInvalidGroupId(request.groupId())) {
            result.replyNow(SyncGroupResponse.error(ErrorCode.INVALID_GROUP_ID));
            return;
        }
        ClassicGroup existing = groups.get(request.groupId());
        if (existing == null) {
            result.replyNow(SyncGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID));
            return;
        }
        ClassicGroupEditor group = existing.edit();
        ErrorCode error = validateSyncGroup(group, request);
        if (error != ErrorCode.NONE) {
            result.replyNow(SyncGroupResponse.error(error));
            return;
        }
        Rebalancer rebalancer = new Rebalancer(group, result);
        ClassicGroupMember member = group.member(request.memberId());
        switch (group.state()) {
            case PREPARING_REBALANCE -> result.replyNow(SyncGroupResponse.error(ErrorCode.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                group.update(member.withAwaitingSync(true));
                removePendingSyncMember(group, rebalancer, request.memberId());
                result.park(ParkKey.sync(group.groupId(), request.memberId()));
                if (group.isLeader(request.memberId())) {
                    // Raft applies only committed entries, so the assignment is durable here: the
                    // group becomes Stable and every parked follower gets its share at once.
                    rebalancer.setAndPropagateAssignment(assignmentsOf(request));
                    group.transitionTo(ClassicGroupState.STABLE, result.nowMs);
                }
            }
            case STABLE -> {
                removePendingSyncMember(group, rebalancer, request.memberId());
                result.replyNow(new SyncGroupResponse(ErrorCode.NONE, group.protocolType(), group.protocolName(),
                        member.assignment()));
                rebalancer.rescheduleHeartbeat(member);
            }
            default -> throw new IllegalStateException("SyncGroup validated in state " + group.state());
        }
        result.recordGroupIfChanged(existing, group);
    }

    /** Once every member of the generation has synced, the pending-sync timer has nothing left to do. */
    private static void removePendingSyncMember(ClassicGroupEditor group, Rebalancer rebalancer, String memberId) {
        group.removePendingSyncMember(memberId);
        if (group.hasReceivedSyncFromAllMembers()) {
            rebalancer.cancelSyncTimer();
        }
    }

    /** Dead group, member/instance, generation, then protocol type and name (when present). */
    private static ErrorCode validateSyncGroup(ClassicGroupEditor group, SyncGroup request) {
        if (group.isInState(ClassicGroupState.DEAD)) {
            return ErrorCode.COORDINATOR_NOT_AVAILABLE;
        }
        ErrorCode memberError = MemberValidation.validateMember(group, request.memberId(), request.groupInstanceId());
        if (memberError != ErrorCode.NONE) {
            return memberError;
        }
        if (request.generationId() != group.generationId()) {
            return ErrorCode.ILLEGAL_GENERATION;
        }
        if (isInconsistent(request.protocolType(), group.protocolType())
                || isInconsistent(request.protocolName(), group.protocolName())) {
            return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
        }
        return ErrorCode.NONE;
    }

    private static boolean isInconsistent(String requested, String actual) {
        return requested != null && !requested.equals(actual);
    }

    private static Map<String, Bytes> assignmentsOf(SyncGroup request) {
        Map<String, Bytes> assignments = new HashMap<>();
        for (Command.MemberAssignment assignment : request.assignments()) {
            assignments.put(assignment.memberId(), assignment.assignment());
        }
        return assignments;
    }
}
