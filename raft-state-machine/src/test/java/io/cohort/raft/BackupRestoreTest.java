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
     * snapshot a few entries older exists: the export cuts the state past its read barrier instead
     * of handing out the latest file.
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

    /**
     * The image is written beside the apply thread, and is not a snapshot of the replica: while its
     * write is held, the replica asked goes on applying commits, the image is the state when it was
     * cut, and the replica's storage gets no snapshot (nothing is purged up to an image). Before
     * 2026-12-07 an export had Ratis take a snapshot, written on the apply thread.
     */
    @Test
    void testTheImageIsWrittenBesideTheApplyThreadAndIsNotTheReplicasSnapshot() throws Exception {
        // No snapshot of the replica's own (the replay bound's), so the one an export would take shows.
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(1_000_000)
                .snapshotMinEntries(Long.MAX_VALUE).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(dir.resolve("beside"), 3, 1, GroupConfig.defaults(),
                tuning)) {
            for (int i = 0; i < 10; i++) {
                cluster.submitToLeader(0, Commands.simpleCommit("g" + i, "t", 0, i));
            }
            CohortRaftNode leader = cluster.leaderOf(0);
            CohortRaftNode follower = cluster.runningNodes().stream().filter(n -> !n.isLeader(0)).findFirst()
                    .orElseThrow();
            PartitionStateMachine replica = follower.stateMachine(0);
            // A new replica may start from the empty snapshot at (0, 0) (NewReplicas).
            long snapshotBefore = replica.getLatestSnapshot() == null ? -1 : replica.getLatestSnapshot().getIndex();
            // The writer: holds the image's write until released.
            java.util.concurrent.LinkedBlockingQueue<Runnable> writes = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.CompletableFuture<PartitionSnapshotExport.Export> exporting =
                    PartitionSnapshotExport.export(follower, 0, 10_000, writes::add);
            Runnable write = writes.poll(30, TimeUnit.SECONDS);
            assertThat(write).as("the image was cut and handed to the writer").isNotNull();
            for (int i = 0; i < 10; i++) {
                cluster.submitToLeader(0, Commands.simpleCommit("g" + i, "t", 0, 1_000 + i));
            }
            long committed = leader.stateMachine(0).lastAppliedIndex();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> replica.lastAppliedIndex() >= committed);
            assertThat(exporting).as("the image waits for the writer; the apply thread did not").isNotDone();
            write.run();
            try (PartitionSnapshotExport.Export export = exporting.get(30, TimeUnit.SECONDS)) {
                ByteBuffer bytes = ByteBuffer.allocate((int) export.bytes());
                export.channel().read(bytes, 0);
                SnapshotCodec.Snapshot image = SnapshotCodec.read(new java.io.ByteArrayInputStream(bytes.array()));
                assertThat(image.index()).isEqualTo(export.appliedIndex())
                        .isGreaterThanOrEqualTo(export.barrierIndex());
                assertThat(image.records()).filteredOn(record -> record instanceof CoordinatorRecord.OffsetValue)
                        .as("cut when asked, before the commits applied while the image waited").hasSize(10)
                        .allSatisfy(record -> assertThat(((CoordinatorRecord.OffsetValue) record).value().offset())
                                .isLessThan(1_000));
                assertThat(replica.getLatestSnapshot() == null ? -1 : replica.getLatestSnapshot().getIndex())
                        .as("the image is not the replica's snapshot").isEqualTo(snapshotBefore);
                Path images = follower.dataDir().resolve(PartitionSnapshotExport.IMAGE_DIRECTORY);
                // Written under the node's data dir, not in the replica's sm/, which a snapshot install
                // replaces (on Linux the file is already unlinked: only the channel holds it).
                assertThat(images).isDirectory();
                export.close();
                assertThat(export.channel().isOpen()).isFalse();
                try (Stream<Path> files = Files.list(images)) {
                    assertThat(files).as("no image file left").isEmpty();
                }
            }
        }
    }

    /**
     * A SaveSnapshot call that times out or whose client goes away cancels its export: an image not
     * yet written is not written (a large state takes seconds of the writer and its size on disk).
     */
    @Test
    void testACancelledExportWritesNoImage() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(dir.resolve("cancelled"), 3, 1, GroupConfig.defaults())) {
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
            CohortRaftNode node = cluster.leaderOf(0);
            java.util.concurrent.LinkedBlockingQueue<Runnable> writes = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.concurrent.CompletableFuture<PartitionSnapshotExport.Export> exporting =
                    PartitionSnapshotExport.export(node, 0, 10_000, writes::add);
            Runnable write = writes.poll(30, TimeUnit.SECONDS);
            assertThat(write).as("the image was cut and handed to the writer").isNotNull();
            assertThat(exporting.cancel(false)).isTrue();
            write.run();
            // The directory is made by the first image's write (and removed at each start).
            assertThat(node.dataDir().resolve(PartitionSnapshotExport.IMAGE_DIRECTORY)).as("no image written")
                    .doesNotExist();
        }
    }

    /**
     * Under a steady load the image is cut by the apply thread between two entries (a cut beside
     * apply finds an entry in flight): every export completes, is at or past its read barrier, and
     * holds the last commit acknowledged before it started.
     */
    @Test
    void testExportsUnderLoadHoldEveryCommitAcknowledgedBeforeThem() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(dir.resolve("load"), 3, 1, GroupConfig.defaults())) {
            java.util.concurrent.atomic.AtomicLong acknowledged = new java.util.concurrent.atomic.AtomicLong(-1);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread committer = new Thread(() -> {
                for (long offset = 0; !stop.get(); offset++) {
                    try {
                        cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, offset));
                        acknowledged.set(offset);
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "test-committer");
            committer.start();
            try {
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                        .until(() -> acknowledged.get() >= 0);
                for (int i = 0; i < 20; i++) {
                    long before = acknowledged.get();
                    CohortRaftNode node = cluster.runningNodes().get(i % 3);
                    try (PartitionSnapshotExport.Export export = PartitionSnapshotExport.export(node, 0, 10_000)
                            .get(30, TimeUnit.SECONDS)) {
                        ByteBuffer bytes = ByteBuffer.allocate((int) export.bytes());
                        export.channel().read(bytes, 0);
                        SnapshotCodec.Snapshot image = SnapshotCodec.read(
                                new java.io.ByteArrayInputStream(bytes.array()));
                        assertThat(image.index()).isGreaterThanOrEqualTo(export.barrierIndex());
                        assertThat(image.records()).filteredOn(record -> record instanceof CoordinatorRecord.OffsetValue)
                                .singleElement().satisfies(record -> assertThat(
                                        ((CoordinatorRecord.OffsetValue) record).value().offset())
                                        .as("export from node %d", node.nodeId())
                                        .isGreaterThanOrEqualTo(before));
                    }
                }
                assertThat(acknowledged.get()).as("commits went on").isPositive();
            } finally {
                stop.set(true);
                committer.join(30_000);
            }
        }
    }

    /** An image file left by a node that died while writing it is deleted when the node starts again. */
    @Test
    void testAnImageLeftByACrashIsDeletedAtTheNextStart() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(dir.resolve("left"), 3, 1, GroupConfig.defaults())) {
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
            CohortRaftNode node = cluster.runningNodes().get(0);
            Path images = Files.createDirectories(node.dataDir().resolve(PartitionSnapshotExport.IMAGE_DIRECTORY));
            Path left = Files.writeString(images.resolve("partition-0-42.tmp"), "x");
            Path other = Files.writeString(node.dataDir().resolve("operator-notes.txt"), "kept");
            cluster.stopNode(node.nodeId());
            cluster.startNode(node.nodeId());
            cluster.awaitAllLeadersReady();
            assertThat(left).doesNotExist();
            assertThat(other).exists();
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
