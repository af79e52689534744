package io.cohort.raft.log;

import static io.cohort.raft.log.LogCodecGoldenTest.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.command.Command;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.ConsumerMemberMetadata;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.raft.log.proto.LogEntry;
import io.cohort.raft.log.proto.SnapshotRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden bytes of the KIP-848 consumer-group commands (log format 4, CommandProto fields 30-32) and
 * snapshot records (snapshot format 4, SnapshotRecord fields 30-36). The bytes were frozen from the
 * first encoding and their leading tags checked by hand: CommandProto field 30 is tag 0xf2 0x01, 31
 * is 0xfa 0x01, 32 is 0x82 0x02; SnapshotRecord fields 30-36 are 0xf2 0x01 ... 0xa2 0x02. A change to
 * any of these bytes is a format change.
 */
class ConsumerGroupCodecGoldenTest {
    static final long LEADER_TIME_MS = 1_700_000_000_000L;
    static final UUID FOO = new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
    static final TopicMetadata FOO_METADATA = new TopicMetadata(FOO, "foo", 2, List.of(List.of("r1"), List.of()));
    static final Assignment FOO_0_1 = Assignment.of(Map.of(FOO, List.of(0, 1)));

    static final ConsumerGroupHeartbeat HEARTBEAT = new ConsumerGroupHeartbeat("g", "m", 3, "i", "r", 60_000,
            List.of("foo"), "f.*", "uniform", FOO_0_1, "c", "h",
            new TopicLookup(new TreeMap<>(Map.of("foo", FOO_METADATA)), new TreeSet<>(Set.of("bar")),
                    new TreeMap<>(Map.of("f.*", new TreeSet<>(Set.of("foo"))))));
    static final ConsumerGroupHeartbeat HEARTBEAT_UNCHANGED_FIELDS = new ConsumerGroupHeartbeat("g", "m", 3, null,
            null, -1, null, null, null, null, "c", "h", TopicLookup.NONE);
    static final Command.ExpireConsumerMember EXPIRE = new Command.ExpireConsumerMember("g", "m");
    static final Command.FireConsumerRebalanceTimeout REBALANCE_TIMEOUT =
            new Command.FireConsumerRebalanceTimeout("g", "m", 7);

    static final String HEARTBEAT_HEX = "08041080d095ffbc311a8001f2017d0a016712016d18032201692a017230e0d40338014203666f6f"
            + "4a03662e2a5207756e69666f726d5a180a160a100102030405060708090a0b0c0d0e0f1012020001"
            + "6201636a016872340a210a100102030405060708090a0b0c0d0e0f101203666f6f180222040a0272"
            + "31220012036261721a0a0a03662e2a1203666f6f";
    static final String HEARTBEAT_UNCHANGED_FIELDS_HEX = "08041080d095ffbc311a1ef2011b0a016712016d180330ffffffffffffffffff016201636a016872"
            + "00";
    static final String EXPIRE_HEX = "08041080d095ffbc311a09fa01060a016712016d";
    static final String REBALANCE_TIMEOUT_HEX = "08041080d095ffbc311a0b8202080a016712016d1807";

    static Stream<Arguments> goldenCommands() {
        return Stream.of(
                Arguments.of(HEARTBEAT, HEARTBEAT_HEX),
                Arguments.of(HEARTBEAT_UNCHANGED_FIELDS, HEARTBEAT_UNCHANGED_FIELDS_HEX),
                Arguments.of(EXPIRE, EXPIRE_HEX),
                Arguments.of(REBALANCE_TIMEOUT, REBALANCE_TIMEOUT_HEX));
    }

    static final ConsumerMemberMetadata MEMBER_METADATA = new ConsumerMemberMetadata("i", "r", 60_000, "c", "h",
            new TreeSet<>(Set.of("foo")), "f.*", "range");

