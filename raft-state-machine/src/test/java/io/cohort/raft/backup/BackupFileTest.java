package io.cohort.raft.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.raft.backup.proto.BackupHeader;
import io.cohort.raft.backup.proto.BackupPartitionHeader;
import io.cohort.raft.backup.proto.BackupSetting;
import io.cohort.raft.log.SnapshotCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The backup file format: round trip, refusals, and the frozen bytes of its header. */
class BackupFileTest {
    @TempDir
    Path dir;

    private static final BackupHeader HEADER = BackupHeader.newBuilder()
            .setClusterId("golden")
            .setPartitionCount(2)
            .setReplicationFactor(3)
            .addClusterSettings(BackupSetting.newBuilder().setKey("group.max.size").setValue("10"))
            .addClusterSettings(BackupSetting.newBuilder().setKey("offsets.partitions").setValue("2"))
            .setCreatedAtMs(1_700_000_000_000L)
            .setCreatedBy("cohort test")
            .build();

    @Test
    void testRoundTripKeepsHeaderSectionsAndSnapshotBytes() throws IOException {
        byte[] p0 = snapshot(0, 3, 120, 5);
        byte[] p1 = snapshot(1, 4, 77, 0);
        Path file = write(List.of(p0, p1), new long[] {3, 4}, new long[] {120, 77});

        BackupFile.Contents contents = BackupFile.read(file);

        assertThat(contents.formatVersion()).isEqualTo(1);
        assertThat(contents.header()).isEqualTo(HEADER);
        assertThat(contents.partitions()).hasSize(2);
        assertThat(contents.partitions().get(0).header().getAppliedIndex()).isEqualTo(120);
        assertThat(contents.partitions().get(0).header().getTerm()).isEqualTo(3);
        assertThat(contents.partitions().get(0).groups()).isZero();
        assertThat(contents.partitions().get(0).offsets()).isEqualTo(5);
        assertThat(contents.partitions().get(1).offsets()).isZero();
        try (InputStream in = BackupFile.openSnapshot(contents, contents.partitions().get(0))) {
            assertThat(in.readAllBytes()).isEqualTo(p0);
        }
        try (InputStream in = BackupFile.openSnapshot(contents, contents.partitions().get(1))) {
            assertThat(in.readAllBytes()).isEqualTo(p1);
        }
        assertThat(contents.sha256()).hasSize(64);
        assertThat(Files.exists(file.resolveSibling(file.getFileName() + ".tmp"))).isFalse();
    }

    @Test
    void testCorruptByteIsRefusedAsCorrupt() throws IOException {
        Path file = write(List.of(snapshot(0, 3, 120, 5), snapshot(1, 4, 77, 2)), new long[] {3, 4},
                new long[] {120, 77});
        byte[] bytes = Files.readAllBytes(file);
        for (int position : new int[] {9, 40, bytes.length / 2, bytes.length - 40, bytes.length - 1}) {
            byte[] corrupt = bytes.clone();
            corrupt[position] ^= 0x01;
            Path copy = dir.resolve("corrupt-" + position);
            Files.write(copy, corrupt);
            assertThatThrownBy(() -> BackupFile.read(copy)).as("flipped bit at byte %d", position)
                    .isInstanceOf(BackupFile.BackupFormatException.class)
                    .hasMessageContaining("corrupt or truncated");
        }
    }

    @Test
    void testTruncatedFileIsRefused() throws IOException {
        Path file = write(List.of(snapshot(0, 3, 120, 5), snapshot(1, 4, 77, 2)), new long[] {3, 4},
                new long[] {120, 77});
        byte[] bytes = Files.readAllBytes(file);
        for (int length : new int[] {bytes.length - 1, bytes.length - 32, bytes.length / 2, 20}) {
            Path cut = dir.resolve("cut-" + length);
            Files.write(cut, Arrays.copyOf(bytes, length));
            assertThatThrownBy(() -> BackupFile.read(cut)).as("cut to %d bytes", length)
                    .isInstanceOf(BackupFile.BackupFormatException.class)
                    .hasMessageContaining("truncated");
        }
    }

    @Test
    void testNotABackupIsRefused() throws IOException {
        Path other = dir.resolve("other");
        Files.writeString(other, "partition,offset\n0,1\n");
        assertThatThrownBy(() -> BackupFile.read(other)).isInstanceOf(BackupFile.BackupFormatException.class)
                .hasMessageContaining("is not a Cohort backup file");
    }

    /** A file of a newer backup format, otherwise intact (its checksum matches), is refused by its version. */
    @Test
    void testNewerFormatVersionIsRefusedClearly() throws IOException {
        Path file = write(List.of(snapshot(0, 3, 120, 5), snapshot(1, 4, 77, 2)), new long[] {3, 4},
                new long[] {120, 77});
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).putInt(BackupFile.MAGIC.length, BackupFile.FORMAT_VERSION + 1);
        byte[] digest = BackupFile.digestOf(bytes, bytes.length - BackupFile.DIGEST_BYTES);
        System.arraycopy(digest, 0, bytes, bytes.length - BackupFile.DIGEST_BYTES, BackupFile.DIGEST_BYTES);
        Path newer = dir.resolve("newer");
        Files.write(newer, bytes);

