package io.cohort.core.consumer;

import io.cohort.core.ErrorCode;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Reconciles one member's current assignment towards its target (the rules of Kafka's
 * CurrentAssignmentBuilder): partitions are revoked before they are assigned elsewhere. A member
 * keeps its epoch while it must revoke partitions it still reports owning (UNREVOKED_PARTITIONS);
 * otherwise it moves to the target epoch, taking the target partitions no one else owns and waiting
 * for the rest (UNRELEASED_PARTITIONS) until their owners release them.
 */
public final class CurrentAssignmentBuilder {

    /** Who owns a partition now (assigned or pending revocation), or null. */
    @FunctionalInterface
    public interface PartitionOwners {
        String ownerOf(UUID topicId, int partition);
    }

    private CurrentAssignmentBuilder() {
    }

    /**
     * The member's next current assignment, or the same value when nothing moves.
     *
     * @param owned the partitions the member reports owning, or null when it did not say
     * @throws ConsumerProtocolException FENCED_MEMBER_EPOCH for a member in the UNKNOWN state that
     *                                   still reports partitions
     */
    public static ConsumerMemberAssignment reconcile(ConsumerGroupMember member, int targetEpoch, Assignment target,
                                                     PartitionOwners owners, Assignment owned) {
        ConsumerMemberAssignment current = member.current();
        return switch (current.state()) {
            case STABLE -> current.memberEpoch() != targetEpoch
                    ? next(member, current.memberEpoch(), targetEpoch, target, owners, owned)
                    : current;
            // The member has revoked once its heartbeat lists its partitions without the revoked ones;
            // without a list we cannot know, so we keep waiting.
            case UNREVOKED_PARTITIONS -> owned != null && !ownsAny(owned, current.partitionsPendingRevocation())
                    ? next(member, current.memberEpoch(), targetEpoch, target, owners, owned)
                    : current;
            // Picks up partitions as their previous owners release them.
            case UNRELEASED_PARTITIONS -> next(member, current.memberEpoch(), targetEpoch, target, owners, owned);
            case UNKNOWN -> {
                if (owned == null || !owned.isEmpty()) {
                    throw new ConsumerProtocolException(ErrorCode.FENCED_MEMBER_EPOCH, "The consumer group member is"
                            + " in a unknown state. The member must abandon all its partitions and rejoin.");
                }
                yield next(member, targetEpoch, targetEpoch, target, owners, owned);
            }
        };
    }

    private static ConsumerMemberAssignment next(ConsumerGroupMember member, int memberEpoch, int targetEpoch,
                                                 Assignment target, PartitionOwners owners, Assignment owned) {
        Assignment currentAssigned = member.assignedPartitions();
        Map<UUID, SortedSet<Integer>> kept = new TreeMap<>();
        Map<UUID, SortedSet<Integer>> toRevoke = new TreeMap<>();
        Map<UUID, SortedSet<Integer>> toAssign = new TreeMap<>();
        boolean unreleased = false;
        Set<UUID> topics = new TreeSet<>(target.partitions().keySet());
        topics.addAll(currentAssigned.partitions().keySet());
        for (UUID topicId : topics) {
            SortedSet<Integer> wanted = target.partitionsOf(topicId);
            SortedSet<Integer> have = currentAssigned.partitionsOf(topicId);
            TreeSet<Integer> keep = new TreeSet<>(have);
            keep.retainAll(wanted);
            TreeSet<Integer> revoke = new TreeSet<>(have);
            revoke.removeAll(keep);
            TreeSet<Integer> assign = new TreeSet<>(wanted);
            assign.removeAll(keep);
            // A partition someone else still owns is not handed over before they release it.
            int before = assign.size();
            assign.removeIf(p -> {
                String owner = owners.ownerOf(topicId, p);
                return owner != null && !owner.equals(member.memberId());
            });
            unreleased |= assign.size() != before;
            kept.put(topicId, keep);
            toRevoke.put(topicId, revoke);
            toAssign.put(topicId, assign);
        }
        Assignment revoked = Assignment.of(toRevoke);
        if (!revoked.isEmpty() && (owned == null || ownsAny(owned, revoked))) {
            return new ConsumerMemberAssignment(memberEpoch, previousEpoch(member, memberEpoch),
                    MemberState.UNREVOKED_PARTITIONS, Assignment.of(kept), revoked);
        }
        Map<UUID, SortedSet<Integer>> newAssigned = new TreeMap<>(kept);
        toAssign.forEach((topicId, parts) -> newAssigned.merge(topicId, parts, (a, b) -> {
            TreeSet<Integer> union = new TreeSet<>(a);
            union.addAll(b);
            return union;
        }));
        MemberState state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        return new ConsumerMemberAssignment(targetEpoch, previousEpoch(member, targetEpoch), state,
                Assignment.of(newAssigned), Assignment.EMPTY);
    }

    /**
     * The epoch the member held before the last bump: a heartbeat carrying it (its answer was lost)
     * is still accepted. Unchanged while the epoch does not move, so waiting writes nothing.
     */
    private static int previousEpoch(ConsumerGroupMember member, int newEpoch) {
        return newEpoch != member.memberEpoch() ? member.memberEpoch() : member.previousMemberEpoch();
    }

    private static boolean ownsAny(Assignment owned, Assignment partitions) {
        for (Map.Entry<UUID, SortedSet<Integer>> e : partitions.partitions().entrySet()) {
            for (int partition : e.getValue()) {
                if (owned.contains(e.getKey(), partition)) {
                    return true;
                }
            }
        }
        return false;
    }
}