    static Stream<Arguments> goldenRecords() {
        return Stream.of(
                Arguments.of(new CoordinatorRecord.ConsumerGroupEpochValue("g", 5), "f201050a01671005"),
                Arguments.of(new CoordinatorRecord.ConsumerSubscriptionMetadataValue("g",
                        new TreeMap<>(Map.of("foo", FOO_METADATA))), "fa01260a016712210a100102030405060708090a0b0c0d0e0f101203666f6f180222040a02723122"
            + "00"),
                Arguments.of(new CoordinatorRecord.ConsumerRegexResolutionsValue("g",
                        new TreeMap<>(Map.of("f.*", new TreeSet<>(Set.of("foo"))))), "82020f0a0167120a0a03662e2a1203666f6f"),
                Arguments.of(new CoordinatorRecord.ConsumerAssignmentEpochValue("g", 4), "8a02050a01671004"),
                Arguments.of(new CoordinatorRecord.ConsumerMemberMetadataValue("g", "m", MEMBER_METADATA), "9202270a016712016d1a016922017228e0d4033201633a01684203666f6f4a03662e2a520572616e"
            + "6765"),
                Arguments.of(new CoordinatorRecord.ConsumerMemberMetadataValue("g", "m", new ConsumerMemberMetadata(
                        null, null, 1, "c", "h", new TreeSet<>(), null, null)), "92020e0a016712016d28013201633a0168"),
                Arguments.of(new CoordinatorRecord.ConsumerTargetAssignmentValue("g", "m", FOO_0_1), "9a02200a016712016d1a180a160a100102030405060708090a0b0c0d0e0f1012020001"),
                Arguments.of(new CoordinatorRecord.ConsumerCurrentAssignmentValue("g", "m",
                        new ConsumerMemberAssignment(4, 3, MemberState.UNREVOKED_PARTITIONS,
                                Assignment.of(Map.of(FOO, List.of(0))), Assignment.of(Map.of(FOO, List.of(1))))),
                        "a2023e0a016712016d18042003280132170a150a100102030405060708090a0b0c0d0e0f10120100"
            + "3a170a150a100102030405060708090a0b0c0d0e0f10120101"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenCommands")
    void testCommandEncodesAsGoldenBytesOfFormat4AndDecodesBack(Command command, String goldenHex) {
        assertThat(goldenHex).startsWith("0804");
        assertThat(hex(LogCodec.encodeEntry(LEADER_TIME_MS, List.of(command)))).isEqualTo(goldenHex);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(goldenHex)))
                .isEqualTo(new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(command), true));
    }

