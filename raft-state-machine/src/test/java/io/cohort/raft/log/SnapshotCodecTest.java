package io.cohort.raft.log;

import static io.cohort.raft.log.LogCodecGoldenTest.bytes;
import static io.cohort.raft.log.LogCodecGoldenTest.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.cohort.core.Bytes;
import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPatternType;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.JoinTimer;
import io.cohort.core.group.Protocol;
import io.cohort.core.group.SyncTimer;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.raft.log.proto.GroupStateProto;
import io.cohort.raft.log.proto.SnapshotHeader;
import io.cohort.raft.log.proto.SnapshotRecord;
import io.cohort.raft.log.proto.SnapshotTrailer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The snapshot format: golden bytes per record type (a persisted contract, see LogCodecGoldenTest),
 * lossless and deterministic round trips of a state built by a real shard, and rejection of
 * truncated or inconsistent files.
 */
class SnapshotCodecTest {
    private static final long T0 = 1_700_000_000_000L;

    /** A group in the middle of a rebalance, with every field set and members out of id order. */
    static final ClassicGroup GOLDEN_GROUP = new ClassicGroup("group-a", ClassicGroupState.COMPLETING_REBALANCE,
            ClassicGroupState.PREPARING_REBALANCE, T0 + 4_000, 3, "consumer", "range", "instance-2-b",
            members(
                    new ClassicGroupMember("instance-2-b", "instance-2", "client-2", "/10.0.0.2", 60_000, 10_000,
                            "consumer", List.of(new Protocol("range", bytes(0x0a, 0x06)),
                            new Protocol("roundrobin", Bytes.EMPTY)), Bytes.EMPTY, false, true, false),
                    new ClassicGroupMember("client-1-a", null, "client-1", "/10.0.0.1", 30_000, 10_000,
                            "consumer", List.of(new Protocol("range", bytes(0x0a, 0x01))), bytes(1, 2), true, false,
                            true)),
            Map.of("client-3-c", 10_000), new LinkedHashSet<>(List.of("instance-2-b", "client-1-a")),
            Set.of("payments", "orders"), JoinTimer.initialDelay(T0 + 7_000, 3_000, 57_000), true,
            new SyncTimer(T0 + 64_000, 3));
    static final CoordinatorRecord.GroupValue GOLDEN_GROUP_VALUE = new CoordinatorRecord.GroupValue(GOLDEN_GROUP);
    static final CoordinatorRecord.OffsetValue GOLDEN_OFFSET_VALUE = new CoordinatorRecord.OffsetValue("group-a",
            "orders", 3, new OffsetAndMetadata(1_234_567L, 5, "checkpoint", T0 + 5_000, -1L));

