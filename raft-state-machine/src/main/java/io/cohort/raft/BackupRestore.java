package io.cohort.raft;

import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.raft.backup.BackupFile;
import io.cohort.raft.backup.proto.BackupSetting;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Creates one node's data dir from a backup file, offline (like {@code etcdutl snapshot
 * restore}); run once per node of the new cluster with the same file and peer list.
 *
 * <p>For each partition the node holds (the placement of the new peer list) it writes the Ratis
 * storage a replica would have right after loading that snapshot and purging its log
 * ({@link ReplicaStorage}: the backup's snapshot bytes unchanged, its term, the new peers as the
 * configuration at its index). Then {@code cluster.properties} is written as a first start would
 * write it. Everything is built in {@code <dir>.restoring} and
 * renamed into place at the end, so an interrupted restore leaves no half-made data dir.
 *
 * <p>Every node restored from the same file with the same peers and cluster id holds
 * byte-identical snapshot and configuration files (only Ratis's {@code raft-meta} carries a
 * timestamp comment), so the replicas start equal. The Raft group ids derive from the cluster id,
 * so a restore under a new cluster id can never join the groups of the cluster it was taken from.
 */
public final class BackupRestore {
    /** The keys the restore sets itself, not taken from the backup. */
    private static final Set<String> REPLACED_KEYS = Set.of("cluster.id", "node.id", "peers",
            ClusterMetadata.RACKS, ClusterMetadata.REPLICATION_FACTOR);

    private BackupRestore() {
    }

    /** What a restore wrote. */
    public record Restored(Path dataDir, String clusterId, ClusterSpec spec, List<Integer> partitions) {
    }

    /**
     * The default id of a cluster restored from a backup: the old id and the start of the
     * backup's SHA-256, so every node restored from the same file derives the same new id, and it
     * differs from the id of the cluster the backup came from.
     */
    public static String derivedClusterId(String oldClusterId, String sha256Hex) {
        String suffix = "-r" + sha256Hex.substring(0, 8);
        String stem = oldClusterId.length() + suffix.length() > 64
                ? oldClusterId.substring(0, 64 - suffix.length()) : oldClusterId;
        return stem + suffix;
    }

    /**
     * Restores node {@code nodeId} of a new cluster with {@code peers} (every node, in id order)
     * and id {@code clusterId} from {@code backup} (already read and checked) into {@code dataDir},
     * which must not exist or be empty.
     */
    public static Restored restore(BackupFile.Contents backup, Path dataDir, int nodeId, List<NodeAddress> peers,
                                   String clusterId) throws IOException {
        throwIfNotEmpty(dataDir);
        Map<String, String> settings = new TreeMap<>();
        for (BackupSetting setting : backup.header().getClusterSettingsList()) {
            settings.put(setting.getKey(), setting.getValue());
        }
        int replicationFactor = Math.min(backup.header().getReplicationFactor(), peers.size());
        ClusterSpec spec = new ClusterSpec(clusterId, backup.header().getPartitionCount(), peers,
                groupConfig(settings), replicationFactor, Map.of());
        if (!spec.hasPeer(nodeId)) {
            throw new IllegalArgumentException("node " + nodeId + " is not one of the peers " + peers);
        }
        throwIfSettingsLost(settings, spec);
        Path staging = dataDir.toAbsolutePath().resolveSibling(dataDir.getFileName() + ".restoring");
        Directories.deleteRecursively(staging);
        List<Integer> restored = new ArrayList<>();
        for (BackupFile.Partition partition : backup.partitions()) {
            if (spec.hosts(nodeId, partition.index())) {
                writeReplica(backup, partition, spec, staging);
                restored.add(partition.index());
            }
        }
        ClusterMetadata.writeOrVerify(staging, nodeId, spec);
        DataDirPermissions.makePrivate(staging);
        if (Files.exists(dataDir)) {
            Files.delete(dataDir);
        }
        Files.move(staging, dataDir, StandardCopyOption.ATOMIC_MOVE);
        return new Restored(dataDir, clusterId, spec, restored);
    }

    private static void writeReplica(BackupFile.Contents backup, BackupFile.Partition partition, ClusterSpec spec,
                                     Path dataDir) throws IOException {
        int p = partition.index();
        ReplicaStorage.write(ReplicaStorage.groupDir(dataDir, spec, p), spec, p, partition.header().getTerm(),
                partition.header().getAppliedIndex(), out -> {
                    try (InputStream in = BackupFile.openSnapshot(backup, partition)) {
                        in.transferTo(out);
                    }
                });
    }

