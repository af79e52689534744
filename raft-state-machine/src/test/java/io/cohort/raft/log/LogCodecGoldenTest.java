package io.cohort.raft.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UnknownFieldSet;
import io.cohort.core.Bytes;
import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPatternType;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;
import io.cohort.core.command.Command;
import io.cohort.core.group.Protocol;
import io.cohort.raft.log.proto.CommandProto;
import io.cohort.raft.log.proto.LogEntry;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The log format is a persisted contract: for every command type a fixed example and the exact bytes
 * of a one-command {@code LogEntry}, frozen here. If a golden test fails, the format changed: entries
 * already in some replica's log would be misread. Restore the format, or introduce a new
 * format_version with a reader for the old one; never just paste new bytes.
 */
class LogCodecGoldenTest {
    static final long LEADER_TIME_MS = 1_700_000_000_000L;

    static final Command.JoinGroup JOIN_GROUP = new Command.JoinGroup("group-a", "", "instance-1", "consumer",
            List.of(new Protocol("range", bytes(1, 2, 3)), new Protocol("roundrobin", Bytes.EMPTY)), 10_000, 60_000,
            "client-1", "/10.0.0.1", "rolling restart", (short) 9, "4f1c");
    static final Command.SyncGroup SYNC_GROUP = new Command.SyncGroup("group-a", 3, "client-1-4f1c", "instance-1",
            "consumer", "range", List.of(new Command.MemberAssignment("client-1-4f1c", bytes(0, 1)),
            new Command.MemberAssignment("client-2-77aa", Bytes.EMPTY)));
    static final Command.LeaveGroup LEAVE_GROUP = new Command.LeaveGroup("group-a", List.of(
            new Command.LeavingMember("client-1-4f1c", null, "shutdown"),
            new Command.LeavingMember("", "instance-2", null)));
    static final Command.OffsetCommit OFFSET_COMMIT = new Command.OffsetCommit("group-a", 3, "client-1-4f1c",
            "instance-1", -1L, List.of(new Command.TopicCommit("orders", List.of(
                    new Command.PartitionCommit(0, 42L, 5, "checkpoint"),
                    new Command.PartitionCommit(1, 7L, -1, null)))), (short) 9);
    static final Command.DeleteGroups DELETE_GROUPS = new Command.DeleteGroups(List.of("group-a", "group-b"));
    static final Command.OffsetDelete OFFSET_DELETE = new Command.OffsetDelete("group-a",
            List.of(new Command.TopicPartitions("orders", List.of(0, 1))));
    static final Command.ExpireMemberSession EXPIRE_MEMBER_SESSION =
            new Command.ExpireMemberSession("group-a", "client-1-4f1c");
    static final Command.FireJoinTimer FIRE_JOIN_TIMER = new Command.FireJoinTimer("group-a", 1_700_000_003_000L);
    static final Command.FireSyncTimer FIRE_SYNC_TIMER = new Command.FireSyncTimer("group-a", 3, 1_700_000_010_000L);
    static final Command.ExpireOffsets EXPIRE_OFFSETS = new Command.ExpireOffsets();
    static final AclBinding ACL_READ_PREFIX = new AclBinding("User:alice", "10.0.0.1", AclResourceType.GROUP, "app-",
            AclPatternType.PREFIXED, AclOperation.READ, AclPermission.ALLOW);
    static final AclBinding ACL_DENY_CLUSTER = new AclBinding("User:*", "*", AclResourceType.CLUSTER,
            AclBinding.CLUSTER_NAME, AclPatternType.LITERAL, AclOperation.ALTER, AclPermission.DENY);
    static final Command.CreateAcls CREATE_ACLS = new Command.CreateAcls(List.of(ACL_READ_PREFIX, ACL_DENY_CLUSTER));
    static final Command.DeleteAcls DELETE_ACLS = new Command.DeleteAcls(List.of(AclBindingFilter.exactly(ACL_READ_PREFIX),
            new AclBindingFilter(null, null, AclResourceType.GROUP, "orders", null, true, null, null),
            AclBindingFilter.ANY));
    static final Command.SetGroupConfig SET_GROUP_CONFIG = new Command.SetGroupConfig(
            new GroupSettings(7L, 6_000, 300_000, 3_000, 50, 604_800_000L));

