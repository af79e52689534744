package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Heartbeat;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.response.HeartbeatResponse;
import java.util.List;
import java.util.Map;

/**
 * Heartbeat (reference 1.4), answered by the leader from the applied state without a log write: it
 * validates the member and generation and moves the member's session deadline (soft state).
 */
final class HeartbeatHandler {
    private final Map<String, ClassicGroup> groups;

    HeartbeatHandler(Map<String, ClassicGroup> groups) {
        this.groups = groups;
    }

    /** The answer and, when the member is alive, the session timer to restart. */
    record Outcome(HeartbeatResponse response, List<TimerOp> timers) {
        Outcome {
            timers = List.copyOf(timers);
        }
    }

    Outcome handle(Heartbeat request, ResultBuilder result) {
        ErrorCode error = validate(request);
        if (error != ErrorCode.NONE) {
            return new Outcome(new HeartbeatResponse(error), List.of());
        }
        ClassicGroup group = groups.get(request.groupId());
        ErrorCode answer = switch (group.state()) {
            case EMPTY -> ErrorCode.UNKNOWN_MEMBER_ID;
            case PREPARING_REBALANCE -> {
                Rebalancer.rescheduleHeartbeat(result, group.groupId(), group.member(request.memberId()));
                yield ErrorCode.REBALANCE_IN_PROGRESS;
            }
            // Consumers heartbeat as soon as their JoinGroup completes, while the group still waits
            // for the leader's sync: a normal heartbeat.
            case COMPLETING_REBALANCE, STABLE -> {
                Rebalancer.rescheduleHeartbeat(result, group.groupId(), group.member(request.memberId()));
                yield ErrorCode.NONE;
            }
            case DEAD -> throw new IllegalStateException("validated a heartbeat to a Dead group");
        };
        return new Outcome(new HeartbeatResponse(answer), result.build().timers());
    }

    private ErrorCode validate(Heartbeat request) {
        if (MemberValidation.isInvalidGroupId(request.groupId())) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        ClassicGroup group = groups.get(request.groupId());
        if (group == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (group.isInState(io.cohort.core.group.ClassicGroupState.DEAD)) {
            return ErrorCode.COORDINATOR_NOT_AVAILABLE;
        }
        ErrorCode memberError = MemberValidation.validateMember(group, request.memberId(),
                request.groupInstanceId());
        if (memberError != ErrorCode.NONE) {
            return memberError;
        }
        return request.generationId() == group.generationId() ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
    }
}
