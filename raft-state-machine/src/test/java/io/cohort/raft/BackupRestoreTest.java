package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.GroupConfig;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.raft.backup.BackupFile;
import io.cohort.raft.backup.BackupWriter;
import io.cohort.raft.backup.proto.BackupHeader;
import io.cohort.raft.backup.proto.BackupPartitionHeader;
import io.cohort.raft.backup.proto.BackupSetting;
import io.cohort.raft.log.SnapshotCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backup and restore in-process with real Ratis nodes: partitions exported from a follower
 * replica ({@link PartitionSnapshotExport}) are written to a backup file, restored into the data
 * dirs of a new 3-node cluster, which starts with exactly the saved state and takes new commits.
 */
class BackupRestoreTest {
    private static final int PARTITIONS = 2;

    @TempDir
    Path dir;

    @Test
    void testExportedPartitionsRestoreIntoANewClusterThatStartsWithTheSavedState() throws Exception {
        Path backup = dir.resolve("backup.cohort");
        Map<Integer, String> savedDigests = new TreeMap<>();
        try (RaftTestCluster source = RaftTestCluster.start(dir.resolve("source"), 3, PARTITIONS,
                GroupConfig.defaults())) {
            for (int i = 0; i < 20; i++) {
                String group = "g" + i;
                int partition = source.node(0).partitionFor(group);
                source.submitToLeader(partition, Commands.simpleCommit(group, "t", 0, 100 + i));
            }
            try (BackupWriter writer = BackupWriter.create(backup)) {
                writer.header(header(source.spec));
                for (int p = 0; p < PARTITIONS; p++) {
                    int partition = p;
                    // A follower: the read barrier asks the leader for its commit index.
                    CohortRaftNode follower = source.runningNodes().stream().filter(n -> !n.isLeader(partition))
                            .findFirst().orElseThrow();
                    try (PartitionSnapshotExport.Export export = PartitionSnapshotExport.export(follower, p, 10_000)
                            .get(30, TimeUnit.SECONDS)) {
                        writer.beginPartition(BackupPartitionHeader.newBuilder().setPartitionIndex(p)
                                .setTerm(export.term()).setAppliedIndex(export.appliedIndex())
                                .setSnapshotFormatVersion(SnapshotCodec.FORMAT_VERSION)
                                .setSnapshotBytes(export.bytes()).setSourceNodeId(follower.nodeId()).build());
                        ByteBuffer bytes = ByteBuffer.allocate((int) export.bytes());
                        export.channel().read(bytes, 0);
                        writer.write(bytes.flip());
                        writer.endPartition();
                        assertThat(export.appliedIndex()).isGreaterThanOrEqualTo(export.barrierIndex());
                        savedDigests.put(p, SnapshotCodec.digest(SnapshotCodec.read(
                                new java.io.ByteArrayInputStream(bytes.array())).records()));
                    }
                }
                writer.finish();
            }
        }
        BackupFile.Contents contents = BackupFile.read(backup);
        assertThat(contents.partitions().stream().mapToInt(BackupFile.Partition::offsets).sum()).isEqualTo(20);

        try (RaftTestCluster restored = new RaftTestCluster(dir.resolve("restored"), 3, PARTITIONS,
                GroupConfig.defaults(), RaftTestCluster.TEST_TUNING)) {
            for (int node = 0; node < 3; node++) {
                BackupRestore.Restored result = BackupRestore.restore(contents, restored.dataDir(node), node,
                        restored.spec.peers(), restored.spec.clusterId());
                assertThat(result.partitions()).containsExactly(0, 1);
            }
            assertThat(stateFiles(restored.dataDir(1))).isEqualTo(stateFiles(restored.dataDir(0)));
            assertThat(stateFiles(restored.dataDir(2))).isEqualTo(stateFiles(restored.dataDir(0)));
            for (int node = 0; node < 3; node++) {
                restored.startNode(node);
            }
            restored.awaitAllLeadersReady();
            for (int p = 0; p < PARTITIONS; p++) {
                for (CohortRaftNode node : restored.runningNodes()) {
                    assertThat(SnapshotCodec.digest(node.shard(p).snapshot())).as("partition %d on node %d", p,
                            node.nodeId()).isEqualTo(savedDigests.get(p));
                }
            }
            // The restored cluster continues: a new commit is applied on top of the restored state.
            int partition = restored.node(0).partitionFor("g0");
            restored.submitToLeader(partition, Commands.simpleCommit("g0", "t", 0, 5_000));
            restored.awaitReplicasConverged(partition);
            assertThat(restored.node(1).shard(partition).snapshot()).anyMatch(record ->
                    record instanceof CoordinatorRecord.OffsetValue offset && offset.groupId().equals("g0")
                            && offset.value().offset() == 5_000);
        }
    }