    // Golden bytes: LogCodec.encodeEntry(LEADER_TIME_MS, List.of(example)) of format version 1, generated
    // once and frozen. Version 2 (state limits apply) has the same fields: its bytes differ only in the
    // version varint, the second byte (see version2).
    static final String JOIN_GROUP_HEX = "08011080d095ffbc311a720a700a0767726f75702d611a0a696e7374616e63652d312208636f6e73"
            + "756d65722a0c0a0572616e676512030102032a0c0a0a726f756e64726f62696e30904e38e0d40342"
            + "08636c69656e742d314a092f31302e302e302e31520f726f6c6c696e672072657374617274580962"
            + "0434663163";
    static final String SYNC_GROUP_HEX = "08011080d095ffbc311a5f125d0a0767726f75702d6110031a0d636c69656e742d312d3466316322"
            + "0a696e7374616e63652d312a08636f6e73756d6572320572616e67653a130a0d636c69656e742d31"
            + "2d34663163120200013a0f0a0d636c69656e742d322d37376161";
    static final String LEAVE_GROUP_HEX = "08011080d095ffbc311a341a320a0767726f75702d6112190a0d636c69656e742d312d346631631a"
            + "0873687574646f776e120c120a696e7374616e63652d32";
    static final String OFFSET_COMMIT_HEX = "08011080d095ffbc311a6222600a0767726f75702d6110031a0d636c69656e742d312d3466316322"
            + "0a696e7374616e63652d3128ffffffffffffffffff01322b0a066f72646572731210102a1805220a"
            + "636865636b706f696e74120f0801100718ffffffffffffffffff013809";
    static final String DELETE_GROUPS_HEX = "08011080d095ffbc311a142a120a0767726f75702d610a0767726f75702d62";
    static final String OFFSET_DELETE_HEX = "08011080d095ffbc311a1932170a0767726f75702d61120c0a066f726465727312020001";
    static final String EXPIRE_MEMBER_SESSION_HEX = "08011080d095ffbc311a1a3a180a0767726f75702d61120d636c69656e742d312d34663163";
    static final String FIRE_JOIN_TIMER_HEX = "08011080d095ffbc311a1242100a0767726f75702d6110b8e795ffbc31";
    static final String FIRE_SYNC_TIMER_HEX = "08011080d095ffbc311a144a120a0767726f75702d61100318909e96ffbc31";
    static final String EXPIRE_OFFSETS_HEX = "08011080d095ffbc311a025200";
    // Commands new in format version 2 (ACLs): their golden bytes are of version 2 only.
    static final String CREATE_ACLS_V2_HEX = "08021080d095ffbc311a4d5a4b0a240a0a557365723a616c696365120831302e302e302e31180322"
            + "046170702d2804300338030a230a06557365723a2a12012a1804220e636f686f72742d636c757374"
            + "6572280330073802";
    static final String DELETE_ACLS_V2_HEX = "08021080d095ffbc311a3862360a240a0a557365723a616c696365120831302e302e302e31180322"
            + "046170702d2804380340030a0c180322066f726465727330010a00";

    // Commands new in format version 3 (online group settings): their golden bytes are of version 3 only,
    // derived by hand from the proto encoding (field 13 of CommandProto, tag 0x6a), not from the encoder.
    static final String SET_GROUP_CONFIG_V3_HEX = "08031080d095ffbc311a186a160a14080710f02e18e0a71220b8172832308088b2a002";

