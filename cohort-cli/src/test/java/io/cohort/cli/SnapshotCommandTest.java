package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.GroupConfig;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.PartitionSnapshotExport;
import io.cohort.raft.backup.BackupWriter;
import io.cohort.raft.backup.proto.BackupHeader;
import io.cohort.raft.backup.proto.BackupPartitionHeader;
import io.cohort.raft.backup.proto.BackupSetting;
import io.cohort.raft.log.SnapshotCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The offline snapshot commands: status and restore of a backup file, and their refusals. */
class SnapshotCommandTest {
    private static final String PEERS = "1=127.0.0.1:7001:7101,2=127.0.0.1:7002:7102,3=127.0.0.1:7003:7103";

    @TempDir
    Path dir;

    @Test
    void testStatusShowsWhatTheBackupHolds() throws IOException {
        Path backup = backup();
        Cli cli = Cli.run("snapshot", "status", backup.toString());
        assertThat(cli.exit()).as(cli.toString()).isZero();
        assertThat(cli.out()).contains("Backup of cluster prod: 1 partitions, replication factor 3")
                .contains("0 groups, 2 offsets, 0 ACLs").contains("checksum: ok");
    }

    @Test
    void testRestoreWritesTheDataDirUnderADerivedClusterId() throws IOException {
        Path backup = backup();
        Path dataDir = dir.resolve("node-2");
        Cli cli = Cli.run("snapshot", "restore", backup.toString(), "--data-dir", dataDir.toString(), "--node-id", "2",
                "--peers", PEERS);
        assertThat(cli.exit()).as(cli.toString()).isZero();
        assertThat(cli.out()).containsPattern("Restored node 2 of cluster prod-r[0-9a-f]{8} ")
                .contains("--node-id 2 --cluster-id prod-r").contains("--partitions 1");
        String properties = Files.readString(dataDir.resolve("cluster.properties"));
        assertThat(properties).containsPattern("cluster.id=prod-r[0-9a-f]{8}\n").contains("node.id=2\n")
                .contains("peers=" + PEERS + "\n");
        try (var files = Files.walk(dataDir.resolve("raft"))) {
            assertThat(files.map(Path::toString)).anyMatch(name -> name.endsWith("/sm/snapshot.4_120"))
                    .anyMatch(name -> name.endsWith("/current/raft-meta.conf"));
        }
    }

    @Test
    void testCorruptBackupIsRefusedAndNothingIsWritten() throws IOException {
        Path backup = backup();
        byte[] bytes = Files.readAllBytes(backup);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(backup, bytes);
        Path dataDir = dir.resolve("node-1");

        Cli restore = Cli.run("snapshot", "restore", backup.toString(), "--data-dir", dataDir.toString(),
                "--node-id", "1", "--peers", PEERS);
        Cli status = Cli.run("snapshot", "status", backup.toString());

        assertThat(restore.exit()).as(restore.toString()).isEqualTo(1);
        assertThat(restore.err()).contains("is corrupt or truncated").contains("nothing was restored");
        assertThat(Files.exists(dataDir)).isFalse();
        assertThat(Files.exists(dir.resolve("node-1.restoring"))).isFalse();
        assertThat(status.exit()).isEqualTo(1);
        assertThat(status.err()).contains("is corrupt or truncated");
    }

    @Test
    void testPeersMustIncludeTheNode() throws IOException {
        Cli cli = Cli.run("snapshot", "restore", backup().toString(), "--data-dir", dir.resolve("x").toString(),
                "--node-id", "4", "--peers", PEERS);
        assertThat(cli.exit()).isEqualTo(2);
        assertThat(cli.err()).contains("--node-id 4 is not one of --peers");
    }

    private Path backup() throws IOException {
        ClusterSpec spec = new ClusterSpec("prod", 1, List.of(NodeAddress.parse("1=127.0.0.1:7001:7101"),
                NodeAddress.parse("2=127.0.0.1:7002:7102"), NodeAddress.parse("3=127.0.0.1:7003:7103")),
                GroupConfig.defaults());
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        SnapshotCodec.write(snapshot, 0, 4, 120, List.of(
                new CoordinatorRecord.OffsetValue("g", "t", 0, new OffsetAndMetadata(7, -1, "", 1, -1)),
                new CoordinatorRecord.OffsetValue("g", "t", 1, new OffsetAndMetadata(8, -1, "", 1, -1))));
        BackupHeader.Builder header = BackupHeader.newBuilder().setClusterId("prod").setPartitionCount(1)
                .setReplicationFactor(3).setCreatedBy("test");
        PartitionSnapshotExport.clusterSettings(spec).forEach((key, value) ->
                header.addClusterSettings(BackupSetting.newBuilder().setKey(key).setValue(value)));
        Path backup = dir.resolve("backup.cohort");
        try (BackupWriter writer = BackupWriter.create(backup)) {
            writer.header(header.build());
            writer.beginPartition(BackupPartitionHeader.newBuilder().setTerm(4).setAppliedIndex(120)
                    .setSnapshotFormatVersion(SnapshotCodec.FORMAT_VERSION).setSnapshotBytes(snapshot.size()).build());
            writer.write(ByteBuffer.wrap(snapshot.toByteArray()));
            writer.endPartition();
            writer.finish();
        }
        return backup;
    }
}
