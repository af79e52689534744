package io.cohort.raft.log;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.JoinTimer;
import io.cohort.core.group.Protocol;
import io.cohort.core.group.SyncTimer;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.raft.log.proto.GroupStateProto;
import io.cohort.raft.log.proto.GroupValueProto;
import io.cohort.raft.log.proto.JoinTimerProto;
import io.cohort.raft.log.proto.MemberProto;
import io.cohort.raft.log.proto.OffsetValueProto;
import io.cohort.raft.log.proto.PendingMemberProto;
import io.cohort.raft.log.proto.SnapshotHeader;
import io.cohort.raft.log.proto.SnapshotRecord;
import io.cohort.raft.log.proto.SnapshotTrailer;
import io.cohort.raft.log.proto.SyncTimerProto;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The snapshot file format: a {@link SnapshotHeader}, the state's records as length-delimited
 * {@link SnapshotRecord}s in the order given (GroupCoordinatorShard.snapshot() sorts them, which is
 * what makes the bytes identical on every replica), then a {@link SnapshotTrailer} with the record
 * count. Each message is framed as protobuf's {@code writeDelimitedTo} frames it (a varint length,
 * then the message). The trailer is the last frame of the file; a file that ends anywhere else, or
 * whose count does not match, is rejected, so a truncated snapshot is never installed.
 *
 * <p>A snapshot holds only values: the partition's {@link CoordinatorRecord.GroupConfigValue} if its
 * group settings were changed online (first), a {@link CoordinatorRecord.AclValue} per ACL (partition 0
 * only), a {@link CoordinatorRecord.TopicValue} per registered topic (partition 0 only, snapshot
 * format 4), a {@link CoordinatorRecord.GroupValue} per group and an
 * {@link CoordinatorRecord.OffsetValue} per committed offset. Tombstones exist only in the log's
 * effects, never in a snapshot. A {@link ClassicGroup} round-trips to an equal value with its
 * member, pending-member and pending-sync order kept, since join order elects the leader.
 *
 * <p>Checksums of the file as a whole are left to the storage layer; this format detects
 * truncation and malformed messages, not a flipped bit inside a well-formed value.
 */
public final class SnapshotCodec {
    /**
     * The version of the snapshot format this build writes. Version 2 added ACL records
     * ({@code SnapshotRecord.acl}); version 1 files (groups and offsets only) are still read, since
     * they are a subset. A build that knows only version 1 refuses a version 2 file by its header,
     * instead of failing on its first ACL record. Version 3 added the partition's group settings
     * ({@code SnapshotRecord.group_settings}, set online by SetGroupConfig); a snapshot without them
     * is still written as version 2, so an older build can install it during a rolling upgrade.
     */
    public static final int FORMAT_VERSION = 4;
    /**
     * Version 4: a snapshot holding records of KIP-848's consumer protocol or its topic registry
     * ({@code SnapshotRecord} 20-39); a snapshot without them is written as before (3 or 2).
     */
    public static final int FORMAT_VERSION_KIP848 = 4;
    /** The version of a snapshot with group settings and no record of version 4. */
    public static final int FORMAT_VERSION_GROUP_SETTINGS = 3;
    /** The version of a snapshot without group settings: what builds before version 3 read. */
    public static final int FORMAT_VERSION_WITHOUT_GROUP_SETTINGS = 2;
    /** The newest version this build reads. */
    public static final int MAX_READABLE_VERSION = FORMAT_VERSION_KIP848;
    /** The oldest version this build reads. */
    public static final int OLDEST_READABLE_VERSION = 1;

    private SnapshotCodec() {
    }

    /** A read snapshot: where it belongs (partition, Raft term and index) and the state's records. */
    public record Snapshot(int partition, long term, long index, List<CoordinatorRecord> records) {
        public Snapshot {
            records = List.copyOf(records);
        }
    }