    static Stream<Arguments> goldenEntries() {
        return Stream.of(
                Arguments.of(JOIN_GROUP, JOIN_GROUP_HEX),
                Arguments.of(SYNC_GROUP, SYNC_GROUP_HEX),
                Arguments.of(LEAVE_GROUP, LEAVE_GROUP_HEX),
                Arguments.of(OFFSET_COMMIT, OFFSET_COMMIT_HEX),
                Arguments.of(DELETE_GROUPS, DELETE_GROUPS_HEX),
                Arguments.of(OFFSET_DELETE, OFFSET_DELETE_HEX),
                Arguments.of(EXPIRE_MEMBER_SESSION, EXPIRE_MEMBER_SESSION_HEX),
                Arguments.of(FIRE_JOIN_TIMER, FIRE_JOIN_TIMER_HEX),
                Arguments.of(FIRE_SYNC_TIMER, FIRE_SYNC_TIMER_HEX),
                Arguments.of(EXPIRE_OFFSETS, EXPIRE_OFFSETS_HEX));
    }

    /** Command types that exist since format version 2, with their version-2 golden bytes. */
    static Stream<Arguments> goldenEntriesSinceVersion2() {
        return Stream.of(
                Arguments.of(CREATE_ACLS, CREATE_ACLS_V2_HEX),
                Arguments.of(DELETE_ACLS, DELETE_ACLS_V2_HEX));
    }

    /** Command types that exist since format version 3, with their version-3 golden bytes. */
    static Stream<Arguments> goldenEntriesSinceVersion3() {
        return Stream.of(Arguments.of(SET_GROUP_CONFIG, SET_GROUP_CONFIG_V3_HEX));
    }

