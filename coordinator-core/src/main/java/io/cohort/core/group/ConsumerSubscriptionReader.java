package io.cohort.core.group;

import io.cohort.core.Bytes;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the subscribed topics out of a "consumer" protocol subscription, the public API's
 * {@code cohort.v1.ConsumerSubscription} message, whose field 1 is {@code repeated string topics}.
 *
 * <p>Core may not depend on protobuf, and it needs only this one field (OffsetDelete's
 * GROUP_SUBSCRIBED_TO_TOPIC and offset expiry), so it walks the protobuf wire format itself and
 * skips every other field. Anything malformed yields null: "subscriptions unknown", which protects
 * the group's offsets, as Kafka does for unparsable metadata.
 */
public final class ConsumerSubscriptionReader {
    private static final int TOPICS_FIELD = 1;
    private static final int WIRE_VARINT = 0;
    private static final int WIRE_FIXED64 = 1;
    private static final int WIRE_LENGTH_DELIMITED = 2;
    private static final int WIRE_FIXED32 = 5;

    private ConsumerSubscriptionReader() {
    }

    /** The topics of a serialized ConsumerSubscription, or null if the bytes do not parse. */
    public static List<String> topics(Bytes subscription) {
        ByteBuffer buffer = subscription.asReadOnlyBuffer();
        List<String> topics = new ArrayList<>();
        try {
            while (buffer.hasRemaining()) {
                long tag = readVarint(buffer);
                int field = (int) (tag >>> 3);
                int wireType = (int) (tag & 7);
                if (field == 0) {
                    return null;
                }
                switch (wireType) {
                    case WIRE_VARINT -> readVarint(buffer);
                    case WIRE_FIXED64 -> skip(buffer, 8);
                    case WIRE_FIXED32 -> skip(buffer, 4);
                    case WIRE_LENGTH_DELIMITED -> {
                        long length = readVarint(buffer);
                        if (length < 0 || length > buffer.remaining()) {
                            return null;
                        }
                        ByteBuffer slice = buffer.slice();
                        slice.limit((int) length);
                        skip(buffer, (int) length);
                        if (field == TOPICS_FIELD) {
                            topics.add(StandardCharsets.UTF_8.newDecoder()
                                    .onMalformedInput(CodingErrorAction.REPORT)
                                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                                    .decode(slice).toString());
                        }
                    }
                    default -> {
                        return null;
                    }
                }
            }
        } catch (MalformedException | CharacterCodingException e) {
            return null;
        }
        return topics;
    }

    private static long readVarint(ByteBuffer buffer) throws MalformedException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (!buffer.hasRemaining()) {
                throw new MalformedException();
            }
            byte b = buffer.get();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new MalformedException();
    }

    private static void skip(ByteBuffer buffer, int count) throws MalformedException {
        if (count > buffer.remaining()) {
            throw new MalformedException();
        }
        buffer.position(buffer.position() + count);
    }

    private static final class MalformedException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedException() {
            super(null, null, false, false);
        }
    }
}
