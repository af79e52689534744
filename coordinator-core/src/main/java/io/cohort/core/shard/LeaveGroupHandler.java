package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command.LeaveGroup;
import io.cohort.core.command.Command.LeavingMember;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.LeaveGroupResponse;
import io.cohort.core.response.LeaveGroupResponse.MemberResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** LeaveGroup (reference 1.5): several members at once, by member id or (admin) by instance id. */
final class LeaveGroupHandler {
    private final Map<String, ClassicGroup> groups;

    LeaveGroupHandler(Map<String, ClassicGroup> groups) {
        this.groups = groups;
    }

    void handle(LeaveGroup request, ResultBuilder result) {
        if (MemberValidation.isInvalidGroupId(request.groupId())) {
            result.replyNow(new LeaveGroupResponse(ErrorCode.INVALID_GROUP_ID, List.of()));
            return;
        }
        ClassicGroup existing = groups.get(request.groupId());
        if (existing == null) {
            result.replyNow(new LeaveGroupResponse(ErrorCode.NONE, request.members().stream()
                    .map(m -> new MemberResult(m.memberId(), m.groupInstanceId(), ErrorCode.UNKNOWN_MEMBER_ID))
                    .toList()));
            return;
        }
        if (existing.isInState(ClassicGroupState.DEAD)) {
            result.replyNow(new LeaveGroupResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE, List.of()));
            return;
        }
        ClassicGroupEditor group = existing.edit();
        Rebalancer rebalancer = new Rebalancer(group, result);
        List<MemberResult> results = new ArrayList<>();
        Map<String, ClassicGroupMember> leaving = new LinkedHashMap<>();
        for (LeavingMember member : request.members()) {
            ErrorCode error = classify(member, group, rebalancer, leaving);
            results.add(new MemberResult(member.memberId(), member.groupInstanceId(), error));
        }
        if (!leaving.isEmpty()) {
            rebalancer.removeMembersAndRebalance(new ArrayList<>(leaving.values()));
        } else if (group.view().pendingMembers().size() < existing.pendingMembers().size()) {
            // Only pending members left: no rebalance of its own, but a join phase they held back
            // may complete now (Kafka tries maybeCompleteJoinPhase after any successful leave).
            rebalancer.maybeCompleteJoinPhase();
        }
        result.replyNow(new LeaveGroupResponse(ErrorCode.NONE, results));
        result.recordGroupIfChanged(existing, group);
    }

    /** Validates one leaving member; pending members are removed at once, members are collected. */
    private static ErrorCode classify(LeavingMember member, ClassicGroupEditor group, Rebalancer rebalancer,
                                      Map<String, ClassicGroupMember> leaving) {
        if (member.memberId().isEmpty()) {
            String memberId = group.staticMemberId(member.groupInstanceId());
            if (memberId == null) {
                return ErrorCode.UNKNOWN_MEMBER_ID;
            }
            leaving.put(memberId, group.member(memberId));
            return ErrorCode.NONE;
        }
        if (group.isPendingMember(member.memberId())) {
            group.remove(member.memberId());
            rebalancer.cancelHeartbeat(member.memberId());
            return ErrorCode.NONE;
        }
        ErrorCode error = MemberValidation.validateMember(group, member.memberId(), member.groupInstanceId());
        if (error == ErrorCode.NONE) {
            leaving.put(member.memberId(), group.member(member.memberId()));
        }
        return error;
    }
}
