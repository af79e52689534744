package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.ConsumerMemberMetadata;
import io.cohort.core.consumer.ConsumerProtocolException;
import io.cohort.core.consumer.CurrentAssignmentBuilder;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord.ConsumerCurrentAssignmentValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberMetadataValue;
import io.cohort.core.record.CoordinatorRecord.ConsumerMemberTombstone;
import io.cohort.core.response.ConsumerGroupHeartbeatResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * ConsumerGroupHeartbeat (KIP-848), Kafka's three steps in one command: update the member (a new
 * subscription or new metadata of the subscribed topics bumps the group epoch), compute a new
 * target assignment when the group epoch moved past the assignment epoch, and reconcile this member
 * towards its target (revoke before assign). A heartbeat that changes nothing produces no record,
 * only the answer and the session timer, so the leader can answer it without a log write.
 */
final class ConsumerGroupHeartbeatHandler {
    private final Map<String, ConsumerGroup> consumerGroups;
    private final Map<String, ClassicGroup> classicGroups;
    private final ConsumerTargetAssignment targetAssignment;

    ConsumerGroupHeartbeatHandler(Map<String, ConsumerGroup> consumerGroups, Map<String, ClassicGroup> classicGroups,
                                  ConsumerTargetAssignment targetAssignment) {
        this.consumerGroups = consumerGroups;
        this.classicGroups = classicGroups;
        this.targetAssignment = targetAssignment;
    }

    void handle(ConsumerGroupHeartbeat request, ResultBuilder result) {
        try {
            ConsumerHeartbeatValidation.throwIfInvalid(request, targetAssignment.supportedNames());
            if (request.memberEpoch() < 0) {
                leave(request, result);
            } else {
                heartbeat(request, result);
            }
        } catch (ConsumerProtocolException e) {
            result.replyNow(ConsumerGroupHeartbeatResponse.error(e.error(), e.getMessage(), request.memberId(),
                    request.memberEpoch()));
        }
    }

    private void heartbeat(ConsumerGroupHeartbeat request, ResultBuilder result) {
        String groupId = request.groupId();
        ConsumerGroup group = groupForHeartbeat(groupId, request.memberEpoch() == 0);
        throwIfNewGroupExceedsPartitionLimit(group, result);
        ConsumerGroupChange change = new ConsumerGroupChange(group);
        Map<String, Assignment> inheritedTargets = new HashMap<>();

        // 1. The member: found, created, or replacing a static member that left with epoch -2.
        ConsumerGroupMember stored = group.member(request.memberId());
        ConsumerGroupMember member = request.instanceId() == null
                ? dynamicMember(group, request) : staticMember(group, request, change, inheritedTargets, result);
        if (stored == null) {
            throwIfGroupIsFull(group, inheritedTargets.isEmpty(), result.config.consumerMaxSize());
        }
        ConsumerMemberMetadata metadata = updatedMetadata(member.metadata(), request);
        boolean subscriptionChanged = !metadata.subscribedTopicNames().equals(
                member.metadata().subscribedTopicNames())
                || !java.util.Objects.equals(metadata.subscribedTopicRegex(),
                member.metadata().subscribedTopicRegex());
        if (stored == null || !metadata.equals(stored.metadata())) {
            change.add(new ConsumerMemberMetadataValue(groupId, request.memberId(), metadata));
        }
        boolean metadataChanged = change.updateSubscriptionState(request.topics());
        if (subscriptionChanged || metadataChanged) {
            change.bumpGroupEpoch();
        }

        // 2. The target assignment, if the group epoch moved (or a static member took over a target).
        if (change.group().groupEpoch() > change.group().assignmentEpoch() || !inheritedTargets.isEmpty()) {
            targetAssignment.update(change, inheritedTargets);
        }

        // 3. Reconcile this member towards its target.
        ConsumerGroup updatedGroup = change.group();
        ConsumerGroupMember current = updatedGroup.member(request.memberId());
        ConsumerMemberAssignment next = CurrentAssignmentBuilder.reconcile(current, updatedGroup.assignmentEpoch(),
                updatedGroup.targetAssignment(request.memberId()), updatedGroup::ownerOf, request.ownedPartitions());
        if (!next.equals(current.current())) {
            change.add(new ConsumerCurrentAssignmentValue(groupId, request.memberId(), next));
            if (next.state() == MemberState.UNREVOKED_PARTITIONS) {
                result.schedule(TimerOp.Keys.consumerRebalance(groupId, request.memberId()),
                        result.nowMs + metadata.rebalanceTimeoutMs(), new io.cohort.core.command.Command
                                .FireConsumerRebalanceTimeout(groupId, request.memberId(), next.memberEpoch()));
            } else {
                result.cancel(TimerOp.Keys.consumerRebalance(groupId, request.memberId()));
            }
        }
        scheduleSession(groupId, request.memberId(), result);
        change.commitTo(result);

        Assignment before = stored == null ? Assignment.EMPTY : stored.assignedPartitions();
        boolean assignmentChanged = !next.assignedPartitions().equals(before);
        // Also when the member reports owning other partitions than it is assigned: the answer that
        // carried its assignment may have been lost with a killed coordinator, and a resent
        // heartbeat is not a full request (Kafka's client rebuilds a full one after a failure; ours
        // may resend the same one to the new coordinator). Seen in ConsumerProtocolFailoverIT.
        boolean ownedDiffers = request.ownedPartitions() != null
                && !request.ownedPartitions().equals(next.assignedPartitions());
        result.replyNow(new ConsumerGroupHeartbeatResponse(ErrorCode.NONE, null, request.memberId(),
                next.memberEpoch(), result.config.consumerHeartbeatIntervalMs(),
                request.isFullRequest() || assignmentChanged || ownedDiffers ? next.assignedPartitions() : null));
    }