    /** The group settings a backup records ({@code cluster.properties} keys) as the core's config. */
    static GroupConfig groupConfig(Map<String, String> settings) {
        GroupConfig defaults = GroupConfig.defaults();
        StateLimits limits = StateLimits.defaults();
        return new GroupConfig(
                intSetting(settings, "group.min.session.timeout.ms", defaults.minSessionTimeoutMs()),
                intSetting(settings, "group.max.session.timeout.ms", defaults.maxSessionTimeoutMs()),
                intSetting(settings, "group.initial.rebalance.delay.ms", defaults.initialRebalanceDelayMs()),
                intSetting(settings, "group.max.size", defaults.maxGroupSize()),
                defaults.newMemberJoinTimeoutMs(),
                longSetting(settings, "offsets.retention.ms", defaults.offsetsRetentionMs()),
                longSetting(settings, "offsets.retention.check.interval.ms",
                        defaults.offsetsRetentionCheckIntervalMs()),
                intSetting(settings, "offset.metadata.max.bytes", defaults.offsetMetadataMaxBytes()),
                new StateLimits(
                        intSetting(settings, StateLimits.MAX_OFFSETS_PER_GROUP, limits.maxOffsetsPerGroup()),
                        intSetting(settings, StateLimits.MAX_GROUPS_PER_PARTITION, limits.maxGroupsPerPartition()),
                        intSetting(settings, StateLimits.MAX_OFFSETS_PER_PARTITION, limits.maxOffsetsPerPartition()),
                        longSetting(settings, StateLimits.MAX_METADATA_BYTES_PER_PARTITION,
                                limits.maxMetadataBytesPerPartition())))
                .withConsumerSettings(
                        intSetting(settings, GroupConfig.CONSUMER_SESSION_TIMEOUT_MS, defaults.consumerSessionTimeoutMs()),
                        intSetting(settings, GroupConfig.CONSUMER_HEARTBEAT_INTERVAL_MS,
                                defaults.consumerHeartbeatIntervalMs()),
                        intSetting(settings, GroupConfig.CONSUMER_MAX_SIZE, defaults.consumerMaxSize()),
                        settings.containsKey(GroupConfig.CONSUMER_ASSIGNORS)
                                ? List.of(settings.get(GroupConfig.CONSUMER_ASSIGNORS).split(","))
                                : defaults.consumerAssignors());
    }

    /**
     * Every setting of the backup must come out of the new cluster.properties unchanged (apart from
     * the identity and layout the restore sets): a setting this build does not know, or reads
     * differently, would silently change how the restored state is applied.
     */
    private static void throwIfSettingsLost(Map<String, String> backupSettings, ClusterSpec spec) {
        Properties written = ClusterMetadata.toProperties(0, spec);
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, String> setting : backupSettings.entrySet()) {
            if (REPLACED_KEYS.contains(setting.getKey())) {
                continue;
            }
            String value = written.getProperty(setting.getKey());
            if (!setting.getValue().equals(value)) {
                lost.add(setting.getKey() + "=" + setting.getValue() + (value == null ? " (unknown to this build)"
                        : " (would be " + value + ")"));
            }
        }
        if (!lost.isEmpty()) {
            throw new IllegalArgumentException("the backup's cluster settings cannot be restored by this build: "
                    + String.join("; ", lost) + ". Restore with the Cohort release that wrote the backup");
        }
    }

    private static int intSetting(Map<String, String> settings, String key, int defaultValue) {
        String value = settings.get(key);
        try {
            return value == null ? defaultValue : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the backup's setting " + key + "=" + value + " is not a number", e);
        }
    }

    private static long longSetting(Map<String, String> settings, String key, long defaultValue) {
        String value = settings.get(key);
        try {
            return value == null ? defaultValue : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the backup's setting " + key + "=" + value + " is not a number", e);
        }
    }

    private static void throwIfNotEmpty(Path dataDir) throws IOException {
        if (!Files.exists(dataDir)) {
            return;
        }
        if (!Files.isDirectory(dataDir)) {
            throw new IOException(dataDir + " exists and is not a directory");
        }
        try (Stream<Path> entries = Files.list(dataDir)) {
            if (entries.findAny().isPresent()) {
                throw new IOException("data dir " + dataDir + " is not empty: a restore creates a new node's data"
                        + " dir; point --data-dir at a new or empty directory");
            }
        }
    }
}
