package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command.JoinGroup;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.JoinGroupResponse;
import java.util.List;
import java.util.Map;

/** JoinGroup (reference 1.2, 2.2-2.4, 2.9-2.11): admission, new, pending, static and existing members. */
final class JoinGroupHandler {
    private final Map<String, ClassicGroup> groups;

    JoinGroupHandler(Map<String, ClassicGroup> groups) {
        this.groups = groups;
    }

    void handle(JoinGroup request, ResultBuilder result) {
        ErrorCode invalid = throwIfInvalid(request, result);
        if (invalid != ErrorCode.NONE) {
            result.replyNow(JoinGroupResponse.error(invalid, request.memberId()));
            return;
        }
        ClassicGroup existing = groups.get(request.groupId());
        boolean isUnknownMember = request.memberId().isEmpty();
        if (existing == null && !isUnknownMember) {
            result.replyNow(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, request.memberId()));
            return;
        }
        ClassicGroupEditor group = (existing != null ? existing : ClassicGroup.newEmpty(request.groupId(), result.nowMs))
                .edit();
        Rebalancer rebalancer = new Rebalancer(group, result);
        if (!acceptJoiningMember(group, request.memberId(), result.config.maxGroupSize())) {
            group.remove(request.memberId());
            result.replyNow(JoinGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, ""));
        } else if (isUnknownMember) {
            joinNewMember(request, group, rebalancer, result);
        } else {
            joinExistingMember(request, group, rebalancer, result);
        }
        // A group created by this request is persisted even if the join itself failed (Kafka writes an
        // empty GroupMetadata record for it), so existing == null always yields a record.
        result.recordGroupIfChanged(existing, group);
    }

    /** Request validation before any state is read: group id, then session timeout bounds. */
    private static ErrorCode throwIfInvalid(JoinGroup request, ResultBuilder result) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return ErrorCode.INVALID_GROUP_ID;
        }
        if (request.sessionTimeoutMs() < result.config.minSessionTimeoutMs()
                || request.sessionTimeoutMs() > result.config.maxSessionTimeoutMs()) {
            return ErrorCode.INVALID_SESSION_TIMEOUT;
        }
        return ErrorCode.NONE;
    }

    /**
     * group.max.size admission (KIP-389, KAFKA-9885). During a join phase the number of members
     * already rejoined is compared, so after the limit is lowered the last rejoiners are refused.
     */
    private static boolean acceptJoiningMember(ClassicGroupEditor group, String memberId, int maxGroupSize) {
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE -> (group.hasMember(memberId) && group.member(memberId).awaitingJoin())
                    || group.numAwaitingJoin() < maxGroupSize;
            case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.numMembers() < maxGroupSize;
        };
    }

    private void joinNewMember(JoinGroup request, ClassicGroupEditor group, Rebalancer rebalancer,
                               ResultBuilder result) {
        if (group.isInState(ClassicGroupState.DEAD)) {
            result.replyNow(JoinGroupResponse.error(ErrorCode.COORDINATOR_NOT_AVAILABLE, ""));
            return;
        }
        if (!group.supportsProtocols(request.protocolType(), request.protocols())) {
            result.replyNow(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        String prefix = request.groupInstanceId() != null ? request.groupInstanceId() : request.clientId();
        String newMemberId = prefix + "-" + request.memberIdSuffix();
        if (request.groupInstanceId() != null) {
            String existingMemberId = group.staticMemberId(request.groupInstanceId());
            if (existingMemberId != null) {
                replaceStaticMember(request, group, rebalancer, result, existingMemberId, newMemberId);
            } else {
                addMemberThenRebalanceOrCompleteJoin(request, group, rebalancer, result, newMemberId);
            }
        } else if (request.requiresKnownMemberId()) {
            // KIP-394: hand out an id and wait for the member to come back with it; no rebalance yet.
            group.addPendingMember(newMemberId, request.sessionTimeoutMs());
            rebalancer.rescheduleHeartbeat(newMemberId, request.sessionTimeoutMs());
            result.replyNow(JoinGroupResponse.error(ErrorCode.MEMBER_ID_REQUIRED, newMemberId));
        } else {
            addMemberThenRebalanceOrCompleteJoin(request, group, rebalancer, result, newMemberId);
        }
    }

    private void joinExistingMember(JoinGroup request, ClassicGroupEditor group, Rebalancer rebalancer,
                                    ResultBuilder result) {
        String memberId = request.memberId();
        if (group.isInState(ClassicGroupState.DEAD)) {
            result.replyNow(JoinGroupResponse.error(ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId));
            return;
        }
        if (!group.supportsProtocols(request.protocolType(), request.protocols())) {
            result.replyNow(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId));
            return;
        }
        if (group.isPendingMember(memberId)) {
            if (request.groupInstanceId() != null) {
                // Kafka throws an IllegalStateException here; a malformed request must not hurt the node.
                result.replyNow(JoinGroupResponse.error(ErrorCode.INVALID_REQUEST, memberId));
                return;
            }
            addMemberThenRebalanceOrCompleteJoin(request, group, rebalancer, result, memberId);
            return;
        }
        ErrorCode memberError = MemberValidation.validateMember(group, memberId, request.groupInstanceId());
        if (memberError != ErrorCode.NONE) {
            result.replyNow(JoinGroupResponse.error(memberError, memberId));
            return;
        }
        ClassicGroupMember member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberThenRebalanceOrCompleteJoin(request, group, member, rebalancer, result);
            case COMPLETING_REBALANCE -> {
                if (member.matches(request.protocols())) {
                    // A retry after a lost response: answer with the current generation.
                    result.replyNow(currentGeneration(group, memberId, group.isLeader(memberId)));
                } else {
                    updateMemberThenRebalanceOrCompleteJoin(request, group, member, rebalancer, result);
                }
            }
            case STABLE -> {
                // The leader always rebalances, so it can react to changes the metadata does not show.
                if (group.isLeader(memberId) || !member.matches(request.protocols())) {
                    updateMemberThenRebalanceOrCompleteJoin(request, group, member, rebalancer, result);
                } else {
                    result.replyNow(currentGeneration(group, memberId, false));
                }
            }
            default -> result.replyNow(JoinGroupResponse.error(ErrorCode.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private static JoinGroupResponse currentGeneration(ClassicGroupEditor group, String memberId, boolean withMembers) {
        return new JoinGroupResponse(ErrorCode.NONE, group.generationId(), group.protocolType(),
                group.protocolName(), group.leaderId(), false, memberId,
                withMembers ? group.view().joinedMembersForLeader() : List.of());
    }

    private static void addMemberThenRebalanceOrCompleteJoin(JoinGroup request, ClassicGroupEditor group,
                                                             Rebalancer rebalancer, ResultBuilder result,
                                                             String memberId) {
        ClassicGroupMember member = new ClassicGroupMember(memberId, request.groupInstanceId(), request.clientId(),
                request.clientHost(), request.effectiveRebalanceTimeoutMs(), request.sessionTimeoutMs(),
                request.protocolType(), request.protocols(), io.cohort.core.Bytes.EMPTY, true, false, true);
        if (group.isInState(ClassicGroupState.PREPARING_REBALANCE)
                && group.previousState() == ClassicGroupState.EMPTY) {
            group.setNewMemberAdded(true);
        }
        group.add(member);
        result.park(ParkKey.join(group.groupId(), memberId));
        // A new member cannot heartbeat before its JoinGroup completes, so it gets the fixed
        // new-member timeout instead of its session timeout (KAFKA-7610).
        rebalancer.rescheduleHeartbeat(memberId, result.config.newMemberJoinTimeoutMs());
        rebalancer.maybePrepareRebalanceOrCompleteJoin();
    }

    private static void updateMemberThenRebalanceOrCompleteJoin(JoinGroup request, ClassicGroupEditor group,
                                                                ClassicGroupMember member, Rebalancer rebalancer,
                                                                ResultBuilder result) {
        group.update(member.withJoinRequest(request.protocols(), request.effectiveRebalanceTimeoutMs(),
                request.sessionTimeoutMs()).withAwaitingJoin(true));
        result.park(ParkKey.join(group.groupId(), member.memberId()));
        rebalancer.maybePrepareRebalanceOrCompleteJoin();
    }

    /**
     * A static member restarted (JoinGroup with member id "" and a known instance id): the old id is
     * fenced, the member continues under a new id, and a Stable group does not rebalance unless the
     * selected protocol would change (KIP-345, reference 2.11).
     */
    private static void replaceStaticMember(JoinGroup request, ClassicGroupEditor group, Rebalancer rebalancer,
                                            ResultBuilder result, String oldMemberId, String newMemberId) {
        String leaderBeforeReplacement = group.leaderId();
        ClassicGroupMember old = group.member(oldMemberId);
        if (old.awaitingJoin()) {
            result.complete(ParkKey.join(group.groupId(), oldMemberId),
                    new JoinGroupResponse(ErrorCode.FENCED_INSTANCE_ID, JoinGroupResponse.NO_GENERATION, null, null,
                            "", false, oldMemberId, List.of()));
        }
        if (old.awaitingSync()) {
            result.complete(ParkKey.sync(group.groupId(), oldMemberId),
                    io.cohort.core.response.SyncGroupResponse.error(ErrorCode.FENCED_INSTANCE_ID));
        }
        ClassicGroupMember replacement = group.replaceStaticMember(request.groupInstanceId(), oldMemberId, newMemberId);
        rebalancer.cancelHeartbeat(oldMemberId);
        rebalancer.rescheduleHeartbeat(replacement);
        ClassicGroupMember updated = replacement.withJoinRequest(request.protocols(),
                request.effectiveRebalanceTimeoutMs(), request.sessionTimeoutMs()).withAwaitingJoin(true);
        group.update(updated);
        result.park(ParkKey.join(group.groupId(), newMemberId));

        switch (group.state()) {
            case STABLE -> {
                String selectedForNextGeneration = group.selectProtocol();
                if (selectedForNextGeneration.equals(group.protocolName())) {
                    group.update(updated.withAwaitingJoin(false));
                    result.replyNow(staticReplacementResponse(request, group, newMemberId, leaderBeforeReplacement));
                } else {
                    rebalancer.maybePrepareRebalanceOrCompleteJoin();
                }
            }
            // The leader may already hold an assignment keyed by the old id (KAFKA-9801): rebalance.
            case COMPLETING_REBALANCE -> rebalancer.prepareRebalance();
            case PREPARING_REBALANCE -> rebalancer.maybeCompleteJoinPhase();
            default -> throw new IllegalStateException("Static member " + request.groupInstanceId()
                    + " replaced while group " + group.groupId() + " is " + group.state());
        }
    }

    /**
     * v9+: a static leader may skip the assignment (KIP-814) and gets the member list; older clients
     * get the leader id from before the replacement, so they do not run an assignment.
     */
    private static JoinGroupResponse staticReplacementResponse(JoinGroup request, ClassicGroupEditor group,
                                                               String newMemberId, String leaderBeforeReplacement) {
        if (request.supportsSkippingAssignment()) {
            boolean isLeader = group.isLeader(newMemberId);
            return new JoinGroupResponse(ErrorCode.NONE, group.generationId(), group.protocolType(),
                    group.protocolName(), group.leaderId(), isLeader, newMemberId,
                    isLeader ? group.view().joinedMembersForLeader() : List.of());
        }
        return new JoinGroupResponse(ErrorCode.NONE, group.generationId(), group.protocolType(), group.protocolName(),
                leaderBeforeReplacement, false, newMemberId, List.of());
    }
}
