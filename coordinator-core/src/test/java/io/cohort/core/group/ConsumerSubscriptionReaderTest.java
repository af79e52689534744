package io.cohort.core.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The hand-written reader of {@code cohort.v1.ConsumerSubscription} field 1 ({@code repeated string
 * topics}). The bytes are built by hand in the protobuf wire format: a tag is the varint
 * {@code field << 3 | wireType}; wire types 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
 */
class ConsumerSubscriptionReaderTest {

    /** Protobuf bytes written field by field. */
    private static final class Wire {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Wire varint(long value) {
            long v = value;
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
            return this;
        }

        Wire tag(int field, int wireType) {
            return varint(((long) field << 3) | wireType);
        }

        Wire raw(int... bytes) {
            for (int b : bytes) {
                out.write(b);
            }
            return this;
        }

        Wire bytesField(int field, byte[] value) {
            tag(field, 2).varint(value.length);
            out.write(value, 0, value.length);
            return this;
        }

        Wire string(int field, String value) {
            return bytesField(field, value.getBytes(StandardCharsets.UTF_8));
        }

        Bytes toBytes() {
            return Bytes.copyOf(out.toByteArray());
        }
    }

    private static Wire wire() {
        return new Wire();
    }

    private static Bytes bytes(int... values) {
        return wire().raw(values).toBytes();
    }

    @Test
    @DisplayName("topics (field 1) are read in order; no bytes is an empty subscription")
    void testTopicsParsed() {
        assertThat(ConsumerSubscriptionReader.topics(Bytes.EMPTY)).isEmpty();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x0a, 0x03, 'f', 'o', 'o'))).containsExactly("foo");
        assertThat(ConsumerSubscriptionReader.topics(wire().string(1, "foo").string(1, "bar").string(1, "foo")
                .toBytes())).containsExactly("foo", "bar", "foo");
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x0a, 0x00))).containsExactly("");
        assertThat(ConsumerSubscriptionReader.topics(wire().string(1, "tópico-日本").toBytes()))
                .containsExactly("tópico-日本");
        // A name longer than 127 bytes has a two-byte length.
        String longName = "t".repeat(300);
        assertThat(ConsumerSubscriptionReader.topics(wire().string(1, longName).toBytes())).containsExactly(longName);
    }

    @Test
    @DisplayName("every other field is skipped: varint, fixed32, fixed64, bytes and nested messages")
    void testOtherFieldsSkipped() {
        byte[] ownedPartitions = wire().string(1, "owned-topic").tag(2, 0).varint(3).tag(2, 0).varint(4)
                .out.toByteArray();
        Bytes subscription = wire()
                .string(1, "foo")
                .bytesField(2, new byte[] {0x0a, 0x03, 'x', 'y', 'z'}) // user_data that looks like a topic
                .bytesField(3, ownedPartitions)                       // nested TopicPartitions with a field 1
                .tag(4, 0).varint(-1L)                                // generation_id -1: a ten-byte varint
                .string(5, "rack-a")
                .tag(6, 5).raw(1, 2, 3, 4)                            // an unknown fixed32
                .tag(7, 1).raw(1, 2, 3, 4, 5, 6, 7, 8)                // an unknown fixed64
                .tag(16, 0).varint(300)                               // a two-byte tag
                .string(1, "bar")
                .toBytes();

        assertThat(ConsumerSubscriptionReader.topics(subscription)).containsExactly("foo", "bar");
    }

    @Test
    @DisplayName("truncated bytes are malformed: null")
    void testTruncated() {
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x0a, 0x05, 'a', 'b'))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x0a))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x80))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x20, 0x80))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x35, 1, 2, 3))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x39, 1, 2, 3, 4, 5, 6, 7))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(wire().string(1, "foo").raw(0x0a, 0x02, 'b').toBytes())).isNull();
    }

    @Test
    @DisplayName("a length beyond the bytes, or one that does not fit, is malformed: null")
    void testBadLength() {
        assertThat(ConsumerSubscriptionReader.topics(wire().tag(1, 2).varint(0xFFFF_FFFFL).raw('a').toBytes()))
                .isNull();
        assertThat(ConsumerSubscriptionReader.topics(wire().tag(1, 2).varint(-1L).raw('a').toBytes())).isNull();
    }

    @Test
    @DisplayName("a varint longer than ten bytes is malformed: null")
    void testOverlongVarint() {
        assertThat(ConsumerSubscriptionReader.topics(
                bytes(0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01))).isNull();
    }

    @Test
    @DisplayName("wire types 3, 4, 6 and 7 are malformed: null")
    void testBadWireType() {
        for (int wireType : new int[] {3, 4, 6, 7}) {
            assertThat(ConsumerSubscriptionReader.topics(wire().tag(1, wireType).raw(0, 0, 0, 0, 0, 0, 0, 0)
                    .toBytes())).as("wire type %s", wireType).isNull();
        }
        // Also after a valid topic: the whole subscription is unknown, not a partial one.
        assertThat(ConsumerSubscriptionReader.topics(wire().string(1, "foo").tag(2, 3).toBytes())).isNull();
    }

    @Test
    @DisplayName("field number 0 is malformed: null")
    void testFieldZero() {
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x00, 0x01))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x02, 0x01, 'a'))).isNull();
    }

    @Test
    @DisplayName("a topic that is not valid UTF-8 is malformed: null")
    void testInvalidUtf8() {
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x0a, 0x02, 0xc3, 0x28))).isNull();
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x0a, 0x01, 0xff))).isNull();
        // Invalid UTF-8 outside field 1 is just skipped bytes.
        assertThat(ConsumerSubscriptionReader.topics(bytes(0x12, 0x01, 0xff, 0x0a, 0x01, 'a'))).containsExactly("a");
    }

    @Test
    @DisplayName("the test context's default metadata (the UTF-8 of \"range\") is not a ConsumerSubscription")
    void testForeignBytes() {
        assertThat(ConsumerSubscriptionReader.topics(Bytes.copyOf("range".getBytes(StandardCharsets.UTF_8))))
                .isNull();
    }
}