    /**
     * The consumer group a heartbeat goes to. A join may create it, and replaces an empty classic
     * group of the same id (only offsets: its records convert it on replay, keeping the offsets);
     * a classic group with members is not a consumer group (online migration is not supported).
     */
    private ConsumerGroup groupForHeartbeat(String groupId, boolean joining) {
        ConsumerGroup group = consumerGroups.get(groupId);
        if (group != null) {
            return group;
        }
        ClassicGroup classic = classicGroups.get(groupId);
        if (classic != null && !(joining && isEmptyClassicGroup(classic))) {
            throw new ConsumerProtocolException(ErrorCode.GROUP_ID_NOT_FOUND,
                    "Group " + groupId + " is not a consumer group.");
        }
        if (!joining) {
            throw new ConsumerProtocolException(ErrorCode.GROUP_ID_NOT_FOUND,
                    "Consumer group " + groupId + " not found.");
        }
        return ConsumerGroup.newEmpty(groupId);
    }

    /**
     * max.groups.per.partition (StateLimits) counts both group types: a heartbeat creating a consumer
     * group (not converting an empty classic one) is refused when the partition is full, decided
     * from replicated state so every replica refuses the same heartbeats.
     */
    private void throwIfNewGroupExceedsPartitionLimit(ConsumerGroup group, ResultBuilder result) {
        String groupId = group.groupId();
        if (consumerGroups.containsKey(groupId) || classicGroups.containsKey(groupId)) {
            return;
        }
        int held = consumerGroups.size() + classicGroups.size();
        int limit = result.config.limits().maxGroupsPerPartition();
        if (held >= limit) {
            throw new ConsumerProtocolException(ErrorCode.GROUP_MAX_SIZE_REACHED,
                    io.cohort.core.StateLimits.MAX_GROUPS_PER_PARTITION + "=" + limit + " would be exceeded: the"
                            + " partition holds " + held + " groups and this request would add 1; nothing of the"
                            + " request was applied");
        }
    }

    static boolean isEmptyClassicGroup(ClassicGroup classic) {
        return classic.members().isEmpty() && classic.pendingMembers().isEmpty()
                && (classic.isInState(ClassicGroupState.EMPTY) || classic.isInState(ClassicGroupState.DEAD));
    }

