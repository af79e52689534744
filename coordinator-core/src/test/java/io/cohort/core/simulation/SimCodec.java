package io.cohort.core.simulation;

import io.cohort.core.Bytes;
import io.cohort.core.offset.TopicPartition;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The simulated clients' side of the "consumer" protocol: subscriptions in the public
 * {@code cohort.v1.ConsumerSubscription} wire format (the one field the shard parses, plus fields it
 * must skip), assignments in a private format the shard treats as opaque, and the two assignors the
 * group leaders run. Written independently of core's reader, so the simulation checks it.
 */
final class SimCodec {
    /** The simulated cluster's topics and their partition counts. */
    static final SortedMap<String, Integer> PARTITIONS =
            Collections.unmodifiableSortedMap(new TreeMap<>(Map.of("t0", 1, "t1", 2, "t2", 3, "t3", 4)));
    static final List<String> TOPICS = List.copyOf(PARTITIONS.keySet());

    private static final int FIELD_TOPICS = 1;
    private static final int FIELD_USER_DATA = 2;
    private static final int FIELD_GENERATION = 4;
    private static final int WIRE_VARINT = 0;
    private static final int WIRE_LENGTH_DELIMITED = 2;

    private SimCodec() {
    }

    /** A decoded subscription: the topics and the user data (the simulation puts the protocol name there). */
    record Subscription(List<String> topics, String userData) {
    }

    /**
     * A ConsumerSubscription: {@code topics} (field 1), {@code user_data} (field 2, the protocol name, so
     * a leader can tell which protocol's metadata it got) and {@code generation_id} (field 4, -1 as a
     * ten-byte varint, which the shard's reader must skip).
     */
    static Bytes subscription(List<String> topics, String protocolName) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String topic : topics) {
            writeLengthDelimited(out, FIELD_TOPICS, topic.getBytes(StandardCharsets.UTF_8));
        }
        writeLengthDelimited(out, FIELD_USER_DATA, protocolName.getBytes(StandardCharsets.UTF_8));
        writeVarint(out, (FIELD_GENERATION << 3) | WIRE_VARINT);
        writeVarint(out, -1L);
        return Bytes.copyOf(out.toByteArray());
    }

    /** Parses what {@link #subscription} wrote; throws on anything else. */
    static Subscription parseSubscription(Bytes bytes) {
        byte[] data = bytes.toByteArray();
        int[] position = {0};
        List<String> topics = new ArrayList<>();
        String userData = null;
        while (position[0] < data.length) {
            long tag = readVarint(data, position);
            int field = (int) (tag >>> 3);
            int wireType = (int) (tag & 7);
            if (wireType == WIRE_VARINT) {
                readVarint(data, position);
            } else if (wireType == WIRE_LENGTH_DELIMITED) {
                int length = (int) readVarint(data, position);
                if (length < 0 || position[0] + length > data.length) {
                    throw new IllegalArgumentException("truncated field " + field + " in " + bytes);
                }
                String value = new String(data, position[0], length, StandardCharsets.UTF_8);
                position[0] += length;
                if (field == FIELD_TOPICS) {
                    topics.add(value);
                } else if (field == FIELD_USER_DATA) {
                    userData = value;
                }
            } else {
                throw new IllegalArgumentException("unexpected wire type " + wireType + " in " + bytes);
            }
        }
        return new Subscription(topics, userData);
    }

    private static void writeLengthDelimited(ByteArrayOutputStream out, int field, byte[] value) {
        writeVarint(out, (field << 3) | WIRE_LENGTH_DELIMITED);
        writeVarint(out, value.length);
        out.write(value, 0, value.length);
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
        long remaining = value;
        while ((remaining & ~0x7FL) != 0) {
            out.write((int) ((remaining & 0x7F) | 0x80));
            remaining >>>= 7;
        }
        out.write((int) remaining);
    }

    private static long readVarint(byte[] data, int[] position) {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position[0] >= data.length) {
                throw new IllegalArgumentException("truncated varint");
            }
            byte b = data[position[0]++];
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IllegalArgumentException("varint too long");
    }

    /** An assignment in the simulation's own format: count, then (topic, partition) pairs, sorted. */
    static Bytes assignment(List<TopicPartition> partitions) {
        List<TopicPartition> sorted = new ArrayList<>(new TreeSet<>(partitions));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(sorted.size());
            for (TopicPartition partition : sorted) {
                out.writeUTF(partition.topic());
                out.writeInt(partition.partition());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Bytes.copyOf(bytes.toByteArray());
    }

    /** Parses {@link #assignment}; empty bytes are an empty assignment. */
    static List<TopicPartition> parseAssignment(Bytes bytes) {
        if (bytes.isEmpty()) {
            return List.of();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            int count = in.readInt();
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                partitions.add(new TopicPartition(in.readUTF(), in.readInt()));
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("trailing bytes in assignment " + bytes);
            }
            return partitions;
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed assignment " + bytes, e);
        }
    }

    /**
     * The leader's assignor: every partition of every subscribed topic goes to exactly one subscriber.
     * "range" gives each topic's subscribers contiguous ranges; "roundrobin" deals all partitions out
     * in turn. Members are ordered by member id, so the result is deterministic.
     */
    static SortedMap<String, List<TopicPartition>> assign(String protocol, Map<String, List<String>> subscriptions) {
        SortedMap<String, List<TopicPartition>> result = new TreeMap<>();
        subscriptions.keySet().forEach(member -> result.put(member, new ArrayList<>()));
        SortedMap<String, List<String>> subscribersByTopic = new TreeMap<>();
        subscriptions.forEach((member, topics) -> topics.forEach(topic ->
                subscribersByTopic.computeIfAbsent(topic, t -> new ArrayList<>()).add(member)));
        subscribersByTopic.values().forEach(Collections::sort);
        if ("range".equals(protocol)) {
            subscribersByTopic.forEach((topic, members) -> {
                int count = PARTITIONS.getOrDefault(topic, 0);
                int perMember = count / members.size();
                int extra = count % members.size();
                for (int i = 0; i < members.size(); i++) {
                    int start = i * perMember + Math.min(i, extra);
                    int length = perMember + (i < extra ? 1 : 0);
                    for (int p = start; p < start + length; p++) {
                        result.get(members.get(i)).add(new TopicPartition(topic, p));
                    }
                }
            });
        } else {
            List<String> members = new ArrayList<>(result.keySet());
            int next = 0;
            for (Map.Entry<String, List<String>> entry : subscribersByTopic.entrySet()) {
                for (int p = 0; p < PARTITIONS.getOrDefault(entry.getKey(), 0); p++) {
                    while (!entry.getValue().contains(members.get(next % members.size()))) {
                        next++;
                    }
                    result.get(members.get(next % members.size())).add(new TopicPartition(entry.getKey(), p));
                    next++;
                }
            }
        }
        return result;
    }
}