    // Golden bytes, generated once and frozen: SnapshotCodec.toProto(record).toByteArray() ...
    static final String GROUP_VALUE_HEX = "0abc020a0767726f75702d611003180220a0ef95ffbc3128033208636f6e73756d65723a0572616e"
            + "6765420c696e7374616e63652d322d624a5d0a0c696e7374616e63652d322d62120a696e7374616e"
            + "63652d321a08636c69656e742d3222092f31302e302e302e3228e0d40330904e3a08636f6e73756d"
            + "6572420b0a0572616e676512020a06420c0a0a726f756e64726f62696e58014a470a0a636c69656e"
            + "742d312d611a08636c69656e742d3122092f31302e302e302e3128b0ea0130904e3a08636f6e7375"
            + "6d6572420b0a0572616e676512020a014a02010250016001520f0a0a636c69656e742d332d631090"
            + "4e5a0c696e7374616e63652d322d625a0a636c69656e742d312d6160016a066f72646572736a0870"
            + "61796d656e7473721008d88696ffbc31100118b81720a8bd0378018201090880c499ffbc311003";
    static final String OFFSET_VALUE_HEX = "12370a0767726f75702d6112066f726465727318032087ad4b2805320a636865636b706f696e7438"
            + "88f795ffbc3140ffffffffffffffffff01";
    static final CoordinatorRecord.AclValue GOLDEN_ACL_VALUE = new CoordinatorRecord.AclValue(new AclBinding(
            "User:alice", "*", AclResourceType.GROUP, "app-", AclPatternType.PREFIXED, AclOperation.READ,
            AclPermission.ALLOW));
    static final String ACL_VALUE_HEX = "1a1d0a0a557365723a616c69636512012a180322046170702d280430033803";
    // A whole file of format version 2: write(out, 0, 2, 1234, [GOLDEN_ACL_VALUE, GOLDEN_OFFSET_VALUE]).
    static final String SNAPSHOT_FILE_V2_HEX = "070802180220d2091f1a1d0a0a557365723a616c69636512012a180322046170702d28043003"
            + "38033912370a0767726f75702d6112066f726465727318032087ad4b2805320a636865636b706f69"
            + "6e743888f795ffbc3140ffffffffffffffffff01020802";
    // ... and a whole file of format version 1 (before ACLs), written by the build before version 2:
    // write(out, 7, 2, 1234, [GOLDEN_GROUP_VALUE, GOLDEN_OFFSET_VALUE]). Version 2 builds must still read it.
    static final String SNAPSHOT_FILE_HEX = "0908011007180220d209bf020abc020a0767726f75702d611003180220a0ef95ffbc312803320863"
            + "6f6e73756d65723a0572616e6765420c696e7374616e63652d322d624a5d0a0c696e7374616e6365"
            + "2d322d62120a696e7374616e63652d321a08636c69656e742d3222092f31302e302e302e3228e0d4"
            + "0330904e3a08636f6e73756d6572420b0a0572616e676512020a06420c0a0a726f756e64726f6269"
            + "6e58014a470a0a636c69656e742d312d611a08636c69656e742d3122092f31302e302e302e3128b0"
            + "ea0130904e3a08636f6e73756d6572420b0a0572616e676512020a014a02010250016001520f0a0a"
            + "636c69656e742d332d6310904e5a0c696e7374616e63652d322d625a0a636c69656e742d312d6160"
            + "016a066f72646572736a087061796d656e7473721008d88696ffbc31100118b81720a8bd03780182"
            + "01090880c499ffbc3110033912370a0767726f75702d6112066f726465727318032087ad4b280532"
            + "0a636865636b706f696e743888f795ffbc3140ffffffffffffffffff01020802";

    static final CoordinatorRecord.GroupConfigValue GOLDEN_GROUP_SETTINGS_VALUE = new CoordinatorRecord.GroupConfigValue(
            new GroupSettings(7L, 6_000, 300_000, 3_000, 50, 604_800_000L));
    // Derived by hand from the proto encoding (SnapshotRecord field 4, tag 0x22), not from the encoder.
    static final String GROUP_SETTINGS_VALUE_HEX = "2214080710f02e18e0a71220b8172832308088b2a002";
    // A whole file of format version 3: write(out, 0, 2, 1234, [GOLDEN_GROUP_SETTINGS_VALUE, GOLDEN_OFFSET_VALUE]).
    static final String SNAPSHOT_FILE_V3_HEX = "070803180220d209162214080710f02e18e0a71220b8172832308088b2a0023912370a0767726f"
            + "75702d6112066f726465727318032087ad4b2805320a636865636b706f696e743888f795ffbc3140"
            + "ffffffffffffffffff01020802";

    // ----- golden bytes ---------------------------------------------------------------------------

    @Test
    void testGroupSettingsValueMatchesGoldenBytes() throws Exception {
        assertThat(hex(SnapshotCodec.toProto(GOLDEN_GROUP_SETTINGS_VALUE).toByteArray()))
                .isEqualTo(GROUP_SETTINGS_VALUE_HEX);
        assertThat(SnapshotCodec.fromProto(SnapshotRecord.parseFrom(unhex(GROUP_SETTINGS_VALUE_HEX))))
                .isEqualTo(GOLDEN_GROUP_SETTINGS_VALUE);
    }