    private static ConsumerGroupMember dynamicMember(ConsumerGroup group, ConsumerGroupHeartbeat request) {
        ConsumerGroupMember member = group.member(request.memberId());
        if (member == null) {
            if (request.memberEpoch() != 0) {
                throw unknownMember(request.memberId(), group.groupId());
            }
            return new ConsumerGroupMember(request.memberId(), ConsumerMemberMetadata.NONE,
                    ConsumerMemberAssignment.JOINING);
        }
        // Epoch 0 from a known member is a rejoin (KIP-1082: the client keeps its member id after
        // FENCED_MEMBER_EPOCH and rejoins owning nothing): accepted, it reconciles from what the
        // coordinator holds for it, so nothing is owned twice.
        if (request.memberEpoch() != 0) {
            throwIfMemberEpochIsInvalid(member, request.memberEpoch(), request.ownedPartitions());
        }
        return member;
    }

    /**
     * Static membership (Kafka's getOrMaybeSubscribeStaticConsumerGroupMember): a join with an
     * instance id held by another member id takes that member's place (and its target assignment)
     * only if it left with epoch -2; other heartbeats must come from the member holding the id.
     */
    private static ConsumerGroupMember staticMember(ConsumerGroup group, ConsumerGroupHeartbeat request,
                                                    ConsumerGroupChange change,
                                                    Map<String, Assignment> inheritedTargets, ResultBuilder result) {
        ConsumerGroupMember holder = group.staticMember(request.instanceId());
        if (request.memberEpoch() != 0) {
            if (holder == null) {
                throw new ConsumerProtocolException(ErrorCode.UNKNOWN_MEMBER_ID,
                        "Instance id " + request.instanceId() + " is unknown.");
            }
            throwIfInstanceIdIsFenced(holder, request);
            throwIfMemberEpochIsInvalid(holder, request.memberEpoch(), request.ownedPartitions());
            return holder;
        }
        if (holder == null || holder.memberId().equals(request.memberId())) {
            return dynamicMember(group, request);
        }
        if (holder.memberEpoch() != ConsumerGroupHeartbeat.LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
            throw new ConsumerProtocolException(ErrorCode.UNRELEASED_INSTANCE_ID, "Static member "
                    + holder.memberId() + " with instance id " + request.instanceId() + " cannot join the group "
                    + group.groupId() + " since the instance id has not been released.");
        }
        inheritedTargets.put(request.memberId(), group.targetAssignment(holder.memberId()));
        change.add(new ConsumerMemberTombstone(group.groupId(), holder.memberId()));
        result.cancel(TimerOp.Keys.consumerSession(group.groupId(), holder.memberId()));
        result.cancel(TimerOp.Keys.consumerRebalance(group.groupId(), holder.memberId()));
        return new ConsumerGroupMember(request.memberId(), holder.metadata(), ConsumerMemberAssignment.JOINING);
    }

    private static void throwIfInstanceIdIsFenced(ConsumerGroupMember holder, ConsumerGroupHeartbeat request) {
        if (!holder.memberId().equals(request.memberId())) {
            throw new ConsumerProtocolException(ErrorCode.FENCED_INSTANCE_ID, "Static member "
                    + request.memberId() + " with instance id " + request.instanceId()
                    + " is fenced by existing member " + holder.memberId() + ".");
        }
    }

    private static void throwIfGroupIsFull(ConsumerGroup group, boolean grows, int maxSize) {
        if (grows && group.members().size() >= maxSize) {
            throw new ConsumerProtocolException(ErrorCode.GROUP_MAX_SIZE_REACHED,
                    "The consumer group has reached its maximum capacity of " + maxSize + " members.");
        }
    }

    /**
     * Kafka's throwIfConsumerGroupMemberEpochIsInvalid: an epoch ahead of the coordinator's is
     * fenced; one behind is fenced too, unless it is the previous epoch and the member owns only
     * partitions it is still assigned (the answer carrying the bump was lost).
     */
    static void throwIfMemberEpochIsInvalid(ConsumerGroupMember member, int receivedEpoch, Assignment owned) {
        if (receivedEpoch > member.memberEpoch()) {
            throw new ConsumerProtocolException(ErrorCode.FENCED_MEMBER_EPOCH, "The consumer group member has a"
                    + " greater member epoch (" + receivedEpoch + ") than the one known by the group coordinator ("
                    + member.memberEpoch() + "). The member must abandon all its partitions and rejoin.");
        }
        if (receivedEpoch < member.memberEpoch()
                && (receivedEpoch != member.previousMemberEpoch() || !isSubset(owned, member.assignedPartitions()))) {
            throw new ConsumerProtocolException(ErrorCode.FENCED_MEMBER_EPOCH, "The consumer group member has a"
                    + " smaller member epoch (" + receivedEpoch + ") than the one known by the group coordinator ("
                    + member.memberEpoch() + "). The member must abandon all its partitions and rejoin.");
        }
    }