    /** The gate: a consumer-group command in an entry of format 1-3 is malformed, never skipped. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenCommands")
    void testCommandInAnOlderEntryIsRefused(Command command, String goldenHex) {
        for (String olderVersion : List.of("0801", "0802", "0803")) {
            String asOlder = olderVersion + goldenHex.substring(4);

            assertThatThrownBy(() -> LogCodec.decodeEntry(HexFormat.of().parseHex(asOlder)))
                    .isInstanceOf(LogFormatException.class).hasMessageContaining("since format_version 4");
        }
    }

    @Test
    void testBatchWithAConsumerGroupCommandIsFormat4AndOthersStayOlder() throws Exception {
        Command commit = LogCodecGoldenTest.OFFSET_COMMIT;
        byte[] mixed = LogCodec.encodeEntry(LEADER_TIME_MS, List.of(commit, HEARTBEAT, EXPIRE));

        assertThat(LogEntry.parseFrom(mixed).getFormatVersion()).isEqualTo(4);
        assertThat(LogCodec.decodeEntry(mixed).commands()).containsExactly(commit, HEARTBEAT, EXPIRE);
        assertThat(LogCodec.formatVersionOf(List.of(commit))).isEqualTo(2);
        assertThat(LogCodec.formatVersionOf(List.of(LogCodecGoldenTest.SET_GROUP_CONFIG))).isEqualTo(3);
        assertThat(LogCodec.MAX_READABLE_FORMAT_VERSION).isEqualTo(LogCodec.FORMAT_VERSION_KIP848).isEqualTo(4);
    }

    /** Entries of the formats before 4 still read: one golden entry of each older format. */
    @Test
    void testFormat1To3EntriesStillRead() {
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(LogCodecGoldenTest.OFFSET_COMMIT_HEX)).commands())
                .containsExactly(LogCodecGoldenTest.OFFSET_COMMIT);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(LogCodecGoldenTest.CREATE_ACLS_V2_HEX)).commands())
                .containsExactly(LogCodecGoldenTest.CREATE_ACLS);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(LogCodecGoldenTest.SET_GROUP_CONFIG_V3_HEX))
                .commands()).containsExactly(LogCodecGoldenTest.SET_GROUP_CONFIG);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenRecords")
    void testRecordEncodesAsGoldenBytesAndDecodesBack(CoordinatorRecord record, String goldenHex) throws Exception {
        assertThat(hex(SnapshotCodec.toProto(record).toByteArray())).isEqualTo(goldenHex);
        assertThat(SnapshotCodec.fromProto(SnapshotRecord.parseFrom(HexFormat.of().parseHex(goldenHex))))
                .isEqualTo(record);
    }

    @Test
    void testSnapshotWithConsumerGroupRecordsIsFormat4AndOlderSnapshotsKeepTheirFormat() throws IOException {
        List<CoordinatorRecord> records = goldenRecords().map(a -> (CoordinatorRecord) a.get()[0]).toList();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SnapshotCodec.write(out, 3, 2L, 99L, records);

        assertThat(out.toByteArray()[2]).as("header format_version").isEqualTo((byte) 4);
        assertThat(SnapshotCodec.read(new ByteArrayInputStream(out.toByteArray())).records()).isEqualTo(records);
        assertThat(SnapshotCodec.formatVersionOf(List.of(SnapshotCodecTest.GOLDEN_OFFSET_VALUE))).isEqualTo(2);
        assertThat(SnapshotCodec.formatVersionOf(List.of(SnapshotCodecTest.GOLDEN_GROUP_SETTINGS_VALUE))).isEqualTo(3);
    }

    @Test
    void testConsumerGroupRecordInAnOlderSnapshotIsRefused() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SnapshotCodec.write(out, 3, 2L, 99L, List.of(new CoordinatorRecord.ConsumerGroupEpochValue("g", 1)));
        byte[] bytes = out.toByteArray();
        bytes[2] = 3;

        assertThatThrownBy(() -> SnapshotCodec.read(new ByteArrayInputStream(bytes))).isInstanceOf(IOException.class)
                .hasMessageContaining("consumer-group record in a file of format_version 3");
    }

    @Test
    void testUnknownMemberStateReadsAsUnknownAndTombstonesAreNotSnapshotRecords() throws Exception {
        SnapshotRecord withFutureState = SnapshotRecord.parseFrom(HexFormat.of().parseHex(
                "a2020c0a016712016d180420032805"));
        CoordinatorRecord record = SnapshotCodec.fromProto(withFutureState);

        assertThat(((CoordinatorRecord.ConsumerCurrentAssignmentValue) record).assignment().state())
                .isEqualTo(MemberState.UNKNOWN);
        assertThatThrownBy(() -> SnapshotCodec.toProto(new CoordinatorRecord.ConsumerMemberTombstone("g", "m")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SnapshotCodec.toProto(new CoordinatorRecord.ConsumerGroupTombstone("g")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testShardSnapshotWithAConsumerGroupRoundTripsThroughTheFile() throws IOException {
        io.cohort.core.shard.GroupCoordinatorShard shard =
                new io.cohort.core.shard.GroupCoordinatorShard(io.cohort.core.GroupConfig.defaults());
        shard.restore(goldenRecords().map(a -> (CoordinatorRecord) a.get()[0]).toList());
        List<CoordinatorRecord> snapshot = shard.snapshot();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SnapshotCodec.write(out, 3, 2L, 99L, snapshot);

        io.cohort.core.shard.GroupCoordinatorShard restored =
                new io.cohort.core.shard.GroupCoordinatorShard(io.cohort.core.GroupConfig.defaults());
        restored.restore(SnapshotCodec.read(new ByteArrayInputStream(out.toByteArray())).records());

        assertThat(restored.consumerGroup("g")).isEqualTo(shard.consumerGroup("g"));
        assertThat(restored.consumerGroup("g").member("m").partitionsPendingRevocation())
                .isEqualTo(Assignment.of(Map.of(FOO, List.of(1))));
        assertThat(SnapshotCodec.digest(restored.snapshot())).isEqualTo(SnapshotCodec.digest(snapshot));
    }
}