        assertThatThrownBy(() -> BackupFile.read(newer)).isInstanceOf(BackupFile.BackupFormatException.class)
                .hasMessageContaining("backup format version 2, newer than this build reads (1)");
    }

    /**
     * A snapshot inside whose format is newer than the build reads is refused, naming the partition
     * (the writer itself refuses to finish such a file, so the test patches a valid one).
     */
    @Test
    void testNewerSnapshotFormatInsideIsRefused() throws IOException {
        byte[] p0 = snapshot(0, 3, 120, 1);
        // The snapshot header is the first frame: a length byte, then field 1 (format_version).
        assertThat(p0[1]).isEqualTo((byte) 0x08);
        // Without changed group settings the codec writes format 2 (format 3 only carries them).
        assertThat(p0[2]).isEqualTo((byte) SnapshotCodec.FORMAT_VERSION_WITHOUT_GROUP_SETTINGS);
        Path file = write(List.of(p0, snapshot(1, 4, 77, 0)), new long[] {3, 4}, new long[] {120, 77});
        int dataOffset = (int) BackupFile.read(file).partitions().get(0).dataOffset();
        byte[] bytes = Files.readAllBytes(file);
        bytes[dataOffset + 2] = (byte) (SnapshotCodec.FORMAT_VERSION + 1);
        byte[] digest = BackupFile.digestOf(bytes, bytes.length - BackupFile.DIGEST_BYTES);
        System.arraycopy(digest, 0, bytes, bytes.length - BackupFile.DIGEST_BYTES, BackupFile.DIGEST_BYTES);
        Path newer = dir.resolve("newer-snapshot");
        Files.write(newer, bytes);

        assertThatThrownBy(() -> BackupFile.read(newer)).isInstanceOf(BackupFile.BackupFormatException.class)
                .hasMessageContaining("the snapshot of partition 0 cannot be read by this build")
                .hasMessageContaining("Unknown snapshot format_version " + (SnapshotCodec.FORMAT_VERSION + 1));
    }

    /**
     * The bytes before the first partition's data are frozen: the magic, version 1, the header and
     * the first section header. A change here changes the file format: bump FORMAT_VERSION and keep
     * reading version 1.
     */
    @Test
    void testGoldenHeaderBytes() throws IOException {
        byte[] p0 = snapshot(0, 3, 120, 0);
        Path file = write(List.of(p0, snapshot(1, 4, 77, 0)), new long[] {3, 4}, new long[] {120, 77});
        byte[] bytes = Files.readAllBytes(file);
        BackupFile.Contents contents = BackupFile.read(file);
        int prefix = (int) contents.partitions().get(0).dataOffset();

        assertThat(HexFormat.of().formatHex(Arrays.copyOf(bytes, prefix))).isEqualTo(
                "434f484f5254424b" // "COHORTBK"
                + "00000001" // format version 1
                + "0000004f" // header: 79 bytes
                + "0a06676f6c64656e" + "1002" + "1803" // cluster_id "golden", 2 partitions, RF 3
                + "22140a0e67726f75702e6d61782e73697a65120231 30".replace(" ", "")
                + "22170a126f6666736574732e706172746974696f6e73120132" // the two settings
                + "2880d095ffbc31" // created_at_ms 1700000000000
                + "320b636f686f72742074657374" // created_by "cohort test"
                + "0000000a" // partition 0's section header: 10 bytes (partition_index 0 is the default)
                + "1003" + "1878" + "2002" + "28" + String.format("%02x", p0.length) + "3001");
    }

    private Path write(List<byte[]> snapshots, long[] terms, long[] indexes) throws IOException {
        Path file = dir.resolve("backup-" + System.nanoTime());
        try (BackupWriter writer = BackupWriter.create(file)) {
            writer.header(HEADER);
            for (int p = 0; p < snapshots.size(); p++) {
                writer.beginPartition(BackupPartitionHeader.newBuilder().setPartitionIndex(p).setTerm(terms[p])
                        .setAppliedIndex(indexes[p]).setSnapshotFormatVersion(snapshots.get(p)[2])
                        .setSnapshotBytes(snapshots.get(p).length).setSourceNodeId(1).build());
                writer.write(ByteBuffer.wrap(snapshots.get(p)));
                writer.endPartition();
            }
            writer.finish();
        }
        return file;
    }

    private static byte[] snapshot(int partition, long term, long index, int offsets) throws IOException {
        List<CoordinatorRecord> records = new java.util.ArrayList<>();
        for (int i = 0; i < offsets; i++) {
            records.add(new CoordinatorRecord.OffsetValue("group-" + partition, "topic", i,
                    new OffsetAndMetadata(100 + i, -1, "", 1_000, -1)));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SnapshotCodec.write(out, partition, term, index, records);
        return out.toByteArray();
    }
}