    private static boolean isSubset(Assignment owned, Assignment assigned) {
        if (owned == null) {
            return false;
        }
        for (var e : owned.partitions().entrySet()) {
            if (!assigned.partitionsOf(e.getKey()).containsAll(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** The member's metadata with what the request provides (null fields keep the stored values). */
    private static ConsumerMemberMetadata updatedMetadata(ConsumerMemberMetadata old, ConsumerGroupHeartbeat request) {
        String regex = request.subscribedTopicRegex() == null ? old.subscribedTopicRegex()
                : request.subscribedTopicRegex().isEmpty() ? null : request.subscribedTopicRegex();
        return new ConsumerMemberMetadata(
                request.instanceId() != null ? request.instanceId() : old.instanceId(),
                request.rackId() != null ? request.rackId() : old.rackId(),
                request.rebalanceTimeoutMs() != -1 ? request.rebalanceTimeoutMs() : old.rebalanceTimeoutMs(),
                request.clientId(), request.clientHost(),
                request.subscribedTopicNames() != null ? new TreeSet<>(request.subscribedTopicNames())
                        : old.subscribedTopicNames(),
                regex,
                request.serverAssignor() != null ? request.serverAssignor() : old.serverAssignor());
    }

    /**
     * Leave (-1): the member is fenced at once and the epoch bumped. Static leave (-2): the member
     * stays with epoch -2 and keeps its assigned partitions until it rejoins or its session expires.
     */
    private void leave(ConsumerGroupHeartbeat request, ResultBuilder result) {
        String groupId = request.groupId();
        ConsumerGroup group = consumerGroups.get(groupId);
        if (group == null) {
            throw new ConsumerProtocolException(ErrorCode.GROUP_ID_NOT_FOUND, classicGroups.containsKey(groupId)
                    ? "Group " + groupId + " is not a consumer group." : "Consumer group " + groupId + " not found.");
        }
        ConsumerGroupMember member;
        if (request.instanceId() == null) {
            member = group.member(request.memberId());
            if (member == null) {
                throw unknownMember(request.memberId(), groupId);
            }
        } else {
            member = group.staticMember(request.instanceId());
            if (member == null) {
                throw new ConsumerProtocolException(ErrorCode.UNKNOWN_MEMBER_ID,
                        "Instance id " + request.instanceId() + " is unknown.");
            }
            throwIfInstanceIdIsFenced(member, request);
        }
        ConsumerGroupChange change = new ConsumerGroupChange(group);
        if (request.memberEpoch() == ConsumerGroupHeartbeat.LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
            ConsumerMemberAssignment left = new ConsumerMemberAssignment(
                    ConsumerGroupHeartbeat.LEAVE_GROUP_STATIC_MEMBER_EPOCH, member.previousMemberEpoch(),
                    member.state(), member.assignedPartitions(), Assignment.EMPTY);
            if (!left.equals(member.current())) {
                change.add(new ConsumerCurrentAssignmentValue(groupId, member.memberId(), left));
            }
            result.cancel(TimerOp.Keys.consumerRebalance(groupId, member.memberId()));
            scheduleSession(groupId, member.memberId(), result);
        } else {
            change.removeMember(member.memberId(), result);
        }
        change.commitTo(result);
        result.replyNow(new ConsumerGroupHeartbeatResponse(ErrorCode.NONE, null, request.memberId(),
                request.memberEpoch(), 0, null));
    }

    static void scheduleSession(String groupId, String memberId, ResultBuilder result) {
        result.schedule(TimerOp.Keys.consumerSession(groupId, memberId),
                result.nowMs + result.config.consumerSessionTimeoutMs(),
                new io.cohort.core.command.Command.ExpireConsumerMember(groupId, memberId));
    }

    private static ConsumerProtocolException unknownMember(String memberId, String groupId) {
        return new ConsumerProtocolException(ErrorCode.UNKNOWN_MEMBER_ID,
                "Member " + memberId + " is not a member of group " + groupId + ".");
    }
}