    @Test
    void testSnapshotWithGroupSettingsIsVersion3AndMatchesGoldenBytes() throws IOException {
        List<CoordinatorRecord> records = List.of(GOLDEN_GROUP_SETTINGS_VALUE, GOLDEN_OFFSET_VALUE);

        assertThat(hex(write(0, 2L, 1234L, records))).isEqualTo(SNAPSHOT_FILE_V3_HEX);
        assertThat(read(unhex(SNAPSHOT_FILE_V3_HEX))).isEqualTo(new SnapshotCodec.Snapshot(0, 2L, 1234L, records));
    }

    /**
     * A snapshot without group settings is still written as version 2 (what the build before format 3
     * reads, so it can install this build's snapshots during a roll), and version-2 files still read.
     */
    @Test
    void testVersion2SnapshotFileStillReadsAndIsStillWrittenWithoutGroupSettings() throws IOException {
        List<CoordinatorRecord> records = List.of(GOLDEN_ACL_VALUE, GOLDEN_OFFSET_VALUE);

        assertThat(SNAPSHOT_FILE_V2_HEX).startsWith("07080218");
        assertThat(read(unhex(SNAPSHOT_FILE_V2_HEX))).isEqualTo(new SnapshotCodec.Snapshot(0, 2L, 1234L, records));
        assertThat(hex(write(0, 2L, 1234L, records))).isEqualTo(SNAPSHOT_FILE_V2_HEX);
    }