    /**
     * The image covers every commit acknowledged before the export, even while an automatic
     * snapshot a few entries older exists: the export makes Ratis take a new one past its read
     * barrier instead of handing out the latest file.
     */
    @Test
    void testExportHoldsEveryCommitAcknowledgedBeforeItNotAnOlderAutomaticSnapshot() throws Exception {
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(5).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(dir.resolve("auto"), 3, 1, GroupConfig.defaults(),
                tuning)) {
            long committed = 0;
            CohortRaftNode leader = cluster.leaderOf(0);
            // Commit until an automatic snapshot exists and the last commit is past it.
            while (committed < 8 || leader.stateMachine(0).getLatestSnapshot() == null
                    || leader.stateMachine(0).getLatestSnapshot().getIndex()
                    >= leader.stateMachine(0).lastAppliedIndex()) {
                committed++;
                cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, committed));
                leader = cluster.leaderOf(0);
            }
            long acknowledged = committed;
            try (PartitionSnapshotExport.Export export = PartitionSnapshotExport.export(leader, 0, 10_000)
                    .get(30, TimeUnit.SECONDS)) {
                ByteBuffer bytes = ByteBuffer.allocate((int) export.bytes());
                export.channel().read(bytes, 0);
                SnapshotCodec.Snapshot image = SnapshotCodec.read(new java.io.ByteArrayInputStream(bytes.array()));
                assertThat(image.records()).anyMatch(record -> record instanceof CoordinatorRecord.OffsetValue offset
                        && offset.groupId().equals("g") && offset.value().offset() == acknowledged);
            }
        }
    }

    /** A partition without a single command still exports: an empty image at its applied index. */
    @Test
    void testAnIdlePartitionExportsAnEmptyImage() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(dir.resolve("idle"), 3, 1, GroupConfig.defaults())) {
            CohortRaftNode leader = cluster.leaderOf(0);
            try (PartitionSnapshotExport.Export export = PartitionSnapshotExport.export(leader, 0, 10_000)
                    .get(30, TimeUnit.SECONDS)) {
                ByteBuffer bytes = ByteBuffer.allocate((int) export.bytes());
                export.channel().read(bytes, 0);
                SnapshotCodec.Snapshot image = SnapshotCodec.read(new java.io.ByteArrayInputStream(bytes.array()));
                assertThat(image.records()).isEmpty();
                assertThat(image.index()).isEqualTo(export.appliedIndex()).isGreaterThanOrEqualTo(0);
            }
        }
    }

    @Test
    void testRestoreRefusesANonEmptyDataDir() throws Exception {
        Path backup = writeEmptyBackup();
        Path dataDir = Files.createDirectories(dir.resolve("used"));
        Files.writeString(dataDir.resolve("cluster.properties"), "cluster.id=other\n");
        List<NodeAddress> peers = List.of(new NodeAddress(1, "127.0.0.1", 7001, 7101));

        assertThatThrownBy(() -> BackupRestore.restore(BackupFile.read(backup), dataDir, 1, peers, "new"))
                .isInstanceOf(IOException.class).hasMessageContaining("is not empty");
        assertThat(Files.readString(dataDir.resolve("cluster.properties"))).isEqualTo("cluster.id=other\n");
    }

    @Test
    void testDerivedClusterIdIsNewAndTheSameForEveryNode() {
        String sha = "0123456789abcdef".repeat(4);
        assertThat(BackupRestore.derivedClusterId("prod", sha)).isEqualTo("prod-r01234567");
        assertThat(BackupRestore.derivedClusterId("x".repeat(64), sha)).hasSize(64).endsWith("-r01234567");
    }

    private Path writeEmptyBackup() throws IOException {
        ClusterSpec spec = new ClusterSpec("old", 1, List.of(new NodeAddress(1, "127.0.0.1", 7001, 7101)),
                GroupConfig.defaults());
        Path backup = dir.resolve("empty.cohort");
        java.io.ByteArrayOutputStream snapshot = new java.io.ByteArrayOutputStream();
        SnapshotCodec.write(snapshot, 0, 1, 5, List.of());
        try (BackupWriter writer = BackupWriter.create(backup)) {
            writer.header(header(spec));
            writer.beginPartition(BackupPartitionHeader.newBuilder().setPartitionIndex(0).setTerm(1).setAppliedIndex(5)
                    .setSnapshotFormatVersion(SnapshotCodec.FORMAT_VERSION).setSnapshotBytes(snapshot.size()).build());
            writer.write(ByteBuffer.wrap(snapshot.toByteArray()));
            writer.endPartition();
            writer.finish();
        }
        return backup;
    }

    private static BackupHeader header(ClusterSpec spec) {
        BackupHeader.Builder header = BackupHeader.newBuilder().setClusterId(spec.clusterId())
                .setPartitionCount(spec.partitions()).setReplicationFactor(spec.replicationFactor())
                .setCreatedBy("test");
        PartitionSnapshotExport.clusterSettings(spec).forEach((key, value) ->
                header.addClusterSettings(BackupSetting.newBuilder().setKey(key).setValue(value)));
        return header.build();
    }

    /** The snapshot and configuration files of a data dir, by path (Ratis's raft-meta carries a date). */
    private static Map<String, String> stateFiles(Path dataDir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dataDir)) {
            for (Path path : walk.filter(Files::isRegularFile).toList()) {
                String name = dataDir.relativize(path).toString();
                if (name.contains("/sm/") || name.endsWith("raft-meta.conf")) {
                    files.put(name, java.util.HexFormat.of().formatHex(Files.readAllBytes(path)));
                }
            }
        }
        return files;
    }
}
