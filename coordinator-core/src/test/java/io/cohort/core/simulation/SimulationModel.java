package io.cohort.core.simulation;

import io.cohort.core.Bytes;
import io.cohort.core.command.Command;
import io.cohort.core.GroupConfig;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.ParkKey;
import io.cohort.core.shard.Result;
import io.cohort.core.shard.TimerOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What the simulation expects, built only from answers the clients got, and the invariants checked
 * against the shard after every command and step (see {@link GroupSimulation} for the list).
 */
final class SimulationModel {
    /** A broken invariant: the driver adds the seed, step and trace. */
    static final class Violation extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Violation(String message) {
            super(message);
        }
    }

    /** An acknowledged commit, as a fetch must return it. */
    record ExpectedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs,
                          long expireTimestampMs) {
    }

    /** One generation of one group. */
    record GenerationKey(String groupId, int generationId) {
    }

    private final GroupConfig config;
    /** Acknowledged commits not deleted or expired since, by group then partition. */
    private final SortedMap<String, SortedMap<TopicPartition, ExpectedOffset>> offsets = new TreeMap<>();
    /** Every group id the simulation ever used (fetches are checked for all of them). */
    private final Set<String> knownGroups = new java.util.TreeSet<>();
    /** The highest generation seen per live group id; forgotten when the group is deleted. */
    private final Map<String, Integer> maxGeneration = new TreeMap<>();
    /** The highest generation each member id was told in a JoinGroup answer. */
    private final Map<String, Integer> memberGenerations = new TreeMap<>();
    /** The assignment the shard accepted from each generation's leader, by owner. */
    private final Map<GenerationKey, Map<String, Bytes>> acceptedAssignments = new TreeMap<>(
            java.util.Comparator.comparing(GenerationKey::groupId).thenComparingInt(GenerationKey::generationId));
    /** Who was told it owns each partition, per generation. */
    private final Map<GenerationKey, Map<TopicPartition, String>> owners = new TreeMap<>(
            java.util.Comparator.comparing(GenerationKey::groupId).thenComparingInt(GenerationKey::generationId));

    /** The last snapshot that passed the round trip (a step that changed nothing is not checked again). */
    private List<CoordinatorRecord> lastCheckedSnapshot = List.of();

    SimulationModel(GroupConfig config) {
        this.config = config;
    }

    /** Throws a {@link Violation} unless {@code condition}; the message is built only on failure. */
    static void check(boolean condition, java.util.function.Supplier<String> message) {
        if (!condition) {
            throw new Violation(message.get());
        }
    }

    void knowGroup(String groupId) {
        knownGroups.add(groupId);
    }

    // ----- (d) acknowledged commits -------------------------------------------------------------

    void committed(String groupId, TopicPartition partition, ExpectedOffset value) {
        offsets.computeIfAbsent(groupId, g -> new TreeMap<>()).put(partition, value);
    }

    ExpectedOffset expected(String groupId, TopicPartition partition) {
        SortedMap<TopicPartition, ExpectedOffset> group = offsets.get(groupId);
        return group == null ? null : group.get(partition);
    }

    void offsetDeleted(String groupId, TopicPartition partition) {
        SortedMap<TopicPartition, ExpectedOffset> group = offsets.get(groupId);
        if (group != null) {
            group.remove(partition);
        }
    }

    void groupOffsetsDeleted(String groupId) {
        offsets.remove(groupId);
    }

    /**
     * An expiration tombstone is legal only once retention has passed since the commit, or, for an
     * Empty group with a protocol type, since the group became Empty; or once an explicit retention
     * ran out (reference 3.4).
     */
    void offsetExpired(String groupId, TopicPartition partition, ClassicGroup before, long nowMs) {
        ExpectedOffset value = expected(groupId, partition);
        check(value != null, () -> "(d) ExpireOffsets wrote a tombstone for " + groupId + "/" + partition
                + ", which has no acknowledged commit");
        boolean sinceCommit = nowMs - value.commitTimestampMs() >= config.offsetsRetentionMs();
        boolean explicit = value.expireTimestampMs() >= 0 && nowMs >= value.expireTimestampMs();
        boolean sinceEmpty = before != null && before.isInState(ClassicGroupState.EMPTY)
                && before.protocolType() != null
                && nowMs - before.stateTimestampMs() >= config.offsetsRetentionMs();
        check(sinceCommit || sinceEmpty || explicit, () -> "(d) offset " + groupId + "/" + partition + " committed at "
                + value.commitTimestampMs() + " expired at " + nowMs + ", before the retention of "
                + config.offsetsRetentionMs() + " ms (group before: " + before + ")");
        offsetDeleted(groupId, partition);
    }

    /** (d): every known group's fetch-all equals the acknowledged commits, and so do explicit fetches. */
    void checkOffsets(GroupCoordinatorShard shard) {
        for (String groupId : knownGroups) {
            SortedMap<TopicPartition, ExpectedOffset> expected = offsets.getOrDefault(groupId, new TreeMap<>());
            SortedMap<TopicPartition, OffsetFetchResponse.PartitionOffset> actual = new TreeMap<>();
            OffsetFetchResponse all = shard.fetchOffsets(groupId, null);
            check(all.error() == io.cohort.core.ErrorCode.NONE,
                    () -> "(d) fetch-all of " + groupId + " failed: " + all);
            for (OffsetFetchResponse.TopicOffsets topic : all.topics()) {
                for (OffsetFetchResponse.PartitionOffset partition : topic.partitions()) {
                    actual.put(new TopicPartition(topic.topic(), partition.partition()), partition);
                }
            }
            check(actual.keySet().equals(expected.keySet()), () -> "(d) group " + groupId + " has committed partitions "
                    + actual.keySet() + " but the acknowledged, undeleted commits are " + expected.keySet());
            Map<String, List<Integer>> explicit = new TreeMap<>();
            SimCodec.PARTITIONS.forEach((topic, count) -> {
                List<Integer> partitions = new ArrayList<>();
                for (int p = 0; p < count; p++) {
                    partitions.add(p);
                }
                explicit.put(topic, partitions);
            });
            for (OffsetFetchResponse.TopicOffsets topic : shard.fetchOffsets(groupId, explicit).topics()) {
                for (OffsetFetchResponse.PartitionOffset partition : topic.partitions()) {
                    TopicPartition tp = new TopicPartition(topic.topic(), partition.partition());
                    checkFetched(groupId, tp, expected.get(tp), partition);
                    if (expected.containsKey(tp)) {
                        checkFetched(groupId, tp, expected.get(tp), actual.get(tp));
                    }
                }
            }
        }
    }

    private static void checkFetched(String groupId, TopicPartition tp, ExpectedOffset expected,
                                     OffsetFetchResponse.PartitionOffset actual) {
        OffsetFetchResponse.PartitionOffset wanted = expected == null
                ? OffsetFetchResponse.PartitionOffset.none(tp.partition())
                : new OffsetFetchResponse.PartitionOffset(tp.partition(), expected.offset(), expected.leaderEpoch(),
                        expected.metadata(), io.cohort.core.ErrorCode.NONE);
        check(wanted.equals(actual), () -> "(d) OffsetFetch of " + groupId + "/" + tp + " returned " + actual
                + " but the last acknowledged commit is " + expected);
    }

    // ----- (b) and (c) what clients were told ---------------------------------------------------

    /** (c): a member id's JoinGroup answers never go back in generation. */
    void joinedGeneration(String memberId, int generationId, ClassicGroup group) {
        Integer previous = memberGenerations.get(memberId);
        check(previous == null || generationId >= previous, () -> "(c) member " + memberId + " was told generation "
                + generationId + " after generation " + previous);
        memberGenerations.put(memberId, generationId);
        check(group != null && generationId == group.generationId(), () -> "(c) member " + memberId
                + " was told generation " + generationId + " but the group is at " + group);
    }

    /** The shard accepted the leader's assignment for a generation (its own SyncGroup answered NONE). */
    void assignmentAccepted(GenerationKey generation, Map<String, Bytes> byOwner) {
        acceptedAssignments.putIfAbsent(generation, byOwner);
    }

    /**
     * (b): a member told NONE in SyncGroup gets exactly what its generation's leader assigned to it, and
     * no partition has two owners in one generation.
     */
    void assignmentDelivered(GenerationKey generation, String owner, Bytes assignment) {
        Map<String, Bytes> accepted = acceptedAssignments.get(generation);
        check(accepted != null, () -> "(b) " + owner + " got an assignment for " + generation
                + " but no leader assignment was accepted for it");
        Bytes wanted = accepted.getOrDefault(owner, Bytes.EMPTY);
        check(wanted.equals(assignment), () -> "(b) " + owner + " got " + SimCodec.parseAssignment(assignment) + " for "
                + generation + " but its leader assigned " + SimCodec.parseAssignment(wanted));
        Map<TopicPartition, String> generationOwners = owners.computeIfAbsent(generation, g -> new TreeMap<>());
        for (TopicPartition partition : SimCodec.parseAssignment(assignment)) {
            String previous = generationOwners.putIfAbsent(partition, owner);
            check(previous == null || previous.equals(owner), () -> "(b) partition " + partition + " is owned by both "
                    + previous + " and " + owner + " in " + generation);
        }
    }

    // ----- (a) group state ----------------------------------------------------------------------

    /** A group was deleted: a new group of that id starts again from generation 0. */
    void groupDeleted(String groupId) {
        maxGeneration.remove(groupId);
        acceptedAssignments.keySet().removeIf(key -> key.groupId().equals(groupId));
        owners.keySet().removeIf(key -> key.groupId().equals(groupId));
    }

    /** (a) after every command: each group's state, members, flags and generation are consistent. */
    void checkGroups(GroupCoordinatorShard shard) {
        for (String groupId : shard.groupIds()) {
            ClassicGroup group = shard.group(groupId);
            checkGroup(group);
            Integer previous = maxGeneration.get(groupId);
            check(previous == null || group.generationId() >= previous, () -> "(a) group " + groupId
                    + " went back from generation " + previous + " to " + group.generationId());
            maxGeneration.put(groupId, group.generationId());
        }
    }

    private static void checkGroup(ClassicGroup group) {
        String id = "(a) group " + group.groupId() + " ";
        ClassicGroupState state = group.state();
        check(state != ClassicGroupState.DEAD, () -> id + "is Dead after a command");
        if (state == ClassicGroupState.EMPTY) {
            check(group.members().isEmpty(), () -> id + "is Empty with members " + group.members().keySet());
        }
        // A PreparingRebalance group may have lost all members during its initial delay; its join
        // timer then completes the phase and the group becomes Empty.
        if (group.members().isEmpty()) {
            check(state == ClassicGroupState.EMPTY || state == ClassicGroupState.PREPARING_REBALANCE,
                    () -> id + "has no members in state " + state);
            check(group.leaderId() == null, () -> id + "has no members but leader " + group.leaderId());
        } else {
            check(group.hasMember(group.leaderId()), () -> id + "has leader " + group.leaderId()
                    + " which is not among its members " + group.members().keySet());
        }
        if (state == ClassicGroupState.COMPLETING_REBALANCE || state == ClassicGroupState.STABLE) {
            check(group.protocolName() != null, () -> id + "is " + state + " without a selected protocol");
            for (ClassicGroupMember member : group.members().values()) {
                check(member.metadata(group.protocolName()) != null, () -> id + "selected " + group.protocolName()
                        + " which member " + member.memberId() + " does not support");
            }
        }
        if (state == ClassicGroupState.EMPTY) {
            check(group.protocolName() == null, () -> id + "is Empty with protocol " + group.protocolName());
        }
        for (ClassicGroupMember member : group.members().values()) {
            check(!member.awaitingJoin() || state == ClassicGroupState.PREPARING_REBALANCE,
                    () -> id + "is " + state + " but member " + member.memberId() + " has a parked JoinGroup");
            check(!member.awaitingSync() || state == ClassicGroupState.COMPLETING_REBALANCE,
                    () -> id + "is " + state + " but member " + member.memberId() + " has a parked SyncGroup");
            check(!group.isPendingMember(member.memberId()), () -> id + "has " + member.memberId()
                    + " both as member and as pending member");
        }
        check(group.members().keySet().containsAll(group.pendingSyncMembers()), () -> id + "has pending-sync members "
                + group.pendingSyncMembers() + " that are not members " + group.members().keySet());
        check((state == ClassicGroupState.PREPARING_REBALANCE) == (group.joinTimer() != null),
                () -> id + "is " + state + " with join timer " + group.joinTimer());
        if (group.syncTimer() != null) {
            check(state == ClassicGroupState.COMPLETING_REBALANCE || state == ClassicGroupState.STABLE,
                    () -> id + "is " + state + " with sync timer " + group.syncTimer());
            check(group.syncTimer().generationId() == group.generationId(), () -> id + "at generation "
                    + group.generationId() + " has a sync timer for " + group.syncTimer());
        }
        // Unlike Kafka's removeSyncExpiration, a new join phase leaves the previous generation's
        // pending-sync set in place until the next generation starts; it is never read meanwhile.
        boolean syncPhase = state == ClassicGroupState.COMPLETING_REBALANCE || state == ClassicGroupState.STABLE;
        if (state == ClassicGroupState.COMPLETING_REBALANCE || (syncPhase && !group.pendingSyncMembers().isEmpty())) {
            check(group.syncTimer() != null, () -> id + "is " + state + " with pending syncs "
                    + group.pendingSyncMembers() + " but no sync timer");
        }
        check(state != ClassicGroupState.EMPTY || group.pendingSyncMembers().isEmpty(),
                () -> id + "is Empty with pending syncs " + group.pendingSyncMembers());
    }

    /**
     * (a) after every step: the leader's timers match the replicated state, so nothing can hang: the
     * stored join and sync deadlines are armed, and every member not waiting on a parked call, and every
     * pending member, has a session timer.
     */
    void checkTimers(GroupCoordinatorShard shard, Map<String, TimerOp.Schedule> timers) {
        for (String groupId : shard.groupIds()) {
            ClassicGroup group = shard.group(groupId);
            String id = "(a) group " + groupId + " ";
            if (group.joinTimer() != null) {
                TimerOp.Schedule armed = timers.get(TimerOp.Keys.join(groupId));
                check(armed != null && armed.deadlineMs() == group.joinTimer().deadlineMs(),
                        () -> id + "stores join timer " + group.joinTimer() + " but the leader has " + armed);
            }
            if (group.syncTimer() != null) {
                TimerOp.Schedule armed = timers.get(TimerOp.Keys.sync(groupId));
                check(armed != null && armed.deadlineMs() == group.syncTimer().deadlineMs(),
                        () -> id + "stores sync timer " + group.syncTimer() + " but the leader has " + armed);
            }
            for (ClassicGroupMember member : group.members().values()) {
                if (!member.awaitingJoin() && !member.awaitingSync()) {
                    check(timers.containsKey(TimerOp.Keys.heartbeat(groupId, member.memberId())),
                            () -> id + "member " + member.memberId() + " has no session timer");
                }
            }
            for (String pending : group.pendingMembers().keySet()) {
                check(timers.containsKey(TimerOp.Keys.heartbeat(groupId, pending)),
                        () -> id + "pending member " + pending + " has no session timer");
            }
        }
    }

    /** The read paths agree with the state: ListGroups lists every group, DescribeGroups each one. */
    void checkReads(GroupCoordinatorShard shard) {
        List<io.cohort.core.response.ListedGroup> listed = shard.listGroups(List.of(), List.of());
        check(listed.stream().map(io.cohort.core.response.ListedGroup::groupId).toList()
                .equals(List.copyOf(shard.groupIds())),
                () -> "ListGroups " + listed + " but groups are " + shard.groupIds());
        List<String> ids = new ArrayList<>(knownGroups);
        List<io.cohort.core.response.DescribedGroup> described = shard.describeGroups(ids, (short) 5);
        for (int i = 0; i < ids.size(); i++) {
            ClassicGroup group = shard.group(ids.get(i));
            io.cohort.core.response.DescribedGroup answer = described.get(i);
            String state = group == null ? ClassicGroupState.DEAD.displayName() : group.state().displayName();
            int members = group == null ? 0 : group.members().size();
            check(answer.error() == io.cohort.core.ErrorCode.NONE && answer.state().equals(state)
                    && answer.members().size() == members, () -> "DescribeGroups " + answer + " for " + group);
        }
    }

    // ----- per command ----------------------------------------------------------------------------

    /**
     * After every command: which records it may write (and the model's side of tombstones), that every
     * completion answers a call that was parked before it (the caller's own call is answered through
     * the reply), and that no timer is armed in the past.
     */
    void checkCommand(Command command, Result result, Map<String, ClassicGroup> before, long nowMs) {
        checkRecords(command, result, before, nowMs);
        checkCompletionsAndTimers(result, before, nowMs);
    }

    private void checkRecords(Command command, Result result, Map<String, ClassicGroup> before, long nowMs) {
        for (CoordinatorRecord record : result.records()) {
            if (record instanceof CoordinatorRecord.OffsetValue) {
                check(command instanceof Command.OffsetCommit, () -> command + " wrote " + record);
            } else if (record instanceof CoordinatorRecord.OffsetTombstone tombstone) {
                check(command instanceof Command.ExpireOffsets || command instanceof Command.DeleteGroups
                        || command instanceof Command.OffsetDelete, () -> command + " wrote " + record);
                if (command instanceof Command.ExpireOffsets) {
                    offsetExpired(tombstone.groupId(), new TopicPartition(tombstone.topic(), tombstone.partition()),
                            before.get(tombstone.groupId()), nowMs);
                }
            } else if (record instanceof CoordinatorRecord.GroupTombstone tombstone) {
                check(command instanceof Command.ExpireOffsets || command instanceof Command.DeleteGroups,
                        () -> command + " wrote " + record);
                ClassicGroup previous = before.get(tombstone.groupId());
                check(previous != null && previous.isInState(ClassicGroupState.EMPTY),
                        () -> command + " deleted group " + previous + ", which was not Empty");
                groupDeleted(tombstone.groupId());
            }
        }
    }

    private static void checkCompletionsAndTimers(Result result, Map<String, ClassicGroup> before, long nowMs) {
        for (Result.Completion completion : result.completions()) {
            ClassicGroup group = before.get(completion.key().groupId());
            io.cohort.core.group.ClassicGroupMember member = group == null ? null
                    : group.member(completion.key().memberId());
            boolean parked = member != null && (completion.key().kind() == ParkKey.Kind.JOIN
                    ? member.awaitingJoin() : member.awaitingSync());
            check(parked, () -> "completion " + completion + " answers no parked call (member before: "
                    + member + ")");
        }
        for (TimerOp op : result.timers()) {
            if (op instanceof TimerOp.Schedule schedule) {
                check(schedule.deadlineMs() >= nowMs, () -> "timer armed in the past at " + nowMs + ": "
                        + schedule);
            }
        }
    }

    // ----- (f) liveness ---------------------------------------------------------------------------

    /** Why the groups have not settled yet, or null if they have. */
    static String unsettled(List<String> consumerGroups, List<SimClient> clients, GroupCoordinatorShard shard) {
        for (String groupId : consumerGroups) {
            List<SimClient> running = clients.stream()
                    .filter(c -> c.groupId.equals(groupId) && c.isRunning()).toList();
            ClassicGroup group = shard.group(groupId);
            if (running.isEmpty()) {
                if (group != null && !group.isInState(ClassicGroupState.EMPTY)) {
                    return groupId + " has no running clients but is " + group.state() + " with "
                            + group.members().keySet();
                }
                continue;
            }
            if (group == null || !group.isInState(ClassicGroupState.STABLE)) {
                return groupId + " is " + (group == null ? "missing" : group.state().toString());
            }
            Set<String> memberIds = running.stream().map(c -> c.memberId)
                    .collect(Collectors.toCollection(TreeSet::new));
            if (!memberIds.equals(new TreeSet<>(group.members().keySet()))) {
                return groupId + " has members " + group.members().keySet() + " but the running clients are " + running;
            }
            Set<TopicPartition> assigned = new TreeSet<>();
            Set<TopicPartition> subscribed = new TreeSet<>();
            for (SimClient client : running) {
                if (client.phase != SimClient.Phase.STABLE || client.generation != group.generationId()) {
                    return groupId + " is at generation " + group.generationId() + " but " + client + " is not";
                }
                assigned.addAll(client.assignment);
                for (String topic : client.topics) {
                    for (int p = 0; p < SimCodec.PARTITIONS.get(topic); p++) {
                        subscribed.add(new TopicPartition(topic, p));
                    }
                }
            }
            if (!assigned.equals(subscribed)) {
                return groupId + " assigned " + assigned + " but its members subscribe to " + subscribed;
            }
        }
        return null;
    }

    // ----- (e) snapshots ------------------------------------------------------------------------

    /**
     * The orders that record equality does not see (map equality ignores them) but the shard depends
     * on: members in join order (leader succession), pending members, pending syncs.
     */
    static List<List<String>> memberOrder(List<CoordinatorRecord> records) {
        List<List<String>> orders = new ArrayList<>();
        for (CoordinatorRecord record : records) {
            if (record instanceof CoordinatorRecord.GroupValue value) {
                List<String> order = new ArrayList<>(value.group().members().keySet());
                order.add("|");
                order.addAll(value.group().pendingMembers().keySet());
                order.add("|");
                order.addAll(value.group().pendingSyncMembers());
                orders.add(order);
            }
        }
        return orders;
    }

    /** (e): a fresh shard restored from the snapshot snapshots the same records, in the same order. */
    void checkSnapshotRoundTrip(GroupCoordinatorShard shard) {
        List<CoordinatorRecord> snapshot = shard.snapshot();
        if (snapshot.equals(lastCheckedSnapshot) && memberOrder(snapshot).equals(memberOrder(lastCheckedSnapshot))) {
            return;
        }
        lastCheckedSnapshot = snapshot;
        List<CoordinatorRecord> sorted = new ArrayList<>(snapshot);
        sorted.sort(CoordinatorRecord.SNAPSHOT_ORDER);
        check(sorted.equals(snapshot), () -> "(e) snapshot is not in snapshot order: " + snapshot);
        GroupCoordinatorShard restored = new GroupCoordinatorShard(shard.config());
        restored.restore(snapshot);
        List<CoordinatorRecord> again = restored.snapshot();
        check(again.equals(snapshot) && memberOrder(again).equals(memberOrder(snapshot)),
                () -> "(e) restore(snapshot()) gives a different snapshot:\n  before " + snapshot
                        + "\n  after  " + again);
        check(Objects.equals(restored.groupIds(), shard.groupIds()), () -> "(e) restored group ids differ");
        // The state-limit counters, kept up to date record by record, equal those rebuilt from scratch.
        check(restored.metadataBytes() == shard.metadataBytes(), () -> "(e) metadata bytes counted "
                + shard.metadataBytes() + " but " + restored.metadataBytes() + " after restore");
        for (String groupId : shard.groupIds()) {
            check(restored.offsetCount(groupId) == shard.offsetCount(groupId), () -> "(e) offsets of " + groupId
                    + " counted " + shard.offsetCount(groupId) + " but " + restored.offsetCount(groupId)
                    + " after restore");
        }
    }
}