    /**
     * Writes a snapshot of {@code records} to {@code out} (flushed, not closed). Throws
     * {@link IllegalArgumentException}, before writing anything, for a tombstone.
     */
    public static void write(OutputStream out, int partition, long term, long index, List<CoordinatorRecord> records)
            throws IOException {
        Objects.requireNonNull(out, "out");
        for (CoordinatorRecord record : records) {
            throwIfNotSnapshotRecord(record);
        }
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        writeFrame(coded, SnapshotHeader.newBuilder()
                .setFormatVersion(formatVersionOf(records))
                .setPartition(partition)
                .setTerm(term)
                .setIndex(index)
                .build());
        for (CoordinatorRecord record : records) {
            writeFrame(coded, toProto(record));
        }
        writeFrame(coded, SnapshotTrailer.newBuilder().setRecordCount(records.size()).build());
        coded.flush();
        out.flush();
    }

    /**
     * The version a snapshot of {@code records} is written with: the newest version one of them
     * needs (4 for a topic, 3 for group settings), at least 2.
     */
    public static int formatVersionOf(List<CoordinatorRecord> records) {
        int version = FORMAT_VERSION_WITHOUT_GROUP_SETTINGS;
        for (CoordinatorRecord record : records) {
            version = Math.max(version, formatVersionOf(record));
        }
        return version;
    }

    /** The snapshot format version that introduced {@code record}'s type. */
    static int formatVersionOf(CoordinatorRecord record) {
        if (record instanceof CoordinatorRecord.TopicValue || ConsumerGroupCodec.isConsumerGroupSnapshotRecord(record)) {
            return FORMAT_VERSION_KIP848;
        }
        if (record instanceof CoordinatorRecord.GroupConfigValue) {
            return FORMAT_VERSION_GROUP_SETTINGS;
        }
        return record instanceof CoordinatorRecord.AclValue ? FORMAT_VERSION_WITHOUT_GROUP_SETTINGS : OLDEST_READABLE_VERSION;
    }

    /**
     * Reads a whole snapshot written by {@link #write}. Throws an {@link IOException} that says what
     * is wrong for an empty, truncated or malformed file, an unknown format version, or a trailer
     * whose count does not match the records read.
     */
    public static Snapshot read(InputStream in) throws IOException {
        Objects.requireNonNull(in, "in");
        FrameReader frames = new FrameReader(CodedInputStream.newInstance(in));
        if (frames.atEnd()) {
            throw new IOException("Snapshot is empty: no header");
        }
        SnapshotHeader header = parseHeader(frames.next("header"));
        if (header.getFormatVersion() < OLDEST_READABLE_VERSION || header.getFormatVersion() > MAX_READABLE_VERSION) {
            throw new IOException("Unknown snapshot format_version " + Integer.toUnsignedString(header.getFormatVersion())
                    + " (this build reads versions " + OLDEST_READABLE_VERSION + " to " + MAX_READABLE_VERSION + ")");
        }
        List<CoordinatorRecord> records = new ArrayList<>();
        while (true) {
            if (frames.atEnd()) {
                throw new IOException("Snapshot is truncated: no trailer after " + records.size() + " records ("
                        + frames.position + " bytes)");
            }
            byte[] frame = frames.next("record " + records.size() + " or the trailer");
            if (frames.atEnd()) {
                throwIfCountMismatch(parseTrailer(frame, records.size(), frames.position), records.size());
                return new Snapshot(header.getPartition(), header.getTerm(), header.getIndex(), records);
            }
            CoordinatorRecord record = parseRecord(frame, records.size());
            int since = formatVersionOf(record);
            if (since > FORMAT_VERSION_WITHOUT_GROUP_SETTINGS && header.getFormatVersion() < since) {
                throw new IOException("Snapshot record " + records.size() + " is corrupt: "
                        + (record instanceof CoordinatorRecord.GroupConfigValue ? "group settings"
                        : record instanceof CoordinatorRecord.TopicValue ? "a topic" : "a consumer-group record")
                        + " in a file of format_version " + header.getFormatVersion() + " (they exist since " + since + ")");
            }
            records.add(record);
        }
    }