    /** The version-2 bytes of a version-1 golden entry: field 1 (tag 0x08) is its first, one-byte varint. */
    static String version2(String version1Hex) {
        assertThat(version1Hex).startsWith("0801");
        return "0802" + version1Hex.substring(4);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntries")
    void testEncodeMatchesGoldenBytes(Command command, String goldenHex) {
        assertThat(hex(LogCodec.encodeEntry(LEADER_TIME_MS, List.of(command)))).isEqualTo(version2(goldenHex));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntries")
    void testDecodeGoldenBytesGivesTheExample(Command command, String goldenHex) {
        LogCodec.DecodedEntry decoded = LogCodec.decodeEntry(HexFormat.of().parseHex(version2(goldenHex)));

        assertThat(decoded).isEqualTo(new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(command), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntries")
    void testVersion1BytesDecodeToTheExampleWithoutStateLimits(Command command, String goldenHex) {
        LogCodec.DecodedEntry decoded = LogCodec.decodeEntry(HexFormat.of().parseHex(goldenHex));

        assertThat(decoded).isEqualTo(new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(command), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntriesSinceVersion2")
    void testVersion2CommandsEncodeAndDecodeAsTheirGoldenBytes(Command command, String goldenV2Hex) {
        assertThat(hex(LogCodec.encodeEntry(LEADER_TIME_MS, List.of(command)))).isEqualTo(goldenV2Hex);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(goldenV2Hex)))
                .isEqualTo(new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(command), true));
    }

    /** No build wrote an ACL command into a version-1 entry: such an entry is malformed, not replayed. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntriesSinceVersion2")
    void testVersion2CommandsInAVersion1EntryAreRefused(Command command, String goldenV2Hex) {
        String asVersion1 = "0801" + goldenV2Hex.substring(4);

        assertThatThrownBy(() -> LogCodec.decodeEntry(HexFormat.of().parseHex(asVersion1)))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("ACL command");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntriesSinceVersion3")
    void testVersion3CommandsEncodeAndDecodeAsTheirGoldenBytes(Command command, String goldenV3Hex) {
        assertThat(goldenV3Hex).startsWith("0803");
        assertThat(hex(LogCodec.encodeEntry(LEADER_TIME_MS, List.of(command)))).isEqualTo(goldenV3Hex);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(goldenV3Hex)))
                .isEqualTo(new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(command), true));
    }

    /**
     * The gate: no build writes a version-3 command into an entry of an older version, since a build
     * that reads only version 2 would skip it as an unknown command and diverge. Such an entry is
     * malformed; and a batch mixing old and new commands is written as version 3 as a whole.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntriesSinceVersion3")
    void testVersion3CommandsInAnOlderEntryAreRefused(Command command, String goldenV3Hex) {
        for (String olderVersion : List.of("0801", "0802")) {
            String asOlder = olderVersion + goldenV3Hex.substring(4);

            assertThatThrownBy(() -> LogCodec.decodeEntry(HexFormat.of().parseHex(asOlder)))
                    .isInstanceOf(LogFormatException.class).hasMessageContaining("SetGroupConfig")
                    .hasMessageContaining("since format_version 3");
        }
        byte[] mixed = LogCodec.encodeEntry(LEADER_TIME_MS, List.of(OFFSET_COMMIT, command, EXPIRE_OFFSETS));
        assertThat(parse(mixed).getFormatVersion()).isEqualTo(3);
        assertThat(LogCodec.decodeEntry(mixed).commands()).containsExactly(OFFSET_COMMIT, command, EXPIRE_OFFSETS);
    }

    /** Ordinary entries stay version 2, so a build that reads only 2 keeps applying them during a roll. */
    @Test
    void testEntriesWithoutVersion3CommandsAreStillWrittenAsVersion2() {
        byte[] batch = LogCodec.encodeEntry(LEADER_TIME_MS, List.of(OFFSET_COMMIT, JOIN_GROUP, CREATE_ACLS));

        assertThat(parse(batch).getFormatVersion()).isEqualTo(2);
        assertThat(LogCodec.formatVersionOf(List.of(OFFSET_COMMIT, DELETE_ACLS))).isEqualTo(2);
        assertThat(LogCodec.formatVersionOf(List.of(OFFSET_COMMIT, SET_GROUP_CONFIG))).isEqualTo(3);
    }

    private static LogEntry parse(byte[] entry) {
        try {
            return LogEntry.parseFrom(entry);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void testGoldenExamplesCoverEveryCommandType() {
        Set<Class<?>> covered = Stream.of(goldenEntries(), goldenEntriesSinceVersion2(), goldenEntriesSinceVersion3(),
                        TopicLogCodecGoldenTest.goldenEntriesSinceVersion4(),
                        ConsumerGroupCodecGoldenTest.goldenCommands())
                .flatMap(s -> s).map(a -> a.get()[0].getClass()).collect(Collectors.toSet());

        assertThat(covered).containsExactlyInAnyOrder(Command.class.getPermittedSubclasses());
    }

    @Test
    void testBatchOfSeveralCommandsRoundTripsInOrder() {
        List<Command> batch = List.of(OFFSET_COMMIT, JOIN_GROUP, EXPIRE_OFFSETS, SYNC_GROUP, OFFSET_COMMIT,
                LEAVE_GROUP, FIRE_SYNC_TIMER, DELETE_GROUPS);

        LogCodec.DecodedEntry decoded = LogCodec.decodeEntry(LogCodec.encodeEntry(42L, batch));

        assertThat(decoded.leaderTimeMs()).isEqualTo(42L);
        assertThat(decoded.commands()).containsExactlyElementsOf(batch);
    }

    @Test
    void testEmptyBatchRoundTrips() {
        assertThat(LogCodec.decodeEntry(LogCodec.encodeEntry(-1L, List.of())))
                .isEqualTo(new LogCodec.DecodedEntry(-1L, List.of()));
    }

    @Test
    void testDecodeByteBufferReadsRemainingBytesWithoutMovingPosition() {
        byte[] entry = LogCodec.encodeEntry(LEADER_TIME_MS, List.of(OFFSET_COMMIT, JOIN_GROUP));
        LogCodec.DecodedEntry expected = new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(OFFSET_COMMIT, JOIN_GROUP));
        byte[] framed = new byte[entry.length + 3];
        System.arraycopy(entry, 0, framed, 2, entry.length);
        ByteBuffer heap = ByteBuffer.wrap(framed, 2, entry.length);
        ByteBuffer direct = ByteBuffer.allocateDirect(entry.length).put(entry).flip();

        assertThat(LogCodec.decodeEntry(heap)).isEqualTo(expected);
        assertThat(heap.position()).isEqualTo(2);
        assertThat(LogCodec.decodeEntry(heap.asReadOnlyBuffer())).isEqualTo(expected);
        assertThat(LogCodec.decodeEntry(direct)).isEqualTo(expected);
        assertThat(direct.position()).isZero();
    }

    @Test
    void testNullAndEmptyOptionalStringsStayDistinct() {
        Command.JoinGroup joinNulls = join(null, null);
        Command.JoinGroup joinEmpties = join("", "");
        Command.SyncGroup syncNulls = new Command.SyncGroup("g", 1, "m", null, null, null, List.of());
        Command.SyncGroup syncEmpties = new Command.SyncGroup("g", 1, "m", "", "", "", List.of());
        Command.LeaveGroup leaveNulls = new Command.LeaveGroup("g", List.of(new Command.LeavingMember("m", null, null)));
        Command.LeaveGroup leaveEmpties = new Command.LeaveGroup("g", List.of(new Command.LeavingMember("m", "", "")));
        Command.OffsetCommit commitNulls = commit(null, null);
        Command.OffsetCommit commitEmpties = commit("", "");

        for (List<Command> pair : List.of(List.<Command>of(joinNulls, joinEmpties), List.<Command>of(syncNulls,
                syncEmpties), List.<Command>of(leaveNulls, leaveEmpties), List.<Command>of(commitNulls, commitEmpties))) {
            assertThat(pair.get(0)).isNotEqualTo(pair.get(1));
            assertThat(roundTrip(pair.get(0))).isEqualTo(pair.get(0));
            assertThat(roundTrip(pair.get(1))).isEqualTo(pair.get(1));
            assertThat(LogCodec.toProto(pair.get(0))).isNotEqualTo(LogCodec.toProto(pair.get(1)));
        }
    }

    @Test
    void testEmptyAndNonEmptyBytesRoundTrip() {
        Command.SyncGroup sync = new Command.SyncGroup("g", 1, "m", null, null, null, List.of(
                new Command.MemberAssignment("a", Bytes.EMPTY), new Command.MemberAssignment("b", bytes(0)),
                new Command.MemberAssignment("c", bytes(0xff, 0x00, 0x7f))));

        assertThat(roundTrip(sync)).isEqualTo(sync);
    }

    @Test
    void testExtremeNumbersRoundTrip() {
        Command.OffsetCommit commit = new Command.OffsetCommit("g", Integer.MIN_VALUE, "m", null, Long.MAX_VALUE,
                List.of(new Command.TopicCommit("t", List.of(new Command.PartitionCommit(Integer.MAX_VALUE,
                        Long.MIN_VALUE, Integer.MIN_VALUE, null)))), Short.MIN_VALUE);
        Command.JoinGroup join = new Command.JoinGroup("g", "m", null, "", List.of(), -1, Integer.MIN_VALUE, "", "",
                null, Short.MAX_VALUE, "");

        assertThat(roundTrip(commit)).isEqualTo(commit);
        assertThat(roundTrip(join)).isEqualTo(join);
        assertThat(LogCodec.decodeEntry(LogCodec.encodeEntry(Long.MIN_VALUE, List.of())).leaderTimeMs())
                .isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void testUnknownFormatVersionIsRejected() {
        byte[] version5 = LogEntry.newBuilder().setFormatVersion(5).setLeaderTimeMs(1L)
                .addCommands(LogCodec.toProto(EXPIRE_OFFSETS)).build().toByteArray();
        byte[] noVersion = LogEntry.newBuilder().setLeaderTimeMs(1L)
                .addCommands(LogCodec.toProto(EXPIRE_OFFSETS)).build().toByteArray();

        assertThatThrownBy(() -> LogCodec.decodeEntry(version5))
                .isInstanceOf(NewerLogFormatException.class).hasMessageContaining("format_version 5")
                .hasMessageContaining("newer Cohort build");
        assertThatThrownBy(() -> LogCodec.decodeEntry(ByteBuffer.wrap(version5)))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("format_version 5");
        assertThatThrownBy(() -> LogCodec.decodeEntry(noVersion))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("format_version 0");
        assertThatThrownBy(() -> LogCodec.decodeEntry(new byte[0]))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("format_version 0");
    }

    @Test
    void testGarbageBytesAreRejected() {
        byte[] golden = HexFormat.of().parseHex(version2(OFFSET_COMMIT_HEX));
        byte[] truncated = Arrays.copyOf(golden, golden.length - 1);

        assertThatThrownBy(() -> LogCodec.decodeEntry(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("Malformed log entry");
        assertThatThrownBy(() -> LogCodec.decodeEntry("not a log entry".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("Malformed log entry");
        assertThatThrownBy(() -> LogCodec.decodeEntry(truncated))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("Malformed log entry");
        assertThatThrownBy(() -> LogCodec.decodeEntry(ByteBuffer.wrap(truncated)))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("Malformed log entry");
    }

    @Test
    void testUnsetOrUnknownCommandIsRejected() {
        CommandProto unknownType = CommandProto.newBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
                .addField(11, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()).build();
        byte[] entryWithUnknownType = LogEntry.newBuilder().setFormatVersion(LogCodec.FORMAT_VERSION)
                .addCommands(unknownType).build().toByteArray();

        assertThatThrownBy(() -> LogCodec.fromProto(CommandProto.getDefaultInstance()))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("unknown or empty command");
        assertThatThrownBy(() -> LogCodec.decodeEntry(entryWithUnknownType))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("unknown fields [11]");
    }

    @Test
    void testApiVersionOutOfShortRangeIsRejected() {
        CommandProto proto = LogCodec.toProto(JOIN_GROUP).toBuilder()
                .setJoinGroup(LogCodec.toProto(JOIN_GROUP).getJoinGroup().toBuilder().setApiVersion(70_000)).build();

        assertThatThrownBy(() -> LogCodec.fromProto(proto))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("api_version 70000");
    }

    @Test
    void testNullInARequiredFieldIsRefusedBeforeProposing() {
        Command.OffsetCommit noGroup = new Command.OffsetCommit(null, -1, "", null, -1L, List.of(), (short) 9);
        Command.JoinGroup noProtocolType = new Command.JoinGroup("g", "", null, null, List.of(), 10, 10, "c", "h",
                null, (short) 9, "s");

        assertThatThrownBy(() -> LogCodec.toProto(noGroup))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("OffsetCommit.groupId");
        assertThatThrownBy(() -> LogCodec.encodeEntry(0L, List.of(noProtocolType)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JoinGroup.protocolType");
    }

    private static Command.JoinGroup join(String instanceId, String reason) {
        return new Command.JoinGroup("g", "m", instanceId, "consumer", List.of(), 10, 20, "c", "h", reason,
                (short) 9, "s");
    }

    private static Command.OffsetCommit commit(String instanceId, String metadata) {
        return new Command.OffsetCommit("g", 1, "m", instanceId, -1L, List.of(new Command.TopicCommit("t",
                List.of(new Command.PartitionCommit(0, 1L, -1, metadata)))), (short) 9);
    }

    private static Command roundTrip(Command command) {
        Command viaProto = LogCodec.fromProto(LogCodec.toProto(command));
        assertThat(viaProto).isEqualTo(command);
        return LogCodec.decodeEntry(LogCodec.encodeEntry(0L, List.of(command))).commands().get(0);
    }

    static Bytes bytes(int... values) {
        byte[] data = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            data[i] = (byte) values[i];
        }
        return Bytes.copyOf(data);
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
