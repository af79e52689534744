package io.cohort.raft.backup;

import com.google.protobuf.InvalidProtocolBufferException;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.raft.backup.proto.BackupHeader;
import io.cohort.raft.backup.proto.BackupPartitionHeader;
import io.cohort.raft.log.SnapshotCodec;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The backup file of {@code cohort snapshot save}: every partition's state at one applied index
 * each, in one checksummed file. Layout (integers big-endian):
 * <pre>
 *   "COHORTBK"                         8 bytes, the magic
 *   format version                     int32 ({@link #FORMAT_VERSION})
 *   header length, BackupHeader        int32, protobuf bytes (cluster id, P, RF, settings)
 *   for each partition 0..P-1:
 *     length, BackupPartitionHeader    int32, protobuf bytes (partition, term, index, snapshot
 *                                      format version, snapshot_bytes)
 *     snapshot                         snapshot_bytes bytes: the partition's snapshot file
 *                                      (SnapshotCodec), exactly as the node wrote it
 *   "COHORTSH" + SHA-256               8 + 32 bytes: the digest of every byte before the digest
 * </pre>
 * In every version the file ends with the 32-byte SHA-256 of everything before it, so a reader
 * checks the whole file before it trusts any field: a truncated or corrupted file is refused with
 * one message before anything is restored. The snapshots are the nodes' own snapshot files, so the
 * snapshot format versions (and their golden-bytes tests) apply inside; a restore refuses a
 * snapshot version newer than the build reads.
 */
public final class BackupFile {
    /** The first 8 bytes of every backup file. */
    public static final byte[] MAGIC = "COHORTBK".getBytes(StandardCharsets.US_ASCII);
    /** Marks the trailer; the 32 bytes after it are the file's SHA-256. */
    public static final byte[] TRAILER_MAGIC = "COHORTSH".getBytes(StandardCharsets.US_ASCII);
    /** The backup format version this build writes and the newest it reads. */
    public static final int FORMAT_VERSION = 1;
    static final int DIGEST_BYTES = 32;
    static final int TRAILER_BYTES = TRAILER_MAGIC.length + DIGEST_BYTES;
    /** A header larger than this is corrupt (settings and ids are small). */
    static final int MAX_HEADER_BYTES = 1 << 20;

    private BackupFile() {
    }

    /** A backup file that is not one, is corrupt or truncated, or is of a newer format. */
    public static final class BackupFormatException extends IOException {
        private static final long serialVersionUID = 1L;

        public BackupFormatException(String message) {
            super(message);
        }

        BackupFormatException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** One partition's section, checked and counted. */
    public record Partition(BackupPartitionHeader header, long dataOffset, int groups, int offsets, int acls) {
        public int index() {
            return header.getPartitionIndex();
        }
    }

    /** A checked backup file. */
    public record Contents(Path file, int formatVersion, BackupHeader header, List<Partition> partitions,
                           String sha256, long fileBytes) {
        public Contents {
            partitions = List.copyOf(partitions);
        }
    }

    /**
     * Reads and checks the whole file: the magic, the SHA-256 over everything, the format version,
     * every header, and every partition's snapshot (decoded, its partition, term and index compared
     * with its section header). Throws {@link BackupFormatException} with what is wrong.
     */
    public static Contents read(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < MAGIC.length || !Arrays.equals(readAt(channel, 0, MAGIC.length), MAGIC)) {
                throw new BackupFormatException(file + " is not a Cohort backup file (it does not start with "
                        + "\"COHORTBK\")");
            }
            if (size < MAGIC.length + 4 + 4 + TRAILER_BYTES) {
                throw new BackupFormatException(file + " is truncated (" + size + " bytes): refusing it");
            }
            String sha256 = verifyDigest(file, channel, size);
            int version = ByteBuffer.wrap(readAt(channel, MAGIC.length, 4)).getInt();
            if (version > FORMAT_VERSION) {
                throw new BackupFormatException(file + " has backup format version " + version + ", newer than this"
                        + " build reads (" + FORMAT_VERSION + "): use the Cohort release that wrote it, or a newer one");
            }
            if (version < 1) {
                throw new BackupFormatException(file + " has an invalid backup format version " + version);
            }
            return readSections(file, channel, size, version, sha256);
        }
    }

    private static String verifyDigest(Path file, FileChannel channel, long size) throws IOException {
        long digested = size - DIGEST_BYTES;
        MessageDigest sha256 = newSha256();
        ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        long position = 0;
        while (position < digested) {
            buffer.clear();
            buffer.limit((int) Math.min(buffer.capacity(), digested - position));
            int read = channel.read(buffer, position);
            if (read < 0) {
                throw new EOFException(file + " shrank while being read");
            }
            buffer.flip();
            sha256.update(buffer);
            position += read;
        }
        byte[] actual = sha256.digest();
        byte[] stored = readAt(channel, digested, DIGEST_BYTES);
        byte[] trailerMagic = readAt(channel, size - TRAILER_BYTES, TRAILER_MAGIC.length);
        if (!Arrays.equals(actual, stored) || !Arrays.equals(trailerMagic, TRAILER_MAGIC)) {
            throw new BackupFormatException(file + " is corrupt or truncated: its SHA-256 does not match the one"
                    + " it ends with (" + size + " bytes); nothing was restored from it");
        }
        return HexFormat.of().formatHex(actual);
    }

    private static Contents readSections(Path file, FileChannel channel, long size, int version, String sha256)
            throws IOException {
        long end = size - TRAILER_BYTES;
        long position = MAGIC.length + 4;
        byte[] headerBytes = frame(file, channel, position, end, "header");
        position += 4 + headerBytes.length;
        BackupHeader header;
        try {
            header = BackupHeader.parseFrom(headerBytes);
        } catch (InvalidProtocolBufferException e) {
            throw new BackupFormatException(file + ": the backup header is corrupt: " + e.getMessage(), e);
        }
        if (header.getPartitionCount() < 1 || header.getClusterId().isEmpty()) {
            throw new BackupFormatException(file + ": the backup header names no cluster or no partitions");
        }
        List<Partition> partitions = new ArrayList<>();
        for (int p = 0; p < header.getPartitionCount(); p++) {
            byte[] sectionBytes = frame(file, channel, position, end, "header of partition " + p);
            position += 4 + sectionBytes.length;
            BackupPartitionHeader section;
            try {
                section = BackupPartitionHeader.parseFrom(sectionBytes);
            } catch (InvalidProtocolBufferException e) {
                throw new BackupFormatException(file + ": the header of partition " + p + " is corrupt", e);
            }
            if (section.getPartitionIndex() != p || section.getSnapshotBytes() < 0
                    || section.getSnapshotBytes() > end - position) {
                throw new BackupFormatException(file + ": section " + p + " is inconsistent (partition "
                        + section.getPartitionIndex() + ", " + section.getSnapshotBytes() + " bytes)");
            }
            partitions.add(checkSnapshot(file, channel, position, section));
            position += section.getSnapshotBytes();
        }
        if (position != end) {
            throw new BackupFormatException(file + ": " + (end - position) + " unexpected bytes after the last"
                    + " partition");
        }
        return new Contents(file, version, header, partitions, sha256, size);
    }

    /** Decodes one partition's snapshot and checks it belongs where its section says. */
    private static Partition checkSnapshot(Path file, FileChannel channel, long offset, BackupPartitionHeader section)
            throws IOException {
        SnapshotCodec.Snapshot snapshot;
        try (InputStream in = openRange(channel, offset, section.getSnapshotBytes())) {
            snapshot = SnapshotCodec.read(in);
        } catch (IOException e) {
            throw new BackupFormatException(file + ": the snapshot of partition " + section.getPartitionIndex()
                    + " cannot be read by this build: " + e.getMessage(), e);
        }
        if (snapshot.partition() != section.getPartitionIndex() || snapshot.term() != section.getTerm()
                || snapshot.index() != section.getAppliedIndex()) {
            throw new BackupFormatException(file + ": the snapshot in section " + section.getPartitionIndex()
                    + " is of partition " + snapshot.partition() + " at term " + snapshot.term() + " index "
                    + snapshot.index() + ", not what its header says");
        }
        int groups = 0;
        int offsets = 0;
        int acls = 0;
        for (CoordinatorRecord record : snapshot.records()) {
            if (record instanceof CoordinatorRecord.GroupValue) {
                groups++;
            } else if (record instanceof CoordinatorRecord.OffsetValue) {
                offsets++;
            } else if (record instanceof CoordinatorRecord.AclValue) {
                acls++;
            }
        }
        return new Partition(section, offset, groups, offsets, acls);
    }

    /**
     * An input stream over {@code length} bytes of {@code file} from {@code offset}: one partition's
     * snapshot, for a restore (the caller closes it).
     */
    public static InputStream openSnapshot(Contents contents, Partition partition) throws IOException {
        FileChannel channel = FileChannel.open(contents.file(), StandardOpenOption.READ);
        return new BufferedInputStream(new BoundedStream(Channels.newInputStream(channel.position(
                partition.dataOffset())), partition.header().getSnapshotBytes()), 1 << 16) {
            @Override
            public void close() throws IOException {
                super.close();
                channel.close();
            }
        };
    }

    private static InputStream openRange(FileChannel channel, long offset, long length) {
        // Positional reads: the stream does not move the channel's position (nor close it).
        return new BufferedInputStream(new InputStream() {
            private long position = offset;
            private final long end = offset + length;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (position >= end) {
                    return -1;
                }
                int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - position)), position);
                if (n > 0) {
                    position += n;
                }
                return n;
            }
        }, 1 << 16);
    }

    private static byte[] frame(Path file, FileChannel channel, long position, long end, String what)
            throws IOException {
        if (end - position < 4) {
            throw new BackupFormatException(file + ": the " + what + " is missing");
        }
        int length = ByteBuffer.wrap(readAt(channel, position, 4)).getInt();
        if (length < 0 || length > MAX_HEADER_BYTES || length > end - position - 4) {
            throw new BackupFormatException(file + ": the " + what + " has an invalid length " + length);
        }
        return readAt(channel, position + 4, length);
    }

    static byte[] readAt(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new EOFException("unexpected end of file at byte " + (position + buffer.position()));
            }
        }
        return buffer.array();
    }

    static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
    }

    /** Reads at most {@code remaining} bytes of the stream it wraps. */
    private static final class BoundedStream extends java.io.FilterInputStream {
        private long remaining;

        BoundedStream(InputStream in, long remaining) {
            super(in);
            this.remaining = remaining;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = super.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = super.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }
    }

    /** For tests: the digest a file of these bytes must end with. */
    static byte[] digestOf(byte[] bytes, int length) {
        MessageDigest sha256 = newSha256();
        sha256.update(bytes, 0, length);
        return sha256.digest();
    }
}
