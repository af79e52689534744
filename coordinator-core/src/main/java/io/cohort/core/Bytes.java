package io.cohort.core;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string with value equality: protocol metadata and assignments are opaque bytes,
 * and records that carry them must compare equal on every replica.
 */
public final class Bytes implements Comparable<Bytes> {
    public static final Bytes EMPTY = new Bytes(new byte[0]);

    private final byte[] data;

    private Bytes(byte[] data) {
        this.data = data;
    }

    /** Copies {@code data}; null becomes {@link #EMPTY}. */
    public static Bytes copyOf(byte[] data) {
        if (data == null || data.length == 0) {
            return EMPTY;
        }
        return new Bytes(data.clone());
    }

    public byte[] toByteArray() {
        return data.clone();
    }

    public int size() {
        return data.length;
    }

    public boolean isEmpty() {
        return data.length == 0;
    }

    /** A read-only view for parsers inside core. */
    public java.nio.ByteBuffer asReadOnlyBuffer() {
        return java.nio.ByteBuffer.wrap(data).asReadOnlyBuffer();
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Bytes other && Arrays.equals(data, other.data));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    @Override
    public int compareTo(Bytes other) {
        return Arrays.compareUnsigned(data, other.data);
    }

    @Override
    public String toString() {
        return data.length <= 32 ? "0x" + HexFormat.of().formatHex(data) : "Bytes[" + data.length + "]";
    }
}
