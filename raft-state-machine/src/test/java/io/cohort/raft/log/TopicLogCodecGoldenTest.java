package io.cohort.raft.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.raft.log.proto.LogEntry;
import io.cohort.raft.log.proto.SnapshotRecord;
import io.cohort.raft.log.proto.TopicValueProto;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden bytes of the topic registry's log commands (entry format 4) and snapshot record (snapshot
 * format 4), frozen as LogCodecGoldenTest and SnapshotCodecTest freeze the older ones; and the
 * rule that format-4 content never appears in an older entry or file, while older ones still read.
 */
class TopicLogCodecGoldenTest {
    static final long LEADER_TIME_MS = LogCodecGoldenTest.LEADER_TIME_MS;
    static final UUID ORDERS_ID = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);
    static final List<List<String>> ORDERS_RACKS = List.of(List.of("rack-a", "rack-b"), List.of("rack-c"));

    static final Command.CreateTopics CREATE_TOPICS = new Command.CreateTopics(List.of(
            new Command.NewTopic(ORDERS_ID, "orders", 2, ORDERS_RACKS),
            new Command.NewTopic(new UUID(1, 2), "audit", 1, List.of())), false);
    static final Command.AlterTopics ALTER_TOPICS = new Command.AlterTopics(List.of(
            new Command.TopicChange("orders", 3, List.of())), true);
    static final Command.DeleteTopics DELETE_TOPICS = new Command.DeleteTopics(List.of("orders", "audit"));
    static final CoordinatorRecord.TopicValue TOPIC_VALUE = new CoordinatorRecord.TopicValue(
            new TopicMetadata(ORDERS_ID, "orders", 2, ORDERS_RACKS));

    // Generated once by LogCodec.encodeEntry and frozen; checked by hand against the proto encoding:
    // 0x0804 = format_version 4, CommandProto field 20/21/22 = tags a201/aa01/b201.
    static final String CREATE_TOPICS_V4_HEX = "08041080d095ffbc311a5aa201570a380a100123456789abcdeffedcba98765432"
            + "1012066f7264657273180222100a067261636b2d610a067261636b2d6222080a067261636b2d630a1b0a1000000000000000"
            + "010000000000000002120561756469741801";
    static final String ALTER_TOPICS_V4_HEX = "08041080d095ffbc311a11aa010e0a0a0a066f726465727310031001";
    static final String DELETE_TOPICS_V4_HEX = "08041080d095ffbc311a12b2010f0a066f72646572730a056175646974";
    // SnapshotRecord field 20 (tag a201) holding a TopicValueProto.
    static final String TOPIC_VALUE_HEX = "a201380a100123456789abcdeffedcba987654321012066f7264657273180222100a06"
            + "7261636b2d610a067261636b2d6222080a067261636b2d63";

    static Stream<Arguments> goldenEntriesSinceVersion4() {
        return Stream.of(
                Arguments.of(CREATE_TOPICS, CREATE_TOPICS_V4_HEX),
                Arguments.of(ALTER_TOPICS, ALTER_TOPICS_V4_HEX),
                Arguments.of(DELETE_TOPICS, DELETE_TOPICS_V4_HEX));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntriesSinceVersion4")
    void testVersion4CommandsEncodeAndDecodeAsTheirGoldenBytes(Command command, String goldenV4Hex) {
        assertThat(goldenV4Hex).startsWith("0804");
        assertThat(hex(LogCodec.encodeEntry(LEADER_TIME_MS, List.of(command)))).isEqualTo(goldenV4Hex);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(goldenV4Hex)))
                .isEqualTo(new LogCodec.DecodedEntry(LEADER_TIME_MS, List.of(command), true));
    }

    /** A build that reads only 3 would skip the unknown command and diverge: such an entry is malformed. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenEntriesSinceVersion4")
    void testVersion4CommandsInAnOlderEntryAreRefused(Command command, String goldenV4Hex) {
        for (String olderVersion : List.of("0801", "0802", "0803")) {
            String asOlder = olderVersion + goldenV4Hex.substring(4);

            assertThatThrownBy(() -> LogCodec.decodeEntry(HexFormat.of().parseHex(asOlder)))
                    .isInstanceOf(LogFormatException.class).hasMessageContaining(command.getClass().getSimpleName())
                    .hasMessageContaining("since format_version 4");
        }
        byte[] mixed = LogCodec.encodeEntry(LEADER_TIME_MS, List.of(LogCodecGoldenTest.OFFSET_COMMIT, command,
                LogCodecGoldenTest.SET_GROUP_CONFIG));
        assertThat(LogCodec.formatVersionOf(List.of(LogCodecGoldenTest.OFFSET_COMMIT, command))).isEqualTo(4);
        assertThat(LogCodec.decodeEntry(mixed).commands()).containsExactly(LogCodecGoldenTest.OFFSET_COMMIT, command,
                LogCodecGoldenTest.SET_GROUP_CONFIG);
        assertThat(mixed[1]).isEqualTo((byte) 4);
    }

    /** Entries without a topic command keep their format, and the older golden entries still read. */
    @Test
    void testOlderEntriesAreStillWrittenAndReadAsBefore() {
        assertThat(LogCodec.MAX_READABLE_FORMAT_VERSION).isEqualTo(LogCodec.FORMAT_VERSION_KIP848).isEqualTo(4);
        assertThat(LogCodec.formatVersionOf(List.of(LogCodecGoldenTest.OFFSET_COMMIT, LogCodecGoldenTest.CREATE_ACLS)))
                .isEqualTo(2);
        assertThat(LogCodec.formatVersionOf(List.of(LogCodecGoldenTest.SET_GROUP_CONFIG))).isEqualTo(3);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(LogCodecGoldenTest.SET_GROUP_CONFIG_V3_HEX)).commands())
                .containsExactly(LogCodecGoldenTest.SET_GROUP_CONFIG);
        assertThat(LogCodec.decodeEntry(HexFormat.of().parseHex(LogCodecGoldenTest.CREATE_ACLS_V2_HEX)).commands())
                .containsExactly(LogCodecGoldenTest.CREATE_ACLS);
    }

    @Test
    void testTopicIdOfWrongLengthIsRejected() {
        LogEntry entry = LogEntry.newBuilder().setFormatVersion(4).setLeaderTimeMs(1L)
                .addCommands(LogCodec.toProto(CREATE_TOPICS).toBuilder()
                        .setCreateTopics(TopicCodec.toProto(CREATE_TOPICS).toBuilder().setTopics(0,
                                TopicCodec.toProto(CREATE_TOPICS).getTopics(0).toBuilder()
                                        .setTopicId(ByteString.copyFrom(new byte[15])))))
                .build();
        assertThatThrownBy(() -> LogCodec.decodeEntry(entry.toByteArray()))
                .isInstanceOf(LogFormatException.class).hasMessageContaining("15 bytes");
    }

    @Test
    void testTopicValueMatchesGoldenBytes() throws Exception {
        assertThat(hex(SnapshotCodec.toProto(TOPIC_VALUE).toByteArray())).isEqualTo(TOPIC_VALUE_HEX);
        assertThat(SnapshotCodec.fromProto(SnapshotRecord.parseFrom(HexFormat.of().parseHex(TOPIC_VALUE_HEX))))
                .isEqualTo(TOPIC_VALUE);
    }

    @Test
    void testSnapshotWithTopicsIsVersion4AndOthersKeepTheirVersion() throws IOException {
        List<CoordinatorRecord> records = List.of(SnapshotCodecTest.GOLDEN_ACL_VALUE, TOPIC_VALUE,
                SnapshotCodecTest.GOLDEN_OFFSET_VALUE);
        byte[] file = write(records);
        assertThat(file[2]).as("header format_version").isEqualTo((byte) 4);
        assertThat(SnapshotCodec.read(new ByteArrayInputStream(file)).records()).isEqualTo(records);

        assertThat(SnapshotCodec.formatVersionOf(List.of(SnapshotCodecTest.GOLDEN_GROUP_SETTINGS_VALUE))).isEqualTo(3);
        assertThat(SnapshotCodec.formatVersionOf(List.of(SnapshotCodecTest.GOLDEN_ACL_VALUE))).isEqualTo(2);
        assertThat(SnapshotCodec.read(new ByteArrayInputStream(HexFormat.of().parseHex(
                SnapshotCodecTest.SNAPSHOT_FILE_V3_HEX))).records()).hasSize(2);
        assertThat(SnapshotCodec.read(new ByteArrayInputStream(HexFormat.of().parseHex(
                SnapshotCodecTest.SNAPSHOT_FILE_V2_HEX))).records()).hasSize(2);
    }

    @Test
    void testTopicInAnOlderSnapshotFileIsRefused() throws IOException {
        byte[] file = write(List.of(TOPIC_VALUE));
        for (byte older : new byte[] {1, 2, 3}) {
            file[2] = older;
            assertThatThrownBy(() -> SnapshotCodec.read(new ByteArrayInputStream(file)))
                    .isInstanceOf(IOException.class).hasMessageContaining("a topic in a file of format_version " + older);
        }
    }

    @Test
    void testInvalidTopicValueIsRejected() {
        SnapshotRecord zeroPartitions = SnapshotRecord.newBuilder().setTopic(TopicValueProto.newBuilder()
                .setTopicId(TopicCodec.toProto(ORDERS_ID)).setName("orders").setPartitionCount(0)).build();
        assertThatThrownBy(() -> SnapshotCodec.fromProto(zeroPartitions)).isInstanceOf(LogFormatException.class);
    }

    private static byte[] write(List<CoordinatorRecord> records) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SnapshotCodec.write(out, 0, 2L, 1234L, records);
        return out.toByteArray();
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
