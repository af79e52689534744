package io.cohort.cli;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.SaveSnapshotChunk;
import io.cohort.api.v1.SaveSnapshotInfo;
import io.cohort.api.v1.SaveSnapshotRequest;
import io.cohort.client.BackupSources;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.core.GroupConfig;
import io.cohort.raft.BackupRestore;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.PartitionSnapshotExport;
import io.cohort.raft.backup.BackupFile;
import io.cohort.raft.backup.BackupWriter;
import io.cohort.raft.backup.proto.BackupHeader;
import io.cohort.raft.backup.proto.BackupPartitionHeader;
import io.cohort.raft.backup.proto.BackupSetting;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cohort snapshot save|restore|status}: backups of a cluster's groups, offsets and ACLs. */
@Command(name = "snapshot", description = "Backs up a running cluster to one file, and creates a new cluster's "
        + "data dirs from it (offline), like etcdctl snapshot save / etcdutl snapshot restore.",
        subcommands = {SnapshotCommand.Save.class, SnapshotCommand.Restore.class, SnapshotCommand.Status.class})
final class SnapshotCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** {@code cohort snapshot save FILE}. */
    @Command(name = "save",
            description = {"Writes a checksummed backup of every partition (groups, offsets, and partition 0's ACLs) "
                    + "of the running cluster to FILE (through FILE.tmp, renamed once complete and read back).",
                    "Each partition is consistent at its own applied index: every commit acknowledged before the "
                            + "command started is in it. Needs ALTER on the cluster."})
    static final class Save extends AdminCommand {
        /** How long one partition's stream may take once it has started. */
        private static final long STREAM_DEADLINE_MS = 600_000;
        private static final long RETRY_PAUSE_MS = 500;

        @Parameters(index = "0", paramLabel = "FILE", description = "Where to write the backup.")
        Path file;

        /** The cluster the first partition came from; every later one must come from the same. */
        private String clusterId;
        private int partitionCount;

        @Override
        int execute(CohortClient client) {
            long startNanos = System.nanoTime();
            long deadlineNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(client.apiTimeout().toMillis());
            ClusterStatusResponse status = client.clusterStatus(false);
            BackupFile.Contents saved;
            try (BackupWriter writer = BackupWriter.create(file)) {
                for (int p = 0; p < status.getPartitionCount(); p++) {
                    savePartition(client, status, writer, p, deadlineNanos);
                }
                saved = writer.finish();
            } catch (IOException e) {
                throw new CliFailure("snapshot save: writing " + file + " failed: " + e.getMessage(), null);
            }
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            out().printf("Saved %s in %d ms%n", file, tookMs);
            out().print(describe(saved));
            return 0;
        }

        private void savePartition(CohortClient client, ClusterStatusResponse status, BackupWriter writer, int p,
                                   long deadlineNanos) throws IOException {
            String lastFailure = "no replica answered";
            while (true) {
                for (int node : BackupSources.candidates(status, p)) {
                    String failure = saveFrom(client, node, writer, p);
                    if (failure == null) {
                        return;
                    }
                    lastFailure = "node " + node + ": " + failure;
                }
                if (System.nanoTime() > deadlineNanos) {
                    throw new CliFailure("snapshot save: no consistent image of partition " + p + " within --timeout: "
                            + lastFailure, "retry, or give a longer --timeout");
                }
                pause();
                try {
                    status = client.clusterStatus(false);
                } catch (CohortException e) {
                    lastFailure = e.getMessage();
                }
            }
        }

        /** Streams partition {@code p} from {@code node} into the writer; null on success, else why it failed. */
        private String saveFrom(CohortClient client, int node, BackupWriter writer, int p) throws IOException {
            SaveSnapshotRequest request = SaveSnapshotRequest.newBuilder().setPartitionIndex(p).build();
            try {
                Iterator<SaveSnapshotChunk> stream = client.adminStub(node)
                        .withDeadlineAfter(STREAM_DEADLINE_MS, TimeUnit.MILLISECONDS).saveSnapshot(request);
                if (!stream.hasNext()) {
                    return "the stream ended without an answer";
                }
                SaveSnapshotInfo info = stream.next().getInfo();
                if (info.getErrorCode() != ErrorCode.NONE) {
                    if (info.getErrorCode() == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
                            || info.getErrorCode() == ErrorCode.INVALID_REQUEST) {
                        throw new CliFailure("snapshot save: partition " + p + ": " + info.getErrorCode() + ": "
                                + info.getErrorMessage(), null);
                    }
                    return info.getErrorCode() + ": " + info.getErrorMessage();
                }
                if (!writer.hasHeader()) {
                    writer.header(header(info));
                } else if (!info.getClusterId().equals(clusterId) || info.getPartitionCount() != partitionCount) {
                    throw new CliFailure("snapshot save: node " + node + " belongs to cluster " + info.getClusterId()
                            + " with " + info.getPartitionCount() + " partitions, not " + clusterId + " with "
                            + partitionCount + ": is --bootstrap one cluster?", null);
                }
                clusterId = info.getClusterId();
                partitionCount = info.getPartitionCount();
                writer.beginPartition(BackupPartitionHeader.newBuilder().setPartitionIndex(p)
                        .setTerm(info.getTerm()).setAppliedIndex(info.getAppliedIndex())
                        .setSnapshotFormatVersion(info.getSnapshotFormatVersion())
                        .setSnapshotBytes(info.getSnapshotBytes()).setSourceNodeId(info.getNodeId()).build());
                MessageDigest sha256 = sha256();
                while (stream.hasNext()) {
                    java.nio.ByteBuffer data = stream.next().getData().asReadOnlyByteBuffer();
                    sha256.update(data.duplicate());
                    writer.write(data);
                }
                String received = HexFormat.of().formatHex(sha256.digest());
                if (!received.equals(info.getSnapshotSha256())) {
                    writer.abortPartition();
                    return "the snapshot arrived damaged (SHA-256 " + received + ", sent " + info.getSnapshotSha256()
                            + ")";
                }
                writer.endPartition();
                return null;
            } catch (StatusRuntimeException | IllegalStateException | CohortException e) {
                writer.abortPartition();
                return e.getMessage();
            }
        }

        private static BackupHeader header(SaveSnapshotInfo info) {
            BackupHeader.Builder header = BackupHeader.newBuilder()
                    .setClusterId(info.getClusterId())
                    .setPartitionCount(info.getPartitionCount())
                    .setReplicationFactor(info.getReplicationFactor())
                    .setCreatedAtMs(System.currentTimeMillis())
                    .setCreatedBy(new CohortCli.Version().getVersion()[0]);
            new TreeMap<>(info.getClusterSettingsMap()).forEach((key, value) ->
                    header.addClusterSettings(BackupSetting.newBuilder().setKey(key).setValue(value)));
            return header.build();
        }

        private static void pause() {
            try {
                Thread.sleep(RETRY_PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliFailure("snapshot save: interrupted", null);
            }
        }
    }

    /** {@code cohort snapshot restore FILE --data-dir DIR --node-id N --peers ...}. */
    @Command(name = "restore",
            description = {"Creates one node's data dir of a NEW cluster from a backup, offline (the node must not "
                    + "run). Run it once per node, with the same FILE, --peers and cluster id; then start the nodes.",
                    "The file's checksum is verified first: a corrupt or truncated file is refused and nothing is "
                            + "written. The new cluster gets a new id unless --keep-cluster-id or --cluster-id says "
                            + "otherwise."})
    static final class Restore implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The backup written by 'cohort snapshot save'.")
        Path file;

        @Option(names = "--data-dir", required = true, paramLabel = "DIR",
                description = "The node's data dir to create; must not exist or be empty.")
        Path dataDir;

        @Option(names = "--node-id", required = true, paramLabel = "N", description = "The id of the node restored.")
        int nodeId;

        @Option(names = "--peers", required = true, paramLabel = "ID=HOST:RAFT_PORT:CLIENT_PORT[,...]",
                description = "Every node of the new cluster, as the nodes' 'peers' setting (e.g. "
                        + "1=10.0.0.1:7001:7101,2=10.0.0.2:7001:7101,3=10.0.0.3:7001:7101).")
        String peers;

        @Option(names = "--cluster-id", paramLabel = "ID",
                description = "The new cluster's id. Default: the backed-up id with '-r' and the start of the "
                        + "backup's SHA-256 appended (the same on every node restored from the file).")
        String clusterId;

        @Option(names = "--keep-cluster-id",
                description = "Keep the backed-up cluster's id. Never start the restored nodes beside the old "
                        + "cluster's nodes then: with the same id their Raft groups are the same.")
        boolean keepClusterId;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            List<NodeAddress> peerList = parsePeers();
            if (clusterId != null && keepClusterId) {
                throw new ParameterException(spec.commandLine(), "give --cluster-id or --keep-cluster-id, not both");
            }
            long startNanos = System.nanoTime();
            BackupFile.Contents backup = readBackup(file);
            String oldId = backup.header().getClusterId();
            String newId = keepClusterId ? oldId
                    : clusterId != null ? clusterId : BackupRestore.derivedClusterId(oldId, backup.sha256());
            BackupRestore.Restored restored;
            try {
                restored = BackupRestore.restore(backup, dataDir, nodeId, peerList, newId);
            } catch (IOException | IllegalArgumentException e) {
                throw new CliFailure("snapshot restore: " + e.getMessage(), null);
            }
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            out.printf("Restored node %d of cluster %s (from %s, backup of %s) into %s in %d ms: partitions %s%n",
                    nodeId, newId, file, oldId, dataDir, tookMs, restored.partitions());
            out.printf("Start it with: --node-id %d --cluster-id %s --peers %s --partitions %d --data-dir %s%s%n",
                    nodeId, newId, peers, backup.header().getPartitionCount(), dataDir,
                    nonDefaultSettings(backup, peerList));
            out.flush();
            return 0;
        }

        private List<NodeAddress> parsePeers() {
            List<NodeAddress> list = new ArrayList<>();
            try {
                for (String one : peers.split(",")) {
                    if (!one.isBlank()) {
                        list.add(NodeAddress.parse(one));
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--peers': "
                        + e.getMessage());
            }
            list.sort(Comparator.comparingInt(NodeAddress::nodeId));
            if (list.stream().noneMatch(p -> p.nodeId() == nodeId)) {
                throw new ParameterException(spec.commandLine(), "--node-id " + nodeId + " is not one of --peers");
            }
            return list;
        }

        /** The group settings the nodes must be started with, where they differ from the defaults. */
        private static String nonDefaultSettings(BackupFile.Contents backup, List<NodeAddress> peers) {
            Map<String, String> defaults = PartitionSnapshotExport.clusterSettings(
                    new ClusterSpec("defaults", 1, peers, GroupConfig.defaults()));
            StringBuilder flags = new StringBuilder();
            for (BackupSetting setting : backup.header().getClusterSettingsList()) {
                String key = setting.getKey();
                if (key.startsWith("group.") || key.startsWith("offset")) {
                    if (key.equals("offsets.partitions") || key.equals("offsets.replication.factor")
                            || setting.getValue().equals(defaults.get(key))) {
                        continue;
                    }
                    if (key.equals("offsets.retention.ms")) {
                        flags.append(" --set offsets.retention.minutes=")
                                .append(Long.parseLong(setting.getValue()) / 60_000L);
                    } else {
                        flags.append(" --set ").append(key).append('=').append(setting.getValue());
                    }
                }
            }
            return flags.toString();
        }
    }

    /** {@code cohort snapshot status FILE}. */
    @Command(name = "status",
            description = "Checks a backup file (checksum, every partition's snapshot decoded) and prints what it "
                    + "holds: the cluster, and per partition its index, groups, offsets and ACLs. Offline.")
    static final class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The backup file.")
        Path file;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            out.print(describe(readBackup(file)));
            out.flush();
            return 0;
        }
    }

    static BackupFile.Contents readBackup(Path file) {
        try {
            return BackupFile.read(file);
        } catch (BackupFile.BackupFormatException e) {
            throw new CliFailure("refusing " + file + ": " + e.getMessage(), null);
        } catch (IOException e) {
            throw new CliFailure("cannot read " + file + ": " + e, null);
        }
    }

    /** The header and a table of the partitions; ends with the checksum line. */
    static String describe(BackupFile.Contents backup) {
        BackupHeader header = backup.header();
        StringBuilder out = new StringBuilder();
        long groups = 0;
        long offsets = 0;
        long acls = 0;
        Table table = new Table("PARTITION", "TERM", "INDEX", "FROM-NODE", "GROUPS", "OFFSETS", "ACLS", "BYTES",
                "SNAPSHOT-FORMAT");
        for (BackupFile.Partition partition : backup.partitions()) {
            BackupPartitionHeader section = partition.header();
            table.row(partition.index(), section.getTerm(), section.getAppliedIndex(), section.getSourceNodeId(),
                    partition.groups(), partition.offsets(), partition.acls(), section.getSnapshotBytes(),
                    section.getSnapshotFormatVersion());
            groups += partition.groups();
            offsets += partition.offsets();
            acls += partition.acls();
        }
        out.append(String.format("Backup of cluster %s: %d partitions, replication factor %d, taken %s by %s%n",
                header.getClusterId(), header.getPartitionCount(), header.getReplicationFactor(),
                java.time.Instant.ofEpochMilli(header.getCreatedAtMs()), header.getCreatedBy()));
        out.append(String.format("%d groups, %d offsets, %d ACLs; %d bytes; backup format %d%n", groups, offsets,
                acls, backup.fileBytes(), backup.formatVersion()));
        out.append(table.render());
        out.append("checksum: ok (sha256 ").append(backup.sha256()).append(")\n");
        return out.toString();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
    }
}