    /**
     * Hex SHA-256 of the records encoded in order, framed as in a snapshot file (the digest of the
     * file's bytes between header and trailer). Equal encoded state gives an equal digest, so
     * replicas compare states by digest; member order counts, as it does for the state.
     */
    public static String digest(List<CoordinatorRecord> records) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
        try (DigestOutputStream sink = new DigestOutputStream(OutputStream.nullOutputStream(), sha256)) {
            CodedOutputStream coded = CodedOutputStream.newInstance(sink);
            for (CoordinatorRecord record : records) {
                writeFrame(coded, toProto(record));
            }
            coded.flush();
        } catch (IOException e) {
            throw new IllegalStateException("Writing to a null stream cannot fail", e);
        }
        return HexFormat.of().formatHex(sha256.digest());
    }

    private static void writeFrame(CodedOutputStream coded, MessageLite message) throws IOException {
        coded.writeUInt32NoTag(message.getSerializedSize());
        message.writeTo(coded);
    }

    private static SnapshotHeader parseHeader(byte[] frame) throws IOException {
        try {
            return SnapshotHeader.parseFrom(frame);
        } catch (InvalidProtocolBufferException e) {
            throw new IOException("Snapshot header is corrupt: " + e.getMessage(), e);
        }
    }

    private static SnapshotTrailer parseTrailer(byte[] frame, int recordsRead, long position) throws IOException {
        SnapshotTrailer trailer;
        try {
            trailer = SnapshotTrailer.parseFrom(frame);
        } catch (InvalidProtocolBufferException e) {
            trailer = null;
        }
        // A record read as a trailer parses into unknown fields: the file ended after a record.
        if (trailer == null || !trailer.getUnknownFields().asMap().isEmpty()) {
            throw new IOException("Snapshot is truncated or corrupt: it ends after " + recordsRead
                    + " records (" + position + " bytes) without a trailer");
        }
        return trailer;
    }

    private static void throwIfCountMismatch(SnapshotTrailer trailer, int recordsRead) throws IOException {
        if (trailer.getRecordCount() != recordsRead) {
            throw new IOException("Snapshot is corrupt: its trailer counts " + trailer.getRecordCount()
                    + " records but " + recordsRead + " were read");
        }
    }

    private static CoordinatorRecord parseRecord(byte[] frame, int ordinal) throws IOException {
        try {
            return fromProto(SnapshotRecord.parseFrom(frame));
        } catch (InvalidProtocolBufferException | LogFormatException e) {
            throw new IOException("Snapshot record " + ordinal + " is corrupt: " + e.getMessage(), e);
        }
    }

    /** Reads length-delimited frames and tracks the byte position, for messages. */
    private static final class FrameReader {
        private final CodedInputStream coded;
        private long position;

        FrameReader(CodedInputStream coded) {
            this.coded = coded;
        }

        boolean atEnd() throws IOException {
            return coded.isAtEnd();
        }

        byte[] next(String what) throws IOException {
            // Protobuf limits the bytes one CodedInputStream reads; each frame starts a new count.
            coded.resetSizeCounter();
            try {
                byte[] frame = coded.readByteArray();
                position += CodedOutputStream.computeUInt32SizeNoTag(frame.length) + frame.length;
                return frame;
            } catch (InvalidProtocolBufferException e) {
                throw new IOException("Snapshot is truncated or corrupt in the " + what + " at byte " + position
                        + ": " + e.getMessage(), e);
            }
        }
    }

    // ----- records ----------------------------------------------------------------------------

    /** The proto of a snapshot record; {@link IllegalArgumentException} for a tombstone. */
    public static SnapshotRecord toProto(CoordinatorRecord record) {
        throwIfNotSnapshotRecord(record);
        if (record instanceof CoordinatorRecord.GroupValue value) {
            return SnapshotRecord.newBuilder().setGroup(toProto(value.group())).build();
        }
        if (record instanceof CoordinatorRecord.AclValue acl) {
            return SnapshotRecord.newBuilder().setAcl(AclCodec.toProto(acl.binding())).build();
        }
        if (record instanceof CoordinatorRecord.GroupConfigValue settings) {
            return SnapshotRecord.newBuilder().setGroupSettings(LogCodec.toProto(settings.settings())).build();
        }
        if (record instanceof CoordinatorRecord.TopicValue topic) {
            return SnapshotRecord.newBuilder().setTopic(TopicCodec.toProto(topic.topic())).build();
        }
        if (ConsumerGroupCodec.isConsumerGroupSnapshotRecord(record)) {
            return ConsumerGroupCodec.toProto(record);
        }
        CoordinatorRecord.OffsetValue offset = (CoordinatorRecord.OffsetValue) record;
        OffsetAndMetadata value = offset.value();
        return SnapshotRecord.newBuilder().setOffset(OffsetValueProto.newBuilder()
                .setGroupId(offset.groupId())
                .setTopic(offset.topic())
                .setPartition(offset.partition())
                .setOffset(value.offset())
                .setLeaderEpoch(value.leaderEpoch())
                .setMetadata(value.metadata())
                .setCommitTimestampMs(value.commitTimestampMs())
                .setExpireTimestampMs(value.expireTimestampMs()))
                .build();
    }

    /** The record of a snapshot proto; {@link LogFormatException} if it is unset or invalid. */
    public static CoordinatorRecord fromProto(SnapshotRecord proto) {
        Objects.requireNonNull(proto, "proto");
        return switch (proto.getRecordCase()) {
            case GROUP -> new CoordinatorRecord.GroupValue(fromProto(proto.getGroup()));
            case OFFSET -> {
                OffsetValueProto p = proto.getOffset();
                yield new CoordinatorRecord.OffsetValue(p.getGroupId(), p.getTopic(), p.getPartition(),
                        new OffsetAndMetadata(p.getOffset(), p.getLeaderEpoch(), p.getMetadata(),
                                p.getCommitTimestampMs(), p.getExpireTimestampMs()));
            }
            case ACL -> new CoordinatorRecord.AclValue(AclCodec.fromProto(proto.getAcl()));
            case GROUP_SETTINGS -> new CoordinatorRecord.GroupConfigValue(LogCodec.fromProto(proto.getGroupSettings()));
            case TOPIC -> new CoordinatorRecord.TopicValue(TopicCodec.fromProto(proto.getTopic()));
            case CONSUMER_GROUP_EPOCH, CONSUMER_SUBSCRIPTION_METADATA, CONSUMER_REGEX_RESOLUTIONS,
                    CONSUMER_ASSIGNMENT_EPOCH, CONSUMER_MEMBER_METADATA, CONSUMER_TARGET_ASSIGNMENT,
                    CONSUMER_CURRENT_ASSIGNMENT -> ConsumerGroupCodec.fromProto(proto);
            case RECORD_NOT_SET -> throw new LogFormatException("Snapshot record of an unknown or empty type");
        };
    }

    private static void throwIfNotSnapshotRecord(CoordinatorRecord record) {
        Objects.requireNonNull(record, "record");
        if (!(record instanceof CoordinatorRecord.GroupValue) && !(record instanceof CoordinatorRecord.OffsetValue)
                && !(record instanceof CoordinatorRecord.AclValue)
                && !(record instanceof CoordinatorRecord.GroupConfigValue)
                && !(record instanceof CoordinatorRecord.TopicValue)
                && !ConsumerGroupCodec.isConsumerGroupSnapshotRecord(record)) {
            throw new IllegalArgumentException("Only group settings, group, offset, ACL, topic and consumer-group values"
                    + " are snapshot records,"
                    + " not " + record);
        }
    }

    static GroupValueProto toProto(ClassicGroup group) {
        GroupValueProto.Builder proto = GroupValueProto.newBuilder()
                .setGroupId(group.groupId())
                .setState(toProto(group.state()))
                .setPreviousState(toProto(group.previousState()))
                .setStateTimestampMs(group.stateTimestampMs())
                .setGenerationId(group.generationId())
                .setSubscribedTopicsKnown(group.subscribedTopics() != null)
                .setNewMemberAdded(group.newMemberAdded());
        if (group.protocolType() != null) {
            proto.setProtocolType(group.protocolType());
        }
        if (group.protocolName() != null) {
            proto.setProtocolName(group.protocolName());
        }
        if (group.leaderId() != null) {
            proto.setLeaderId(group.leaderId());
        }
        group.members().forEach((memberId, member) -> proto.addMembers(toProto(memberId, member)));
        group.pendingMembers().forEach((memberId, sessionTimeoutMs) -> proto.addPendingMembers(
                PendingMemberProto.newBuilder().setMemberId(memberId).setSessionTimeoutMs(sessionTimeoutMs)));
        proto.addAllPendingSyncMembers(group.pendingSyncMembers());
        if (group.subscribedTopics() != null) {
            proto.addAllSubscribedTopics(group.subscribedTopics());
        }
        if (group.joinTimer() != null) {
            JoinTimer timer = group.joinTimer();
            proto.setJoinTimer(JoinTimerProto.newBuilder()
                    .setDeadlineMs(timer.deadlineMs())
                    .setInitial(timer.initial())
                    .setDelayMs(timer.delayMs())
                    .setRemainingMs(timer.remainingMs()));
        }
        if (group.syncTimer() != null) {
            proto.setSyncTimer(SyncTimerProto.newBuilder()
                    .setDeadlineMs(group.syncTimer().deadlineMs())
                    .setGenerationId(group.syncTimer().generationId()));
        }
        return proto.build();
    }

    private static MemberProto toProto(String memberId, ClassicGroupMember member) {
        if (!memberId.equals(member.memberId())) {
            // The proto keys members by their own id; a map keyed otherwise would not round-trip.
            throw new IllegalArgumentException("Member " + member.memberId() + " is stored under id " + memberId);
        }
        MemberProto.Builder proto = MemberProto.newBuilder()
                .setMemberId(member.memberId())
                .setClientId(member.clientId())
                .setClientHost(member.clientHost())
                .setRebalanceTimeoutMs(member.rebalanceTimeoutMs())
                .setSessionTimeoutMs(member.sessionTimeoutMs())
                .setProtocolType(member.protocolType())
                .setAssignment(LogCodec.toByteString(member.assignment()))
                .setAwaitingJoin(member.awaitingJoin())
                .setAwaitingSync(member.awaitingSync())
                .setIsNew(member.isNew());
        if (member.groupInstanceId() != null) {
            proto.setGroupInstanceId(member.groupInstanceId());
        }
        for (Protocol protocol : member.protocols()) {
            proto.addProtocols(LogCodec.toProto(protocol));
        }
        return proto.build();
    }

    static ClassicGroup fromProto(GroupValueProto p) {
        String groupId = p.getGroupId();
        Map<String, ClassicGroupMember> members = new LinkedHashMap<>();
        for (MemberProto member : p.getMembersList()) {
            if (members.put(member.getMemberId(), fromProto(member)) != null) {
                throw new LogFormatException("Group " + groupId + " lists member " + member.getMemberId() + " twice");
            }
        }
        Map<String, Integer> pendingMembers = new LinkedHashMap<>();
        for (PendingMemberProto pending : p.getPendingMembersList()) {
            if (pendingMembers.put(pending.getMemberId(), pending.getSessionTimeoutMs()) != null) {
                throw new LogFormatException("Group " + groupId + " lists pending member " + pending.getMemberId()
                        + " twice");
            }
        }
        Set<String> pendingSyncMembers = new LinkedHashSet<>(p.getPendingSyncMembersList());
        if (pendingSyncMembers.size() != p.getPendingSyncMembersCount()) {
            throw new LogFormatException("Group " + groupId + " lists a pending sync member twice");
        }
        if (!p.getSubscribedTopicsKnown() && p.getSubscribedTopicsCount() > 0) {
            throw new LogFormatException("Group " + groupId + " has subscribed topics marked unknown");
        }
        Set<String> subscribedTopics = p.getSubscribedTopicsKnown() ? new TreeSet<>(p.getSubscribedTopicsList()) : null;
        JoinTimer joinTimer = p.hasJoinTimer() ? new JoinTimer(p.getJoinTimer().getDeadlineMs(),
                p.getJoinTimer().getInitial(), p.getJoinTimer().getDelayMs(), p.getJoinTimer().getRemainingMs()) : null;
        SyncTimer syncTimer = p.hasSyncTimer()
                ? new SyncTimer(p.getSyncTimer().getDeadlineMs(), p.getSyncTimer().getGenerationId()) : null;
        return new ClassicGroup(groupId, state(p.getStateValue(), groupId), state(p.getPreviousStateValue(), groupId),
                p.getStateTimestampMs(), p.getGenerationId(), p.hasProtocolType() ? p.getProtocolType() : null,
                p.hasProtocolName() ? p.getProtocolName() : null, p.hasLeaderId() ? p.getLeaderId() : null,
                members, pendingMembers, pendingSyncMembers, subscribedTopics, joinTimer, p.getNewMemberAdded(),
                syncTimer);
    }

    private static ClassicGroupMember fromProto(MemberProto p) {
        return new ClassicGroupMember(p.getMemberId(), p.hasGroupInstanceId() ? p.getGroupInstanceId() : null,
                p.getClientId(), p.getClientHost(), p.getRebalanceTimeoutMs(), p.getSessionTimeoutMs(),
                p.getProtocolType(), LogCodec.fromProtocolProtos(p.getProtocolsList()),
                LogCodec.toBytes(p.getAssignment()), p.getAwaitingJoin(), p.getAwaitingSync(), p.getIsNew());
    }

    /** The persisted number of a state: an explicit table, never the enum's ordinal. */
    static GroupStateProto toProto(ClassicGroupState state) {
        return switch (state) {
            case EMPTY -> GroupStateProto.GROUP_STATE_EMPTY;
            case PREPARING_REBALANCE -> GroupStateProto.GROUP_STATE_PREPARING_REBALANCE;
            case COMPLETING_REBALANCE -> GroupStateProto.GROUP_STATE_COMPLETING_REBALANCE;
            case STABLE -> GroupStateProto.GROUP_STATE_STABLE;
            case DEAD -> GroupStateProto.GROUP_STATE_DEAD;
        };
    }

    /** The state of a persisted number; {@link LogFormatException} for 0 (unset) or an unknown one. */
    static ClassicGroupState state(int number, String groupId) {
        GroupStateProto state = GroupStateProto.forNumber(number);
        if (state == null) {
            state = GroupStateProto.UNRECOGNIZED;
        }
        return switch (state) {
            case GROUP_STATE_EMPTY -> ClassicGroupState.EMPTY;
            case GROUP_STATE_PREPARING_REBALANCE -> ClassicGroupState.PREPARING_REBALANCE;
            case GROUP_STATE_COMPLETING_REBALANCE -> ClassicGroupState.COMPLETING_REBALANCE;
            case GROUP_STATE_STABLE -> ClassicGroupState.STABLE;
            case GROUP_STATE_DEAD -> ClassicGroupState.DEAD;
            case GROUP_STATE_UNSPECIFIED, UNRECOGNIZED -> throw new LogFormatException("Group " + groupId
                    + " has no known state (number " + number + ")");
        };
    }
}
