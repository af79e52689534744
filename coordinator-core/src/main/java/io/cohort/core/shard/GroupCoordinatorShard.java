package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclSet;
import io.cohort.core.command.Command;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.consumer.assignor.ServerAssignor;
import io.cohort.core.consumer.assignor.ServerAssignors;
import io.cohort.core.command.Heartbeat;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.offset.OffsetStore;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.DescribedConsumerGroup;
import io.cohort.core.response.DescribedGroup;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.ListedGroup;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.response.Response;
import io.cohort.core.response.SyncGroupResponse;
import io.cohort.core.topic.TopicRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * One offsets partition's group coordinator: a deterministic state machine over classic groups and
 * committed offsets.
 *
 * <p>There are two kinds of methods, as in Kafka's GroupCoordinatorShard. {@link #handle} reads the
 * state and returns a {@link Result} (records, the caller's answer, answers to parked calls, timer
 * requests) without changing anything; {@link #replay} applies one record and is the only method
 * that mutates. {@link #apply} is both, in order, which is what a Raft state machine does for every
 * committed command. Time is always an argument: the same commands with the same times give the
 * same records and the same state on every replica.
 *
 * <p>Threading: handle and replay run on one thread (the partition's apply thread). The read methods
 * ({@link #heartbeat}, {@link #fetchOffsets}, {@link #describeGroups}, {@link #listGroups}) may run
 * concurrently with it: groups are immutable values in a concurrent map, offsets are in concurrent
 * maps, so a reader sees each group and offset at some applied version.
 */
public final class GroupCoordinatorShard {
    /** The settings the cluster was created with (cluster.properties): where a replay of the log starts. */
    private final GroupConfig initialConfig;
    /** The settings in force: the initial ones with the latest applied SetGroupConfig's. Apply thread writes. */
    private volatile GroupConfig config;
    private volatile GroupSettings settings;
    private final ConcurrentHashMap<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    /** KIP-848 consumer groups; a group id is in at most one of the two maps. */
    private final ConcurrentHashMap<String, ConsumerGroup> consumerGroups = new ConcurrentHashMap<>();
    private final OffsetStore offsets = new OffsetStore();
    private final StateUsage usage = new StateUsage();
    /** The cluster's ACLs; only partition 0's shard ever holds any (its log alone carries ACL commands). */
    private volatile AclSet acls = AclSet.EMPTY;
    /** The cluster's topic registry; like the ACLs, only partition 0's shard ever holds any. */
    private volatile TopicRegistry topics = TopicRegistry.EMPTY;

    private final ConsumerTargetAssignment consumerTargetAssignment;
    private final ConsumerGroupHeartbeatHandler consumerHeartbeat;
    private final ConsumerGroupTimerHandler consumerTimers = new ConsumerGroupTimerHandler(consumerGroups);
    private final ConsumerGroupReads consumerReads = new ConsumerGroupReads(consumerGroups, groups);
    private final GroupReads reads;
    private final ConsumerGroupReplay consumerReplay = new ConsumerGroupReplay(consumerGroups, groups, offsets, usage);
    private final JoinGroupHandler joinGroup = new JoinGroupHandler(groups);
    private final SyncGroupHandler syncGroup = new SyncGroupHandler(groups);
    private final LeaveGroupHandler leaveGroup = new LeaveGroupHandler(groups);
    private final HeartbeatHandler heartbeat = new HeartbeatHandler(groups);
    private final RebalanceTimerHandler rebalanceTimers = new RebalanceTimerHandler(groups);
    private final OffsetCommitHandler offsetCommit = new OffsetCommitHandler(groups, consumerGroups);
    private final GroupAdminHandler groupAdmin = new GroupAdminHandler(groups, consumerGroups, offsets);
    private final OffsetExpiryHandler offsetExpiry = new OffsetExpiryHandler(groups, consumerGroups, offsets);
    private final AclHandler aclHandler = new AclHandler(() -> acls);
    private final GroupConfigHandler groupConfig = new GroupConfigHandler(groups);
    private final TopicHandler topicHandler = new TopicHandler(() -> topics);

    public GroupCoordinatorShard(GroupConfig config) {
        this(config, ServerAssignors.defaults());
    }

    /**
     * A shard whose consumer groups may use {@code assignors} (those named in
     * group.consumer.assignors, in that order; the first is the default).
     */
    public GroupCoordinatorShard(GroupConfig config, List<ServerAssignor> assignors) {
        this.consumerTargetAssignment = new ConsumerTargetAssignment(assignors, config.consumerAssignors());
        this.consumerHeartbeat = new ConsumerGroupHeartbeatHandler(consumerGroups, groups, consumerTargetAssignment);
        this.reads = new GroupReads(groups, consumerGroups, offsets, consumerReads,
                consumerTargetAssignment.supportedNames());
        this.initialConfig = config;
        this.config = config;
        this.settings = GroupSettings.of(config, GroupSettings.INITIAL_VERSION);
    }

    /** The settings in force at the applied state (they change with SetGroupConfig); any thread. */
    public GroupConfig config() {
        return config;
    }

    /** The changeable settings in force and their version (0: as created); any thread. */
    public GroupSettings settings() {
        return settings;
    }

    /** Decides what {@code command} does at leader time {@code nowMs}; changes nothing. */
    public Result handle(Command command, long nowMs) {
        return handle(command, nowMs, true);
    }

    /**
     * {@link #handle(Command, long)}, checking the state limits only if {@code stateLimitsApply}:
     * false for commands of a log written by a build without them, which were accepted without them
     * and must replay to the same state (the log records which, so every replica agrees).
     */
    public Result handle(Command command, long nowMs, boolean stateLimitsApply) {
        ResultBuilder result = new ResultBuilder(nowMs, config);
        if (command instanceof Command.JoinGroup c) {
            joinGroupOfEitherType(c, result);
        } else if (command instanceof ConsumerGroupHeartbeat c) {
            consumerHeartbeat.handle(c, result);
        } else if (command instanceof Command.ExpireConsumerMember c) {
            consumerTimers.expireSession(c, result);
        } else if (command instanceof Command.FireConsumerRebalanceTimeout c) {
            consumerTimers.fireRebalanceTimeout(c, result);
        } else if (command instanceof Command.SyncGroup c) {
            syncGroup.handle(c, result);
        } else if (command instanceof Command.LeaveGroup c) {
            leaveGroup.handle(c, result);
        } else if (command instanceof Command.OffsetCommit c) {
            offsetCommit.handle(c, result);
        } else if (command instanceof Command.DeleteGroups c) {
            groupAdmin.deleteGroups(c, result);
        } else if (command instanceof Command.OffsetDelete c) {
            groupAdmin.deleteOffsets(c, result);
        } else if (command instanceof Command.ExpireMemberSession c) {
            rebalanceTimers.expireSession(c, result);
        } else if (command instanceof Command.FireJoinTimer c) {
            rebalanceTimers.fireJoinTimer(c, result);
        } else if (command instanceof Command.FireSyncTimer c) {
            rebalanceTimers.fireSyncTimer(c, result);
        } else if (command instanceof Command.ExpireOffsets) {
            offsetExpiry.expire(result);
        } else if (command instanceof Command.CreateAcls c) {
            aclHandler.createAcls(c, result);
        } else if (command instanceof Command.DeleteAcls c) {
            aclHandler.deleteAcls(c, result);
        } else if (command instanceof Command.SetGroupConfig c) {
            groupConfig.set(c, settings, initialConfig, result);
        } else if (command instanceof Command.CreateTopics c) {
            topicHandler.createTopics(c, result);
        } else if (command instanceof Command.AlterTopics c) {
            topicHandler.alterTopics(c, result);
        } else if (command instanceof Command.DeleteTopics c) {
            topicHandler.deleteTopics(c, result);
        } else {
            throw new IllegalArgumentException("Unknown command " + command);
        }
        return stateLimitsApply ? refuseGrowthBeyondLimits(command, result.build()) : result.build();
    }

    /**
     * A classic JoinGroup to a consumer group: a consumer group with members cannot take classic
     * members (Cohort has no online migration; Kafka answers INCONSISTENT_GROUP_PROTOCOL when a
     * classic member cannot join); an empty one (offsets only) becomes a classic group, its records
     * replacing it on replay, as Kafka converts it.
     */
    private void joinGroupOfEitherType(Command.JoinGroup c, ResultBuilder result) {
        ConsumerGroup consumerGroup = c.groupId() == null ? null : consumerGroups.get(c.groupId());
        if (consumerGroup != null && !consumerGroup.isEmpty()) {
            result.replyNow(JoinGroupResponse.error(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, c.memberId(),
                    "Group " + c.groupId() + " is a consumer group (KIP-848): classic members cannot join it."));
            return;
        }
        joinGroup.handle(c, result);
    }

    /**
     * The commands of clients that can grow the state (JoinGroup: members and their metadata;
     * SyncGroup: assignments; OffsetCommit: offsets, groups, metadata) are refused as a whole when
     * their records would grow the partition beyond {@link io.cohort.core.StateLimits}: no record,
     * no timer, no completion, only an error naming the limit. Timers and admin commands only shrink
     * the state and are never refused. Decided at apply time from replicated state and config, so
     * every replica refuses the same commands.
     */
    private Result refuseGrowthBeyondLimits(Command command, Result result) {
        boolean grows = command instanceof Command.JoinGroup || command instanceof Command.SyncGroup
                || command instanceof Command.OffsetCommit;
        if (!grows || result.records().isEmpty()) {
            return result;
        }
        String violation = usage.growthViolation(result.records(), groups, offsets, config.limits());
        if (violation == null) {
            return result;
        }
        Response refusal;
        if (command instanceof Command.OffsetCommit c) {
            refusal = OffsetCommitResponse.allFailed(c, ErrorCode.INVALID_COMMIT_OFFSET_SIZE, violation);
        } else if (command instanceof Command.JoinGroup c) {
            refusal = JoinGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, c.memberId(), violation);
        } else {
            refusal = SyncGroupResponse.error(ErrorCode.GROUP_MAX_SIZE_REACHED, violation);
        }
        return new Result(List.of(), new Result.Reply.Now(refusal), List.of(), List.of());
    }

    /** {@link #handle} then {@link #replay} of every record it produced: one committed command. */
    public Result apply(Command command, long nowMs) {
        return apply(command, nowMs, true);
    }

    /** {@link #apply(Command, long)} with the state limits checked only if {@code stateLimitsApply}. */
    public Result apply(Command command, long nowMs, boolean stateLimitsApply) {
        Result result = handle(command, nowMs, stateLimitsApply);
        for (CoordinatorRecord record : result.records()) {
            replay(record);
        }
        return result;
    }

    /**
     * Applies one record: the only mutation. A record that breaks an invariant throws: that is a bug
     * or a corrupt log, and a replica must stop rather than diverge.
     */
    public void replay(CoordinatorRecord record) {
        if (record instanceof CoordinatorRecord.GroupValue r) {
            consumerReplay.replaceEmptyConsumerGroup(r.groupId());
            usage.onGroupReplaced(groups.put(r.groupId(), r.group()), r.group());
        } else if (record instanceof CoordinatorRecord.GroupTombstone r) {
            if (offsets.hasOffsets(r.groupId())) {
                throw new IllegalStateException("Group " + r.groupId() + " deleted while it still has offsets "
                        + offsets.offsets(r.groupId()).keySet());
            }
            usage.onGroupReplaced(groups.remove(r.groupId()), null);
        } else if (record instanceof CoordinatorRecord.OffsetValue r) {
            // Offsets committed to an unknown group create a simple group, as Kafka's replay does; it
            // has no members, so no metadata to count.
            if (!consumerGroups.containsKey(r.groupId())) {
                groups.computeIfAbsent(r.groupId(), id -> ClassicGroup.newEmpty(id, r.value().commitTimestampMs()));
            }
            OffsetAndMetadata old = offsets.put(r.groupId(), new TopicPartition(r.topic(), r.partition()), r.value());
            usage.onOffsetReplaced(r.groupId(), old, r.value());
        } else if (record instanceof CoordinatorRecord.OffsetTombstone r) {
            OffsetAndMetadata removed = offsets.remove(r.groupId(), new TopicPartition(r.topic(), r.partition()));
            usage.onOffsetRemoved(r.groupId(), removed);
        } else if (record instanceof CoordinatorRecord.AclValue r) {
            acls = acls.with(r.binding());
        } else if (record instanceof CoordinatorRecord.AclTombstone r) {
            acls = acls.without(r.binding());
        } else if (record instanceof CoordinatorRecord.TopicValue r) {
            topics = topics.with(r.topic());
        } else if (record instanceof CoordinatorRecord.TopicTombstone r) {
            if (!topics.contains(r.name())) {
                throw new IllegalStateException("Tombstone of topic " + r.name() + ", which is not in the registry");
            }
            topics = topics.without(r.name());
        } else if (record instanceof CoordinatorRecord.GroupConfigValue r) {
            // Settings from the log were valid when proposed; applyTo throws (stopping the replica)
            // only for a corrupt record, never silently keeping the old settings.
            config = r.settings().applyTo(initialConfig);
            settings = r.settings();
        } else if (record instanceof CoordinatorRecord.ConsumerGroupTombstone r) {
            consumerReplay.replayTombstone(r.groupId());
        } else if (ConsumerGroupReplay.isConsumerGroupRecord(record)) {
            consumerReplay.replay(record);
        } else {
            throw new IllegalStateException("Unknown record type " + record);
        }
    }

    /**
     * The MEMBER_ID_REQUIRED answer {@code join} would get if it were applied to the state as applied
     * now, or empty if it would get another answer (or is not a new dynamic member's first join).
     * Kafka answers MEMBER_ID_REQUIRED without waiting for a write (its pending members live in the
     * coordinator's memory only); the leader's front end uses this to do the same while the join's
     * entry, which records the pending id for every replica, is still being replicated.
     *
     * <p>Any thread: {@link #handle} of a JoinGroup reads only the concurrent group maps, immutable
     * groups and the volatile settings, and the state-limit check of a pending id (no metadata, no
     * offsets) only the group count. Changes nothing. The committed answer can still differ when
     * entries in flight change the group first; docs/API.md says what the member sees then.
     */
    public Optional<JoinGroupResponse> memberIdRequired(Command.JoinGroup join, long nowMs) {
        if (!join.memberId().isEmpty() || join.groupInstanceId() != null || !join.requiresKnownMemberId()) {
            return Optional.empty();
        }
        if (handle(join, nowMs).reply() instanceof Result.Reply.Now now
                && now.response() instanceof JoinGroupResponse answer
                && answer.error() == ErrorCode.MEMBER_ID_REQUIRED) {
            return Optional.of(answer);
        }
        return Optional.empty();
    }

    /** Heartbeat: validated against the applied state; returns the answer and the session timer. */
    public HeartbeatResult heartbeat(Heartbeat request, long nowMs) {
        HeartbeatHandler.Outcome outcome = heartbeat.handle(request, new ResultBuilder(nowMs, config));
        return new HeartbeatResult(outcome.response(), outcome.timers());
    }

    /**
     * OffsetFetch for one group. {@code topics} null means every committed partition of the group.
     * An unknown or Dead group has no offsets: -1 for each requested partition, or an empty list.
     * Cohort has no transactional offsets, so {@code requireStable} changes nothing.
     */
    public OffsetFetchResponse fetchOffsets(String groupId, Map<String, List<Integer>> topics) {
        return fetchOffsets(groupId, topics, null, -1);
    }

    /**
     * OffsetFetch v9+ for one group, with the fetching member's id and epoch (null and -1: none,
     * no check). Kafka's ConsumerGroup.validateOffsetFetch: in a consumer group, a named member
     * must exist (UNKNOWN_MEMBER_ID) and send its current epoch (STALE_MEMBER_EPOCH); both are
     * group-level errors with no offsets. A classic group checks neither (Kafka's ClassicGroup).
     */
    public OffsetFetchResponse fetchOffsets(String groupId, Map<String, List<Integer>> topics, String memberId,
                                            int memberEpoch) {
        return reads.fetchOffsets(groupId, topics, memberId, memberEpoch);
    }

    /**
     * DescribeGroups. With {@code apiVersion} 6 or later (KIP-1043) an unknown group is
     * GROUP_ID_NOT_FOUND; before, it is reported as a Dead group with no error.
     */
    public List<DescribedGroup> describeGroups(List<String> groupIds, short apiVersion) {
        return reads.describeGroups(groupIds, apiVersion);
    }

    /**
     * ListGroups, sorted by group id. Filters are case-insensitive; an empty filter matches all; a
     * group is of type "classic" or "consumer" (KIP-848), with its type's state names.
     */
    public List<ListedGroup> listGroups(Collection<String> statesFilter, Collection<String> typesFilter) {
        return reads.listGroups(statesFilter, typesFilter);
    }

    /**
     * ConsumerGroupDescribe: each group as described by {@link DescribedConsumerGroup}; an unknown or
     * classic group is GROUP_ID_NOT_FOUND. Any thread.
     */
    public List<DescribedConsumerGroup> describeConsumerGroups(List<String> groupIds) {
        List<DescribedConsumerGroup> described = new ArrayList<>();
        for (String groupId : groupIds) {
            described.add(consumerReads.describe(groupId, consumerTargetAssignment.supportedNames()));
        }
        return described;
    }

    /**
     * What the leader looks up in the topic registry before proposing a heartbeat of {@code groupId}:
     * every topic name and regex its members subscribe to (empty sets if there is no such consumer
     * group). The leader adds the request's own names and regex. Any thread.
     */
    public ConsumerGroupInterest consumerGroupInterest(String groupId) {
        return consumerReads.interest(groupId);
    }

    /** The consumer group's current value, or null (an immutable snapshot of it). */
    public ConsumerGroup consumerGroup(String groupId) {
        return consumerGroups.get(groupId);
    }

    /** Consumer group ids in sorted order. */
    public Set<String> consumerGroupIds() {
        return new TreeSet<>(consumerGroups.keySet());
    }

    /** The topic names and regexes the members of one consumer group subscribe to, sorted. */
    public record ConsumerGroupInterest(SortedSet<String> subscribedTopicNames, SortedSet<String> regexes) {
        public ConsumerGroupInterest {
            subscribedTopicNames = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(subscribedTopicNames));
            regexes = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(regexes));
        }
    }

    /**
     * The whole state as records, sorted (changed group settings first, then ACLs, then topics by name, then groups by id, each group's value before its offsets, offsets
     * by topic and partition): replaying them into an empty shard rebuilds this state exactly. Must be
     * called on the apply thread for a consistent cut.
     */
    public List<CoordinatorRecord> snapshot() {
        return cut().records();
    }

    /**
     * A consistent cut of the whole state ({@link StateCut#records()} builds and sorts the records on
     * the caller's thread). Between two applied entries: on the apply thread, or beside it where the
     * caller checks that no entry was applied meanwhile and throws the cut away otherwise (the raft
     * layer's sequence lock; the freeze's epoch is atomic for that); cheap enough to take between
     * two entries: a reference per group to its value (immutable) and to its offsets, which the cut
     * freezes ({@link OffsetStore#freezeAll()}: written after it, a group's offsets are copied first).
     */
    public StateCut cut() {
        List<CoordinatorRecord> settingsAclsTopics = new ArrayList<>();
        if (settings.version() != GroupSettings.INITIAL_VERSION) {
            settingsAclsTopics.add(new CoordinatorRecord.GroupConfigValue(settings));
        }
        acls.bindings().forEach(binding -> settingsAclsTopics.add(new CoordinatorRecord.AclValue(binding)));
        topics.byName().values().forEach(topic -> settingsAclsTopics.add(new CoordinatorRecord.TopicValue(topic)));
        List<StateCut.Group> cutGroups = new ArrayList<>(groups.size() + consumerGroups.size());
        offsets.freezeAll();
        for (ClassicGroup group : groups.values()) {
            cutGroups.add(new StateCut.Group(group.groupId(), group, null, offsets.offsets(group.groupId())));
        }
        for (ConsumerGroup group : consumerGroups.values()) {
            cutGroups.add(new StateCut.Group(group.groupId(), null, group, offsets.offsets(group.groupId())));
        }
        return new StateCut(settingsAclsTopics, cutGroups);
    }

    /** Replaces the whole state with what {@code records} rebuild (snapshot load and install). */
    public void restore(List<CoordinatorRecord> records) {
        groups.clear();
        consumerGroups.clear();
        usage.clear();
        acls = AclSet.EMPTY;
        topics = TopicRegistry.EMPTY;
        config = initialConfig;
        settings = GroupSettings.of(initialConfig, GroupSettings.INITIAL_VERSION);
        offsets.clear();
        records.forEach(this::replay);
    }

    /**
     * The timers a new leader arms from the replicated state (Kafka's onLoaded): a fresh session
     * timer for every member and pending member, the stored join and sync deadlines of in-flight
     * rebalances, and the offset-expiration job.
     */
    public List<TimerOp> onLeaderReady(long nowMs) {
        List<TimerOp> timers = new ArrayList<>();
        for (ClassicGroup group : new TreeMap<>(groups).values()) {
            String groupId = group.groupId();
            for (ClassicGroupMember member : group.members().values()) {
                int timeoutMs = member.isNew() ? config.newMemberJoinTimeoutMs() : member.sessionTimeoutMs();
                timers.add(new TimerOp.Schedule(TimerOp.Keys.heartbeat(groupId, member.memberId()), nowMs + timeoutMs,
                        new Command.ExpireMemberSession(groupId, member.memberId())));
            }
            group.pendingMembers().forEach((memberId, sessionTimeoutMs) -> timers.add(new TimerOp.Schedule(
                    TimerOp.Keys.heartbeat(groupId, memberId), nowMs + sessionTimeoutMs,
                    new Command.ExpireMemberSession(groupId, memberId))));
            if (group.joinTimer() != null) {
                timers.add(new TimerOp.Schedule(TimerOp.Keys.join(groupId), group.joinTimer().deadlineMs(),
                        new Command.FireJoinTimer(groupId, group.joinTimer().deadlineMs())));
            }
            if (group.syncTimer() != null) {
                timers.add(new TimerOp.Schedule(TimerOp.Keys.sync(groupId), group.syncTimer().deadlineMs(),
                        new Command.FireSyncTimer(groupId, group.syncTimer().generationId(),
                                group.syncTimer().deadlineMs())));
            }
        }
        for (ConsumerGroup group : new TreeMap<>(consumerGroups).values()) {
            for (ConsumerGroupMember member : group.members().values()) {
                String groupId = group.groupId();
                timers.add(new TimerOp.Schedule(TimerOp.Keys.consumerSession(groupId, member.memberId()),
                        nowMs + config.consumerSessionTimeoutMs(),
                        new Command.ExpireConsumerMember(groupId, member.memberId())));
                if (member.state() == MemberState.UNREVOKED_PARTITIONS) {
                    timers.add(new TimerOp.Schedule(TimerOp.Keys.consumerRebalance(groupId, member.memberId()),
                            nowMs + member.metadata().rebalanceTimeoutMs(), new Command.FireConsumerRebalanceTimeout(
                                    groupId, member.memberId(), member.memberEpoch())));
                }
            }
        }
        timers.add(new TimerOp.Schedule(TimerOp.Keys.EXPIRE_OFFSETS, nowMs + config.offsetsRetentionCheckIntervalMs(),
                new Command.ExpireOffsets()));
        return timers;
    }

    /**
     * The ACLs as applied so far: an immutable set, safe to read on any thread beside apply. Only
     * partition 0's shard holds the cluster's ACLs.
     */
    public AclSet acls() {
        return acls;
    }

    /**
     * The topic registry as applied so far: an immutable value, safe to read on any thread beside
     * apply. Only partition 0's shard holds the cluster's topics.
     */
    public TopicRegistry topics() {
        return topics;
    }

    /** The group's current value, or null (a consistent immutable snapshot of it). */
    public ClassicGroup group(String groupId) {
        return groups.get(groupId);
    }

    /** Group ids in sorted order. */
    public Set<String> groupIds() {
        return new TreeSet<>(groups.keySet());
    }

    public int groupCount() {
        return groups.size();
    }

    public long offsetCount() {
        return offsets.size();
    }

    /**
     * Groups and committed offsets held, in O(1) (unlike {@link #offsetCount()}, which walks every
     * group): about how many records a snapshot of this shard writes. Apply thread only.
     */
    public long stateRecords() {
        return groups.size() + usage.offsets();
    }

    /**
     * Metadata bytes held (offset metadata chars, member protocol metadata and assignments), as
     * counted against offsets.partition.max.metadata.bytes. Apply thread only.
     */
    public long metadataBytes() {
        return usage.metadataBytes();
    }

    /** Committed offsets held by {@code groupId}, as counted against group.max.offsets. Apply thread only. */
    public int offsetCount(String groupId) {
        return usage.offsets(groupId);
    }

    /** Number of groups in each state (for metrics). */
    public Map<ClassicGroupState, Long> groupsByState() {
        return groups.values().stream().collect(Collectors.groupingBy(ClassicGroup::state, TreeMap::new,
                Collectors.counting()));
    }

    /** The answer to a heartbeat and the leader's timer operations. */
    public record HeartbeatResult(io.cohort.core.response.HeartbeatResponse response, List<TimerOp> timers) {
        public HeartbeatResult {
            timers = List.copyOf(timers);
        }
    }
}
