package io.cohort.raft.log;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.cohort.core.Bytes;
import io.cohort.core.GroupSettings;
import io.cohort.core.command.Command;
import io.cohort.core.group.Protocol;
import io.cohort.raft.log.proto.CommandProto;
import io.cohort.raft.log.proto.CreateAclsCommand;
import io.cohort.raft.log.proto.DeleteAclsCommand;
import io.cohort.raft.log.proto.DeleteGroupsCommand;
import io.cohort.raft.log.proto.ExpireMemberSessionCommand;
import io.cohort.raft.log.proto.ExpireOffsetsCommand;
import io.cohort.raft.log.proto.FireJoinTimerCommand;
import io.cohort.raft.log.proto.FireSyncTimerCommand;
import io.cohort.raft.log.proto.GroupSettingsProto;
import io.cohort.raft.log.proto.JoinGroupCommand;
import io.cohort.raft.log.proto.LeaveGroupCommand;
import io.cohort.raft.log.proto.LeavingMemberProto;
import io.cohort.raft.log.proto.LogEntry;
import io.cohort.raft.log.proto.MemberAssignmentProto;
import io.cohort.raft.log.proto.OffsetCommitCommand;
import io.cohort.raft.log.proto.OffsetDeleteCommand;
import io.cohort.raft.log.proto.PartitionCommitProto;
import io.cohort.raft.log.proto.ProtocolProto;
import io.cohort.raft.log.proto.SetGroupConfigCommand;
import io.cohort.raft.log.proto.SyncGroupCommand;
import io.cohort.raft.log.proto.TopicCommitProto;
import io.cohort.raft.log.proto.TopicPartitionsProto;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Raft log format: a {@link LogEntry} is a batch of core {@link Command}s stamped with the
 * proposing leader's clock. This class is the only translation between core's commands and the
 * internal proto ({@code cohort/internal/v1/log.proto}), both ways, field by field and lossless:
 * a nullable string of a command is a proto {@code optional} field, so null and "" stay distinct.
 *
 * <p>The format is a persisted contract. {@link #FORMAT_VERSION} is written into every entry and a
 * reader rejects any value it does not know with a {@link LogFormatException}: a replica must never
 * apply an entry it may misread. Golden bytes of every command type are frozen in LogCodecGoldenTest.
 *
 * <p>Versions: 1 and 2 have the same fields. They differ in the rules the commands were accepted
 * under: version 1 was written by builds without state limits, version 2 by builds that check them
 * ({@code io.cohort.core.StateLimits}). Replaying a version-1 entry with the limits could refuse a
 * command that was acknowledged, so version-1 entries are applied without them, on every replica
 * alike ({@link DecodedEntry#stateLimitsApply()}). Version 2 also added the ACL commands
 * (CreateAcls, DeleteAcls; partition 0's log only): they never occur in a version-1 entry, and
 * one that holds them is refused as malformed.
 *
 * <p>Version 3 is written only for an entry that holds a command introduced after version 2
 * (SetGroupConfig); every other entry is still written as version 2. So during a rolling upgrade an
 * older build keeps applying ordinary entries, and at the first version-3 entry it stops applying
 * the partition ({@link NewerLogFormatException}) instead of skipping a command it cannot read,
 * which would make it diverge. A node proposes a version-3 command only once every node of the
 * cluster reads version 3 (ClusterStatus {@code max_log_format_version}; docs/OPERATIONS.md).
 * Version 4 ({@link #FORMAT_VERSION_KIP848}) works the same way for the KIP-848 commands.
 *
 * <p>Version 4 ({@link #FORMAT_VERSION_KIP848}) works the same way for the commands of KIP-848's
 * consumer protocol and its topic registry: only an entry holding one is written as 4, behind the
 * same gate (every node reads 4).
 *
 * <p>A few command fields are nullable in core but required in the log (group ids, member ids of
 * timers, JoinGroup's protocol type): the public API cannot express a null there, so the front end
 * never proposes one, and {@link #toProto} refuses it instead of silently writing "".
 */
public final class LogCodec {
    /** The version of {@link LogEntry} this build writes for entries of the commands of version 2. */
    public static final int FORMAT_VERSION = 2;
    /** The version written for entries holding a command introduced after version 2 (SetGroupConfig). */
    public static final int FORMAT_VERSION_GROUP_CONFIG = 3;
    /**
     * The version written for entries holding a command of KIP-848's consumer protocol or its topic
     * registry (CreateTopics, AlterTopics, DeleteTopics; CommandProto 20-39), written only once every
     * node reads it, as {@link #FORMAT_VERSION_GROUP_CONFIG}.
     */
    public static final int FORMAT_VERSION_KIP848 = 4;
    /** The newest version this build reads (reported to the other nodes by ClusterStatus). */
    public static final int MAX_READABLE_FORMAT_VERSION = FORMAT_VERSION_KIP848;
    /** The version written by builds before the state limits; still read, applied without the limits. */
    public static final int FORMAT_VERSION_WITHOUT_STATE_LIMITS = 1;

    private LogCodec() {
    }

    /**
     * One decoded log entry: the leader's clock at proposal time and the commands, in order.
     *
     * @param stateLimitsApply false for an entry written before the state limits (format version 1)
     */
    public record DecodedEntry(long leaderTimeMs, List<Command> commands, boolean stateLimitsApply) {
        public DecodedEntry {
            commands = List.copyOf(commands);
        }

        /** An entry of the current format. */
        public DecodedEntry(long leaderTimeMs, List<Command> commands) {
            this(leaderTimeMs, commands, true);
        }
    }

    /** Encodes a batch of commands proposed together at the leader's {@code leaderTimeMs}. */
    public static byte[] encodeEntry(long leaderTimeMs, List<Command> commands) {
        LogEntry.Builder entry = LogEntry.newBuilder()
                .setFormatVersion(formatVersionOf(commands))
                .setLeaderTimeMs(leaderTimeMs);
        for (Command command : commands) {
            entry.addCommands(toProto(command));
        }
        return entry.build().toByteArray();
    }

    /**
     * The lowest format version that can hold {@code commands}: the newest version one of them needs,
     * and at least 2.
     */
    public static int formatVersionOf(List<Command> commands) {
        int version = FORMAT_VERSION;
        for (Command command : commands) {
            version = Math.max(version, formatVersionOf(command));
        }
        return version;
    }

    /** The format version that introduced {@code command}'s type (1 for the oldest types). */
    public static int formatVersionOf(Command command) {
        if (command instanceof Command.CreateTopics || command instanceof Command.AlterTopics
                || command instanceof Command.DeleteTopics || ConsumerGroupCodec.isConsumerGroupCommand(command)) {
            return FORMAT_VERSION_KIP848;
        }
        if (command instanceof Command.SetGroupConfig) {
            return FORMAT_VERSION_GROUP_CONFIG;
        }
        if (command instanceof Command.CreateAcls || command instanceof Command.DeleteAcls) {
            return FORMAT_VERSION;
        }
        return FORMAT_VERSION_WITHOUT_STATE_LIMITS;
    }

    /** Decodes an entry written by {@link #encodeEntry}; throws {@link LogFormatException} otherwise. */
    public static DecodedEntry decodeEntry(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        try {
            return fromEntry(LogEntry.parseFrom(bytes));
        } catch (InvalidProtocolBufferException e) {
            throw new LogFormatException("Malformed log entry (" + bytes.length + " bytes): " + e.getMessage(), e);
        }
    }

    /**
     * As {@link #decodeEntry(byte[])}, reading the buffer's remaining bytes in place where protobuf
     * can (a heap buffer with an accessible array, or a direct buffer); the buffer's position is not
     * moved.
     */
    public static DecodedEntry decodeEntry(ByteBuffer bytes) {
        Objects.requireNonNull(bytes, "bytes");
        int size = bytes.remaining();
        try {
            return fromEntry(LogEntry.parseFrom(bytes.duplicate()));
        } catch (InvalidProtocolBufferException e) {
            throw new LogFormatException("Malformed log entry (" + size + " bytes): " + e.getMessage(), e);
        }
    }

    private static DecodedEntry fromEntry(LogEntry entry) {
        int version = entry.getFormatVersion();
        if (version > MAX_READABLE_FORMAT_VERSION) {
            throw new NewerLogFormatException(version, "Log entry format_version " + version
                    + " was written by a newer Cohort build (this build reads versions "
                    + FORMAT_VERSION_WITHOUT_STATE_LIMITS + " to " + MAX_READABLE_FORMAT_VERSION + "); upgrade this node");
        }
        if (version < FORMAT_VERSION_WITHOUT_STATE_LIMITS) {
            throw new LogFormatException("Unknown log entry format_version " + Integer.toUnsignedString(
                    entry.getFormatVersion()) + " (this build reads versions " + FORMAT_VERSION_WITHOUT_STATE_LIMITS
                    + " to " + MAX_READABLE_FORMAT_VERSION + ")");
        }
        List<Command> commands = new ArrayList<>(entry.getCommandsCount());
        for (CommandProto proto : entry.getCommandsList()) {
            Command command = fromProto(proto);
            int since = formatVersionOf(command);
            if (since > version) {
                throw new LogFormatException("Log entry of format_version " + version + " holds "
                        + (since == FORMAT_VERSION ? "an ACL command" : "a " + command.getClass().getSimpleName()
                        + " command") + ", which exists since format_version " + since);
            }
            commands.add(command);
        }
        return new DecodedEntry(entry.getLeaderTimeMs(), commands, version >= FORMAT_VERSION);
    }

    // ----- Command -> proto -------------------------------------------------------------------

    /**
     * The proto of one command. Throws {@link IllegalArgumentException} for a null in a field the log
     * requires (see the class comment): that is a bug of the proposer, caught before proposing.
     */
    public static CommandProto toProto(Command command) {
        Objects.requireNonNull(command, "command");
        CommandProto.Builder proto = CommandProto.newBuilder();
        if (command instanceof Command.JoinGroup c) {
            proto.setJoinGroup(joinGroup(c));
        } else if (command instanceof Command.SyncGroup c) {
            proto.setSyncGroup(syncGroup(c));
        } else if (command instanceof Command.LeaveGroup c) {
            proto.setLeaveGroup(leaveGroup(c));
        } else if (command instanceof Command.OffsetCommit c) {
            proto.setOffsetCommit(offsetCommit(c));
        } else if (command instanceof Command.DeleteGroups c) {
            proto.setDeleteGroups(DeleteGroupsCommand.newBuilder()
                    .addAllGroupIds(requiredElements(c.groupIds(), "DeleteGroups.groupIds")));
        } else if (command instanceof Command.OffsetDelete c) {
            proto.setOffsetDelete(offsetDelete(c));
        } else if (command instanceof Command.ExpireMemberSession c) {
            proto.setExpireMemberSession(ExpireMemberSessionCommand.newBuilder()
                    .setGroupId(required(c.groupId(), "ExpireMemberSession.groupId"))
                    .setMemberId(required(c.memberId(), "ExpireMemberSession.memberId")));
        } else if (command instanceof Command.FireJoinTimer c) {
            proto.setFireJoinTimer(FireJoinTimerCommand.newBuilder()
                    .setGroupId(required(c.groupId(), "FireJoinTimer.groupId"))
                    .setDeadlineMs(c.deadlineMs()));
        } else if (command instanceof Command.FireSyncTimer c) {
            proto.setFireSyncTimer(FireSyncTimerCommand.newBuilder()
                    .setGroupId(required(c.groupId(), "FireSyncTimer.groupId"))
                    .setGenerationId(c.generationId())
                    .setDeadlineMs(c.deadlineMs()));
        } else if (command instanceof Command.ExpireOffsets) {
            proto.setExpireOffsets(ExpireOffsetsCommand.getDefaultInstance());
        } else if (command instanceof Command.CreateAcls c) {
            CreateAclsCommand.Builder acls = CreateAclsCommand.newBuilder();
            c.bindings().forEach(binding -> acls.addBindings(AclCodec.toProto(binding)));
            proto.setCreateAcls(acls);
        } else if (command instanceof Command.DeleteAcls c) {
            DeleteAclsCommand.Builder acls = DeleteAclsCommand.newBuilder();
            c.filters().forEach(filter -> acls.addFilters(AclCodec.toProto(filter)));
            proto.setDeleteAcls(acls);
        } else if (command instanceof Command.SetGroupConfig c) {
            proto.setSetGroupConfig(SetGroupConfigCommand.newBuilder().setSettings(toProto(c.settings())));
        } else if (command instanceof Command.CreateTopics c) {
            proto.setCreateTopics(TopicCodec.toProto(c));
        } else if (command instanceof Command.AlterTopics c) {
            proto.setAlterTopics(TopicCodec.toProto(c));
        } else if (command instanceof Command.DeleteTopics c) {
            proto.setDeleteTopics(TopicCodec.toProto(c));
        } else if (ConsumerGroupCodec.isConsumerGroupCommand(command)) {
            ConsumerGroupCodec.toProto(command, proto);
        } else {
            throw new IllegalArgumentException("No log encoding for command " + command.getClass().getName());
        }
        return proto.build();
    }

    private static JoinGroupCommand.Builder joinGroup(Command.JoinGroup c) {
        JoinGroupCommand.Builder proto = JoinGroupCommand.newBuilder()
                .setGroupId(required(c.groupId(), "JoinGroup.groupId"))
                .setMemberId(c.memberId())
                .setProtocolType(required(c.protocolType(), "JoinGroup.protocolType"))
                .setSessionTimeoutMs(c.sessionTimeoutMs())
                .setRebalanceTimeoutMs(c.rebalanceTimeoutMs())
                .setClientId(c.clientId())
                .setClientHost(c.clientHost())
                .setApiVersion(c.apiVersion())
                .setMemberIdSuffix(c.memberIdSuffix());
        if (c.groupInstanceId() != null) {
            proto.setGroupInstanceId(c.groupInstanceId());
        }
        if (c.reason() != null) {
            proto.setReason(c.reason());
        }
        for (Protocol protocol : c.protocols()) {
            proto.addProtocols(toProto(protocol));
        }
        return proto;
    }

    private static SyncGroupCommand.Builder syncGroup(Command.SyncGroup c) {
        SyncGroupCommand.Builder proto = SyncGroupCommand.newBuilder()
                .setGroupId(required(c.groupId(), "SyncGroup.groupId"))
                .setGenerationId(c.generationId())
                .setMemberId(c.memberId());
        if (c.groupInstanceId() != null) {
            proto.setGroupInstanceId(c.groupInstanceId());
        }
        if (c.protocolType() != null) {
            proto.setProtocolType(c.protocolType());
        }
        if (c.protocolName() != null) {
            proto.setProtocolName(c.protocolName());
        }
        for (Command.MemberAssignment assignment : c.assignments()) {
            proto.addAssignments(MemberAssignmentProto.newBuilder()
                    .setMemberId(assignment.memberId())
                    .setAssignment(toByteString(assignment.assignment())));
        }
        return proto;
    }

    private static LeaveGroupCommand.Builder leaveGroup(Command.LeaveGroup c) {
        LeaveGroupCommand.Builder proto = LeaveGroupCommand.newBuilder()
                .setGroupId(required(c.groupId(), "LeaveGroup.groupId"));
        for (Command.LeavingMember member : c.members()) {
            LeavingMemberProto.Builder leaving = LeavingMemberProto.newBuilder().setMemberId(member.memberId());
            if (member.groupInstanceId() != null) {
                leaving.setGroupInstanceId(member.groupInstanceId());
            }
            if (member.reason() != null) {
                leaving.setReason(member.reason());
            }
            proto.addMembers(leaving);
        }
        return proto;
    }

    private static OffsetCommitCommand.Builder offsetCommit(Command.OffsetCommit c) {
        OffsetCommitCommand.Builder proto = OffsetCommitCommand.newBuilder()
                .setGroupId(required(c.groupId(), "OffsetCommit.groupId"))
                .setGenerationId(c.generationId())
                .setMemberId(c.memberId())
                .setRetentionTimeMs(c.retentionTimeMs())
                .setApiVersion(c.apiVersion());
        if (c.groupInstanceId() != null) {
            proto.setGroupInstanceId(c.groupInstanceId());
        }
        for (Command.TopicCommit topic : c.topics()) {
            TopicCommitProto.Builder topicProto = TopicCommitProto.newBuilder().setTopic(topic.topic());
            for (Command.PartitionCommit partition : topic.partitions()) {
                PartitionCommitProto.Builder partitionProto = PartitionCommitProto.newBuilder()
                        .setPartition(partition.partition())
                        .setOffset(partition.offset())
                        .setLeaderEpoch(partition.leaderEpoch());
                if (partition.metadata() != null) {
                    partitionProto.setMetadata(partition.metadata());
                }
                topicProto.addPartitions(partitionProto);
            }
            proto.addTopics(topicProto);
        }
        return proto;
    }

    private static OffsetDeleteCommand.Builder offsetDelete(Command.OffsetDelete c) {
        OffsetDeleteCommand.Builder proto = OffsetDeleteCommand.newBuilder()
                .setGroupId(required(c.groupId(), "OffsetDelete.groupId"));
        for (Command.TopicPartitions topic : c.topics()) {
            proto.addTopics(TopicPartitionsProto.newBuilder()
                    .setTopic(topic.topic())
                    .addAllPartitions(topic.partitions()));
        }
        return proto;
    }

    // ----- proto -> Command -------------------------------------------------------------------

    /** The command of one proto; {@link LogFormatException} if no (known) command is set. */
    public static Command fromProto(CommandProto proto) {
        Objects.requireNonNull(proto, "proto");
        return switch (proto.getCommandCase()) {
            case JOIN_GROUP -> joinGroup(proto.getJoinGroup());
            case SYNC_GROUP -> syncGroup(proto.getSyncGroup());
            case LEAVE_GROUP -> leaveGroup(proto.getLeaveGroup());
            case OFFSET_COMMIT -> offsetCommit(proto.getOffsetCommit());
            case DELETE_GROUPS -> new Command.DeleteGroups(proto.getDeleteGroups().getGroupIdsList());
            case OFFSET_DELETE -> offsetDelete(proto.getOffsetDelete());
            case EXPIRE_MEMBER_SESSION -> new Command.ExpireMemberSession(
                    proto.getExpireMemberSession().getGroupId(), proto.getExpireMemberSession().getMemberId());
            case FIRE_JOIN_TIMER -> new Command.FireJoinTimer(
                    proto.getFireJoinTimer().getGroupId(), proto.getFireJoinTimer().getDeadlineMs());
            case FIRE_SYNC_TIMER -> new Command.FireSyncTimer(proto.getFireSyncTimer().getGroupId(),
                    proto.getFireSyncTimer().getGenerationId(), proto.getFireSyncTimer().getDeadlineMs());
            case EXPIRE_OFFSETS -> new Command.ExpireOffsets();
            case CREATE_ACLS -> new Command.CreateAcls(proto.getCreateAcls().getBindingsList().stream()
                    .map(AclCodec::fromProto).toList());
            case DELETE_ACLS -> new Command.DeleteAcls(proto.getDeleteAcls().getFiltersList().stream()
                    .map(AclCodec::fromProto).toList());
            case SET_GROUP_CONFIG -> new Command.SetGroupConfig(fromProto(proto.getSetGroupConfig().getSettings()));
            case CREATE_TOPICS -> TopicCodec.fromProto(proto.getCreateTopics());
            case ALTER_TOPICS -> TopicCodec.fromProto(proto.getAlterTopics());
            case DELETE_TOPICS -> TopicCodec.fromProto(proto.getDeleteTopics());
            case CONSUMER_GROUP_HEARTBEAT, EXPIRE_CONSUMER_MEMBER, FIRE_CONSUMER_REBALANCE_TIMEOUT ->
                    ConsumerGroupCodec.fromProto(proto);
            // An unset oneof: a command type of a newer format, or a corrupt entry.
            case COMMAND_NOT_SET -> throw new LogFormatException("Log entry holds an unknown or empty command"
                    + (proto.getUnknownFields().asMap().isEmpty() ? "" : " (unknown fields "
                    + proto.getUnknownFields().asMap().keySet() + ")"));
        };
    }

    private static Command.JoinGroup joinGroup(JoinGroupCommand p) {
        return new Command.JoinGroup(p.getGroupId(), p.getMemberId(),
                p.hasGroupInstanceId() ? p.getGroupInstanceId() : null, p.getProtocolType(),
                fromProtocolProtos(p.getProtocolsList()), p.getSessionTimeoutMs(), p.getRebalanceTimeoutMs(),
                p.getClientId(), p.getClientHost(), p.hasReason() ? p.getReason() : null,
                apiVersion(p.getApiVersion(), "JoinGroup"), p.getMemberIdSuffix());
    }

    private static Command.SyncGroup syncGroup(SyncGroupCommand p) {
        List<Command.MemberAssignment> assignments = new ArrayList<>(p.getAssignmentsCount());
        for (MemberAssignmentProto assignment : p.getAssignmentsList()) {
            assignments.add(new Command.MemberAssignment(assignment.getMemberId(),
                    toBytes(assignment.getAssignment())));
        }
        return new Command.SyncGroup(p.getGroupId(), p.getGenerationId(), p.getMemberId(),
                p.hasGroupInstanceId() ? p.getGroupInstanceId() : null,
                p.hasProtocolType() ? p.getProtocolType() : null,
                p.hasProtocolName() ? p.getProtocolName() : null, assignments);
    }

    private static Command.LeaveGroup leaveGroup(LeaveGroupCommand p) {
        List<Command.LeavingMember> members = new ArrayList<>(p.getMembersCount());
        for (LeavingMemberProto member : p.getMembersList()) {
            members.add(new Command.LeavingMember(member.getMemberId(),
                    member.hasGroupInstanceId() ? member.getGroupInstanceId() : null,
                    member.hasReason() ? member.getReason() : null));
        }
        return new Command.LeaveGroup(p.getGroupId(), members);
    }

    private static Command.OffsetCommit offsetCommit(OffsetCommitCommand p) {
        List<Command.TopicCommit> topics = new ArrayList<>(p.getTopicsCount());
        for (TopicCommitProto topic : p.getTopicsList()) {
            List<Command.PartitionCommit> partitions = new ArrayList<>(topic.getPartitionsCount());
            for (PartitionCommitProto partition : topic.getPartitionsList()) {
                partitions.add(new Command.PartitionCommit(partition.getPartition(), partition.getOffset(),
                        partition.getLeaderEpoch(), partition.hasMetadata() ? partition.getMetadata() : null));
            }
            topics.add(new Command.TopicCommit(topic.getTopic(), partitions));
        }
        return new Command.OffsetCommit(p.getGroupId(), p.getGenerationId(), p.getMemberId(),
                p.hasGroupInstanceId() ? p.getGroupInstanceId() : null, p.getRetentionTimeMs(), topics,
                apiVersion(p.getApiVersion(), "OffsetCommit"));
    }

    private static Command.OffsetDelete offsetDelete(OffsetDeleteCommand p) {
        List<Command.TopicPartitions> topics = new ArrayList<>(p.getTopicsCount());
        for (TopicPartitionsProto topic : p.getTopicsList()) {
            topics.add(new Command.TopicPartitions(topic.getTopic(), topic.getPartitionsList()));
        }
        return new Command.OffsetDelete(p.getGroupId(), topics);
    }

    // ----- shared with SnapshotCodec --------------------------------------------------------------

    static GroupSettingsProto toProto(GroupSettings settings) {
        return GroupSettingsProto.newBuilder()
                .setVersion(settings.version())
                .setMinSessionTimeoutMs(settings.minSessionTimeoutMs())
                .setMaxSessionTimeoutMs(settings.maxSessionTimeoutMs())
                .setInitialRebalanceDelayMs(settings.initialRebalanceDelayMs())
                .setMaxGroupSize(settings.maxGroupSize())
                .setOffsetsRetentionMs(settings.offsetsRetentionMs())
                .build();
    }

    static GroupSettings fromProto(GroupSettingsProto p) {
        return new GroupSettings(p.getVersion(), p.getMinSessionTimeoutMs(), p.getMaxSessionTimeoutMs(),
                p.getInitialRebalanceDelayMs(), p.getMaxGroupSize(), p.getOffsetsRetentionMs());
    }

    static ProtocolProto toProto(Protocol protocol) {
        return ProtocolProto.newBuilder()
                .setName(protocol.name())
                .setMetadata(toByteString(protocol.metadata()))
                .build();
    }

    static List<Protocol> fromProtocolProtos(List<ProtocolProto> protos) {
        List<Protocol> protocols = new ArrayList<>(protos.size());
        for (ProtocolProto protocol : protos) {
            protocols.add(new Protocol(protocol.getName(), toBytes(protocol.getMetadata())));
        }
        return protocols;
    }

    static ByteString toByteString(Bytes bytes) {
        return bytes.isEmpty() ? ByteString.EMPTY : ByteString.copyFrom(bytes.asReadOnlyBuffer());
    }

    static Bytes toBytes(ByteString bytes) {
        return bytes.isEmpty() ? Bytes.EMPTY : Bytes.copyOf(bytes.toByteArray());
    }

    static String required(String value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is null; the log format requires a value");
        }
        return value;
    }

    static List<String> requiredElementsOf(List<String> values, String field) {
        return requiredElements(values, field);
    }

    private static List<String> requiredElements(List<String> values, String field) {
        for (String value : values) {
            required(value, field + " element");
        }
        return values;
    }

    /** Api versions are written as uint32; anything outside a short is not one this build wrote. */
    private static short apiVersion(int value, String command) {
        if (value < Short.MIN_VALUE || value > Short.MAX_VALUE) {
            throw new LogFormatException(command + " api_version " + Integer.toUnsignedString(value)
                    + " is out of range");
        }
        return (short) value;
    }
}