    @Test
    void testGroupSettingsInAVersion2FileAreRefused() throws IOException {
        byte[] file = frames(header(2), SnapshotCodec.toProto(GOLDEN_GROUP_SETTINGS_VALUE),
                SnapshotTrailer.newBuilder().setRecordCount(1).build());

        assertThatThrownBy(() -> read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("group settings in a file of format_version 2");
    }

    @Test
    void testGroupValueMatchesGoldenBytes() throws Exception {
        assertThat(hex(SnapshotCodec.toProto(GOLDEN_GROUP_VALUE).toByteArray())).isEqualTo(GROUP_VALUE_HEX);

        CoordinatorRecord decoded = SnapshotCodec.fromProto(SnapshotRecord.parseFrom(unhex(GROUP_VALUE_HEX)));
        assertThat(decoded).isEqualTo(GOLDEN_GROUP_VALUE);
        assertSameOrders(((CoordinatorRecord.GroupValue) decoded).group(), GOLDEN_GROUP);
    }

    @Test
    void testOffsetValueMatchesGoldenBytes() throws Exception {
        assertThat(hex(SnapshotCodec.toProto(GOLDEN_OFFSET_VALUE).toByteArray())).isEqualTo(OFFSET_VALUE_HEX);

        assertThat(SnapshotCodec.fromProto(SnapshotRecord.parseFrom(unhex(OFFSET_VALUE_HEX))))
                .isEqualTo(GOLDEN_OFFSET_VALUE);
    }

    @Test
    void testAclValueMatchesGoldenBytes() throws Exception {
        assertThat(hex(SnapshotCodec.toProto(GOLDEN_ACL_VALUE).toByteArray())).isEqualTo(ACL_VALUE_HEX);
        assertThat(SnapshotCodec.fromProto(SnapshotRecord.parseFrom(unhex(ACL_VALUE_HEX)))).isEqualTo(GOLDEN_ACL_VALUE);
    }

    @Test
    void testSnapshotFileMatchesGoldenBytes() throws IOException {
        List<CoordinatorRecord> records = List.of(GOLDEN_ACL_VALUE, GOLDEN_OFFSET_VALUE);

        assertThat(hex(write(0, 2L, 1234L, records))).isEqualTo(SNAPSHOT_FILE_V2_HEX);
        assertThat(read(unhex(SNAPSHOT_FILE_V2_HEX))).isEqualTo(new SnapshotCodec.Snapshot(0, 2L, 1234L, records));
    }

    @Test
    void testVersion1SnapshotFileStillReads() throws IOException {
        List<CoordinatorRecord> records = List.of(GOLDEN_GROUP_VALUE, GOLDEN_OFFSET_VALUE);

        // The header's format_version is 1 (bytes 0908 01...): the file predates ACL records.
        assertThat(SNAPSHOT_FILE_HEX).startsWith("09080110");
        assertThat(read(unhex(SNAPSHOT_FILE_HEX))).isEqualTo(new SnapshotCodec.Snapshot(7, 2L, 1234L, records));
    }

    @Test
    void testGroupStatesHaveFixedNumbers() {
        assertThat(SnapshotCodec.toProto(ClassicGroupState.EMPTY).getNumber()).isEqualTo(1);
        assertThat(SnapshotCodec.toProto(ClassicGroupState.PREPARING_REBALANCE).getNumber()).isEqualTo(2);
        assertThat(SnapshotCodec.toProto(ClassicGroupState.COMPLETING_REBALANCE).getNumber()).isEqualTo(3);
        assertThat(SnapshotCodec.toProto(ClassicGroupState.STABLE).getNumber()).isEqualTo(4);
        assertThat(SnapshotCodec.toProto(ClassicGroupState.DEAD).getNumber()).isEqualTo(5);
    }

    // ----- group round trips ------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(ClassicGroupState.class)
    void testEveryStateRoundTrips(ClassicGroupState state) {
        ClassicGroup group = ClassicGroup.newEmpty("g", T0);
        ClassicGroup inState = new ClassicGroup("g", state, state, T0, 1, null, null, null, Map.of(), Map.of(), Set.of(),
                null, null, false, null);

        assertThat(roundTrip(inState)).isEqualTo(inState);
        assertThat(roundTrip(group)).isEqualTo(group);
    }

    @Test
    void testUnknownAndEmptySubscribedTopicsStayDistinct() {
        ClassicGroup unknown = withSubscribedTopics(null);
        ClassicGroup none = withSubscribedTopics(Set.of());

        assertThat(roundTrip(unknown).subscribedTopics()).isNull();
        assertThat(roundTrip(none).subscribedTopics()).isEmpty();
        assertThat(SnapshotCodec.digest(List.of(new CoordinatorRecord.GroupValue(unknown))))
                .isNotEqualTo(SnapshotCodec.digest(List.of(new CoordinatorRecord.GroupValue(none))));
    }

    @Test
    void testMemberOrderIsKept() {
        ClassicGroup reversed = new ClassicGroup("group-a", GOLDEN_GROUP.state(), GOLDEN_GROUP.previousState(),
                GOLDEN_GROUP.stateTimestampMs(), GOLDEN_GROUP.generationId(), GOLDEN_GROUP.protocolType(),
                GOLDEN_GROUP.protocolName(), GOLDEN_GROUP.leaderId(),
                members(GOLDEN_GROUP.member("client-1-a"), GOLDEN_GROUP.member("instance-2-b")),
                GOLDEN_GROUP.pendingMembers(), GOLDEN_GROUP.pendingSyncMembers(), GOLDEN_GROUP.subscribedTopics(),
                GOLDEN_GROUP.joinTimer(), GOLDEN_GROUP.newMemberAdded(), GOLDEN_GROUP.syncTimer());

        assertSameOrders(roundTrip(reversed), reversed);
        assertSameOrders(roundTrip(GOLDEN_GROUP), GOLDEN_GROUP);
        // ClassicGroup.equals ignores map order, the encoding (and so the digest) does not: join order elects.
        assertThat(reversed).isEqualTo(GOLDEN_GROUP);
        assertThat(SnapshotCodec.digest(List.of(new CoordinatorRecord.GroupValue(reversed))))
                .isNotEqualTo(SnapshotCodec.digest(List.of(GOLDEN_GROUP_VALUE)));
    }

    @Test
    void testInvalidGroupValuesAreRejected() {
        SnapshotRecord golden = SnapshotCodec.toProto(GOLDEN_GROUP_VALUE);
        SnapshotRecord noState = golden.toBuilder().setGroup(golden.getGroup().toBuilder()
                .setState(GroupStateProto.GROUP_STATE_UNSPECIFIED)).build();
        SnapshotRecord unknownState = golden.toBuilder().setGroup(golden.getGroup().toBuilder()
                .setPreviousStateValue(99)).build();
        SnapshotRecord duplicateMember = golden.toBuilder().setGroup(golden.getGroup().toBuilder()
                .addMembers(golden.getGroup().getMembers(0))).build();
        SnapshotRecord topicsWhileUnknown = golden.toBuilder().setGroup(golden.getGroup().toBuilder()
                .setSubscribedTopicsKnown(false)).build();

        assertThatThrownBy(() -> SnapshotCodec.fromProto(noState))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("no known state (number 0)");
        assertThatThrownBy(() -> SnapshotCodec.fromProto(unknownState))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("no known state (number 99)");
        assertThatThrownBy(() -> SnapshotCodec.fromProto(duplicateMember))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("member instance-2-b twice");
        assertThatThrownBy(() -> SnapshotCodec.fromProto(topicsWhileUnknown))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("marked unknown");
        assertThatThrownBy(() -> SnapshotCodec.fromProto(SnapshotRecord.getDefaultInstance()))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("unknown or empty type");
    }

    @Test
    void testTombstonesAreNotSnapshotRecords() {
        List<CoordinatorRecord> withTombstone = List.of(GOLDEN_GROUP_VALUE,
                new CoordinatorRecord.OffsetTombstone("group-a", "orders", 3));
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThatThrownBy(() -> SnapshotCodec.toProto(new CoordinatorRecord.GroupTombstone("g")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SnapshotCodec.write(out, 0, 1L, 1L, withTombstone))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("OffsetTombstone");
        assertThat(out.size()).as("nothing written").isZero();
    }

    // ----- whole snapshots from a real shard ----------------------------------------------------------

    @Test
    void testSnapshotOfRealShardRoundTripsAndRestores() throws IOException {
        GroupCoordinatorShard shard = ShardScenario.build();
        List<CoordinatorRecord> records = shard.snapshot();

        SnapshotCodec.Snapshot snapshot = read(write(3, 5L, 987L, records));

        assertThat(snapshot).isEqualTo(new SnapshotCodec.Snapshot(3, 5L, 987L, records));
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i) instanceof CoordinatorRecord.GroupValue expected) {
                assertSameOrders(((CoordinatorRecord.GroupValue) snapshot.records().get(i)).group(), expected.group());
            }
        }
        GroupCoordinatorShard restored = new GroupCoordinatorShard(ShardScenario.CONFIG);
        restored.restore(snapshot.records());
        assertThat(write(3, 5L, 987L, restored.snapshot())).isEqualTo(write(3, 5L, 987L, records));
        assertThat(SnapshotCodec.digest(restored.snapshot())).isEqualTo(SnapshotCodec.digest(records));
    }

    @Test
    void testRealShardSnapshotCoversAnInFlightRebalance() {
        GroupCoordinatorShard shard = ShardScenario.build();

        assertThat(shard.group("alpha").state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(shard.group("alpha").subscribedTopics()).containsExactly("orders", "payments");
        assertThat(shard.group("beta").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(shard.group("beta").syncTimer()).isNotNull();
        assertThat(shard.group("beta").pendingSyncMembers()).isNotEmpty();
        assertThat(shard.group("gamma").state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(shard.group("gamma").joinTimer()).isNotNull();
        assertThat(shard.group("gamma").pendingMembers()).isNotEmpty();
        assertThat(shard.offsetCount()).isGreaterThanOrEqualTo(6);
    }

    @Test
    void testWriteIsDeterministic() throws IOException {
        List<CoordinatorRecord> records = ShardScenario.build().snapshot();
        List<CoordinatorRecord> replicaRecords = ShardScenario.build().snapshot();

        byte[] first = write(1, 2L, 3L, records);
        assertThat(write(1, 2L, 3L, records)).isEqualTo(first);
        assertThat(write(1, 2L, 3L, replicaRecords)).as("a replica fed the same log").isEqualTo(first);
    }

    @Test
    void testDigestComparesStates() {
        List<CoordinatorRecord> records = ShardScenario.build().snapshot();
        List<CoordinatorRecord> replica = ShardScenario.build().snapshot();
        List<CoordinatorRecord> oneOffsetDiffers = new ArrayList<>(records);
        int last = oneOffsetDiffers.size() - 1;
        CoordinatorRecord.OffsetValue offset = (CoordinatorRecord.OffsetValue) oneOffsetDiffers.get(last);
        OffsetAndMetadata value = offset.value();
        oneOffsetDiffers.set(last, new CoordinatorRecord.OffsetValue(offset.groupId(), offset.topic(),
                offset.partition(), new OffsetAndMetadata(value.offset() + 1, value.leaderEpoch(), value.metadata(),
                value.commitTimestampMs(), value.expireTimestampMs())));

        String digest = SnapshotCodec.digest(records);
        assertThat(digest).matches("[0-9a-f]{64}");
        assertThat(SnapshotCodec.digest(replica)).isEqualTo(digest);
        assertThat(SnapshotCodec.digest(oneOffsetDiffers)).isNotEqualTo(digest);
        assertThat(SnapshotCodec.digest(List.of())).isNotEqualTo(digest);
    }

    @Test
    void testEmptySnapshotRoundTrips() throws IOException {
        assertThat(read(write(0, 0L, 0L, List.of()))).isEqualTo(new SnapshotCodec.Snapshot(0, 0L, 0L, List.of()));
    }

    // ----- corrupt files ----------------------------------------------------------------------------

    @Test
    void testEveryTruncationIsDetected() throws IOException {
        byte[] file = write(3, 5L, 987L, ShardScenario.build().snapshot());

        for (int length = 0; length < file.length; length++) {
            byte[] truncated = Arrays.copyOf(file, length);
            assertThatThrownBy(() -> read(truncated)).as("truncated to %d of %d bytes", length, file.length)
                    .isInstanceOf(IOException.class)
                    .hasMessageMatching("(?s)Snapshot (is empty|is truncated|header is corrupt).*");
        }
    }

    @Test
    void testWrongTrailerCountIsDetected() throws IOException {
        byte[] tooMany = frames(header(1), SnapshotCodec.toProto(GOLDEN_GROUP_VALUE),
                SnapshotCodec.toProto(GOLDEN_OFFSET_VALUE), SnapshotTrailer.newBuilder().setRecordCount(3).build());
        byte[] tooFew = frames(header(1), SnapshotCodec.toProto(GOLDEN_GROUP_VALUE),
                SnapshotCodec.toProto(GOLDEN_OFFSET_VALUE), SnapshotTrailer.newBuilder().setRecordCount(1).build());

        assertThatThrownBy(() -> read(tooMany)).isInstanceOf(IOException.class)
                .hasMessage("Snapshot is corrupt: its trailer counts 3 records but 2 were read");
        assertThatThrownBy(() -> read(tooFew)).isInstanceOf(IOException.class)
                .hasMessage("Snapshot is corrupt: its trailer counts 1 records but 2 were read");
    }

    @Test
    void testMissingTrailerAfterWholeRecordIsDetected() throws IOException {
        byte[] noTrailer = frames(header(1), SnapshotCodec.toProto(GOLDEN_GROUP_VALUE),
                SnapshotCodec.toProto(GOLDEN_OFFSET_VALUE));

        assertThatThrownBy(() -> read(noTrailer)).isInstanceOf(IOException.class)
                .hasMessageContaining("ends after 1 records").hasMessageContaining("without a trailer");
    }

    @Test
    void testBytesAfterTheTrailerAreDetected() throws IOException {
        byte[] file = write(0, 1L, 1L, List.of(GOLDEN_OFFSET_VALUE));
        byte[] withGarbage = Arrays.copyOf(file, file.length + 2);
        withGarbage[file.length] = 1;
        withGarbage[file.length + 1] = 0x08;

        assertThatThrownBy(() -> read(withGarbage)).isInstanceOf(IOException.class)
                .hasMessageContaining("Snapshot record 1 is corrupt");
    }

    @Test
    void testUnknownFormatVersionIsRejected() throws IOException {
        byte[] version5 = frames(header(5), SnapshotTrailer.getDefaultInstance());
        byte[] version0 = frames(header(0), SnapshotTrailer.getDefaultInstance());

        assertThatThrownBy(() -> read(version5)).isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown snapshot format_version 5");
        assertThatThrownBy(() -> read(version0)).isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown snapshot format_version 0");
    }

    // ----- helpers ------------------------------------------------------------------------------------

    private static ClassicGroup roundTrip(ClassicGroup group) {
        return SnapshotCodec.fromProto(SnapshotCodec.toProto(group));
    }

    /** What ClassicGroup.equals does not check: the order of members, pending members and pending syncs. */
    private static void assertSameOrders(ClassicGroup actual, ClassicGroup expected) {
        assertThat(actual.members().keySet()).containsExactlyElementsOf(expected.members().keySet());
        assertThat(actual.pendingMembers().keySet()).containsExactlyElementsOf(expected.pendingMembers().keySet());
        assertThat(actual.pendingSyncMembers()).containsExactlyElementsOf(expected.pendingSyncMembers());
    }

    private static ClassicGroup withSubscribedTopics(Set<String> topics) {
        return new ClassicGroup("g", ClassicGroupState.EMPTY, ClassicGroupState.PREPARING_REBALANCE, T0, 2, "consumer",
                null, null, Map.of(), Map.of(), Set.of(), topics, null, false, null);
    }

    private static Map<String, ClassicGroupMember> members(ClassicGroupMember... members) {
        Map<String, ClassicGroupMember> byId = new LinkedHashMap<>();
        for (ClassicGroupMember member : members) {
            byId.put(member.memberId(), member);
        }
        return byId;
    }

    private static SnapshotHeader header(int formatVersion) {
        return SnapshotHeader.newBuilder().setFormatVersion(formatVersion).setPartition(0).setTerm(1).setIndex(1)
                .build();
    }

    /** Length-delimited messages back to back, as a snapshot file frames them. */
    private static byte[] frames(MessageLite... messages) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        for (MessageLite message : messages) {
            coded.writeUInt32NoTag(message.getSerializedSize());
            message.writeTo(coded);
        }
        coded.flush();
        return out.toByteArray();
    }

    static byte[] write(int partition, long term, long index, List<CoordinatorRecord> records) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SnapshotCodec.write(out, partition, term, index, records);
        return out.toByteArray();
    }

    static SnapshotCodec.Snapshot read(byte[] file) throws IOException {
        return SnapshotCodec.read(new ByteArrayInputStream(file));
    }

    private static byte[] unhex(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    /**
     * Builds a shard's state by applying commands, each through the log codec as a replica would:
     * a Stable consumer group with committed offsets, a static group waiting for its leader's
     * assignment, a group in its initial join phase with a pending member, and a simple group.
     */
    static final class ShardScenario {
        static final GroupConfig CONFIG = GroupConfig.defaults();

        private final GroupCoordinatorShard shard = new GroupCoordinatorShard(CONFIG);
        private long nowMs = T0;

        static GroupCoordinatorShard build() {
            ShardScenario s = new ShardScenario();
            s.apply(join("alpha", "", null, "client-1", "s1", (short) 3, subscription("orders", "payments")));
            s.apply(join("alpha", "", null, "client-2", "s2", (short) 3, subscription("orders")));
            s.completeJoinPhase("alpha");
            s.apply(new Command.SyncGroup("alpha", 1, "client-1-s1", null, "consumer", "range", List.of(
                    new Command.MemberAssignment("client-1-s1", bytes(1, 0, 0)),
                    new Command.MemberAssignment("client-2-s2", bytes(1, 0, 1)))));
            s.apply(new Command.SyncGroup("alpha", 1, "client-2-s2", null, null, null, List.of()));
            for (int partition = 0; partition < 4; partition++) {
                s.apply(commit("alpha", 1, "client-1-s1", "orders", partition, 100L * partition + 7, "m" + partition));
            }
            s.apply(commit("alpha", 1, "client-2-s2", "payments", 0, 55L, null));

            s.apply(join("beta", "", "beta-0", "client-b", "s3", (short) 9, subscription("audit")));
            s.completeJoinPhase("beta");

            s.apply(join("gamma", "", null, "client-3", "s4", (short) 4, subscription("orders")));
            s.apply(join("gamma", "", null, "client-4", "s5", (short) 3, Bytes.EMPTY));

            s.apply(new Command.OffsetCommit("simple", -1, "", null, 86_400_000L, List.of(new Command.TopicCommit(
                    "orders", List.of(new Command.PartitionCommit(0, 9L, -1, null),
                    new Command.PartitionCommit(1, 10L, 2, "")))), (short) 9));
            return s.shard;
        }

        private void apply(Command command) {
            applyAt(nowMs + 10, command);
        }

        private void applyAt(long leaderTimeMs, Command command) {
            nowMs = leaderTimeMs;
            LogCodec.DecodedEntry entry = LogCodec.decodeEntry(LogCodec.encodeEntry(nowMs, List.of(command)));
            for (Command decoded : entry.commands()) {
                shard.apply(decoded, entry.leaderTimeMs());
            }
        }

        /** Fires the group's join timer, at its deadline, until the join phase is over. */
        private void completeJoinPhase(String groupId) {
            for (int i = 0; i < 10 && shard.group(groupId).state() == ClassicGroupState.PREPARING_REBALANCE; i++) {
                long deadlineMs = shard.group(groupId).joinTimer().deadlineMs();
                applyAt(Math.max(nowMs, deadlineMs), new Command.FireJoinTimer(groupId, deadlineMs));
            }
            if (shard.group(groupId).state() != ClassicGroupState.COMPLETING_REBALANCE) {
                throw new AssertionError("join phase of " + groupId + " did not complete: " + shard.group(groupId));
            }
        }

        private static Command.JoinGroup join(String groupId, String memberId, String instanceId, String clientId,
                                              String suffix, short apiVersion, Bytes subscription) {
            return new Command.JoinGroup(groupId, memberId, instanceId, "consumer",
                    List.of(new Protocol("range", subscription), new Protocol("roundrobin", subscription)), 10_000,
                    60_000, clientId, "/10.0.0.1", null, apiVersion, suffix);
        }

        private static Command.OffsetCommit commit(String groupId, int generationId, String memberId, String topic,
                                                   int partition, long offset, String metadata) {
            return new Command.OffsetCommit(groupId, generationId, memberId, null, -1L, List.of(new Command.TopicCommit(
                    topic, List.of(new Command.PartitionCommit(partition, offset, 3, metadata)))), (short) 9);
        }

        /** A cohort.v1.ConsumerSubscription: field 1, repeated string topics. */
        private static Bytes subscription(String... topics) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (String topic : topics) {
                byte[] name = topic.getBytes(StandardCharsets.UTF_8);
                out.write(0x0a);
                out.write(name.length);
                out.writeBytes(name);
            }
            return Bytes.copyOf(out.toByteArray());
        }
    }
}
