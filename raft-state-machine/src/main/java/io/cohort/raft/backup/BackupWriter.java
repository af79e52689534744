package io.cohort.raft.backup;

import io.cohort.raft.backup.proto.BackupHeader;
import io.cohort.raft.backup.proto.BackupPartitionHeader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;

/**
 * Writes a {@link BackupFile} to {@code FILE.tmp} as the partitions arrive, and renames it to
 * {@code FILE} only once it is complete, synced and read back whole ({@link BackupFile#read}): a
 * save that fails or is interrupted never leaves a file under the final name. A partition whose
 * transfer broke off is rolled back ({@link #abortPartition}) and can be sent again.
 */
public final class BackupWriter implements Closeable {
    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private int partitionCount = -1;
    private int nextPartition;
    /** Where the open partition's section starts (rollback point), or -1 if none is open. */
    private long sectionStart = -1;
    private long dataRemaining;
    private boolean finished;

    private BackupWriter(Path target) throws IOException {
        this.target = target;
        this.temp = target.resolveSibling(target.getFileName() + ".tmp");
        this.channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE, StandardOpenOption.READ);
        ByteBuffer start = ByteBuffer.allocate(BackupFile.MAGIC.length + 4);
        start.put(BackupFile.MAGIC).putInt(BackupFile.FORMAT_VERSION).flip();
        writeFully(start);
    }

    /** Starts a backup of {@code target} (written as {@code target.tmp} until {@link #finish}). */
    public static BackupWriter create(Path target) throws IOException {
        return new BackupWriter(target);
    }

    /** Writes the header; once, before the first partition. */
    public void header(BackupHeader header) throws IOException {
        if (partitionCount >= 0) {
            throw new IllegalStateException("the header is already written");
        }
        if (header.getPartitionCount() < 1) {
            throw new IllegalArgumentException("a backup needs at least one partition");
        }
        partitionCount = header.getPartitionCount();
        writeFrame(header.toByteArray());
    }

    /** Whether the header is written. */
    public boolean hasHeader() {
        return partitionCount >= 0;
    }

    /** The partition the next section must be (they go in order, 0 first). */
    public int nextPartition() {
        return nextPartition;
    }

    /** Opens the section of the next partition; its {@code snapshot_bytes} bytes follow through {@link #write}. */
    public void beginPartition(BackupPartitionHeader section) throws IOException {
        if (partitionCount < 0 || sectionStart >= 0) {
            throw new IllegalStateException("beginPartition before the header, or inside another partition");
        }
        if (section.getPartitionIndex() != nextPartition) {
            throw new IllegalArgumentException("partition " + nextPartition + " comes next, not "
                    + section.getPartitionIndex());
        }
        sectionStart = channel.position();
        dataRemaining = section.getSnapshotBytes();
        writeFrame(section.toByteArray());
    }

    /** Appends snapshot bytes of the open partition. */
    public void write(ByteBuffer data) throws IOException {
        if (sectionStart < 0 || data.remaining() > dataRemaining) {
            throw new IllegalStateException("more snapshot bytes than the partition's header announced");
        }
        dataRemaining -= data.remaining();
        writeFully(data);
    }

    /** Closes the open partition; every announced byte must have been written. */
    public void endPartition() {
        if (sectionStart < 0 || dataRemaining != 0) {
            throw new IllegalStateException("the partition ends " + dataRemaining + " bytes short of its header");
        }
        sectionStart = -1;
        nextPartition++;
    }

    /** Forgets the open partition's bytes, so that it can be written again. */
    public void abortPartition() throws IOException {
        if (sectionStart >= 0) {
            channel.truncate(sectionStart);
            channel.position(sectionStart);
            sectionStart = -1;
        }
    }

    /**
     * Appends the trailer (the SHA-256 of everything before it), syncs, reads the file back whole,
     * and renames it to the target.
     *
     * @return the checked contents
     */
    public BackupFile.Contents finish() throws IOException {
        if (partitionCount < 0 || sectionStart >= 0 || nextPartition != partitionCount) {
            throw new IllegalStateException("the backup is incomplete: " + nextPartition + " of " + partitionCount
                    + " partitions written");
        }
        channel.write(ByteBuffer.wrap(BackupFile.TRAILER_MAGIC));
        long digested = channel.position();
        MessageDigest sha256 = BackupFile.newSha256();
        ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        for (long position = 0; position < digested; ) {
            buffer.clear();
            buffer.limit((int) Math.min(buffer.capacity(), digested - position));
            position += channel.read(buffer, position);
            buffer.flip();
            sha256.update(buffer);
        }
        writeFully(ByteBuffer.wrap(sha256.digest()));
        channel.force(true);
        channel.close();
        BackupFile.Contents contents = BackupFile.read(temp);
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        finished = true;
        return new BackupFile.Contents(target, contents.formatVersion(), contents.header(), contents.partitions(),
                contents.sha256(), contents.fileBytes());
    }

    /** Without {@link #finish}: deletes the temp file. */
    @Override
    public void close() throws IOException {
        if (channel.isOpen()) {
            channel.close();
        }
        if (!finished) {
            Files.deleteIfExists(temp);
        }
    }

    private void writeFrame(byte[] message) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(4 + message.length);
        frame.putInt(message.length).put(message).flip();
        writeFully(frame);
    }

    private void writeFully(ByteBuffer data) throws IOException {
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }
}
