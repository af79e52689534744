package io.cohort.raft;

import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The cluster metadata file ({@code cluster.properties} in a node's data dir): written at the first
 * start, compared at every later start. A node asked to start with another cluster id, partition
 * count, peer list or group settings refuses, naming each difference, instead of silently routing
 * groups to other partitions or applying the log with other rules than its replicas.
 */
public final class ClusterMetadata {
    public static final String FILE_NAME = "cluster.properties";
    /** The replication factor's key; absent from files written before it existed (= every node). */
    public static final String REPLICATION_FACTOR = "offsets.replication.factor";
    /** The nodes' rack labels, {@code id:rack,...}; absent or empty without labels. */
    public static final String RACKS = "cluster.racks";
    /** The initial members ({@code --initial-cluster}); not checked at restart. */
    public static final String PEERS = "peers";
    private static final int FORMAT_VERSION = 1;
    private static final Properties LATER_KEY_DEFAULTS = defaultsOfLaterKeys();

    private ClusterMetadata() {
    }

    /** Thrown when the data dir belongs to a cluster with other settings. */
    public static final class MismatchException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MismatchException(String message) {
            super(message);
        }
    }

    /** Whether {@code dataDir} holds the metadata (the node started there before). */
    public static boolean isWritten(Path dataDir) {
        return Files.exists(dataDir.resolve(FILE_NAME));
    }

    /**
     * Writes {@code spec} for node {@code nodeId} if the data dir has no metadata yet, else checks it.
     *
     * @return true if the metadata was written now (a new node), false if it was found and matched
     * @throws MismatchException if the stored metadata differs
     */
    public static boolean writeOrVerify(Path dataDir, int nodeId, ClusterSpec spec) throws IOException {
        Files.createDirectories(dataDir);
        Path file = dataDir.resolve(FILE_NAME);
        Properties expected = toProperties(nodeId, spec);
        if (!isWritten(dataDir)) {
            Path temp = dataDir.resolve(FILE_NAME + ".tmp");
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
                for (String key : new java.util.TreeSet<>(expected.stringPropertyNames())) {
                    out.write(key + "=" + expected.getProperty(key) + "\n");
                }
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            return true;
        }
        Properties stored = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            stored.load(in);
        }
        List<String> differences = new ArrayList<>();
        for (String key : new java.util.TreeSet<>(expected.stringPropertyNames())) {
            if (PEERS.equals(key)) {
                // The initial members only: once the data dir exists, partition 0's Raft
                // configuration is the membership (Membership), changed online by add/remove-node.
                continue;
            }
            String want = expected.getProperty(key);
            String have = stored.getProperty(key, laterKeyDefault(key, spec));
            if (!want.equals(have)) {
                differences.add(key + ": stored " + have + ", configured " + want);
            }
        }
        if (!differences.isEmpty()) {
            throw new MismatchException("Data dir " + dataDir + " belongs to a cluster created with other settings ("
                    + String.join("; ", differences) + "). These cannot change after creation: start the node with "
                    + "the stored values, or point it at an empty data dir to create a new cluster.");
        }
        return false;
    }

    /**
     * The replication factor stored in {@code dataDir}'s metadata: empty for a new data dir, the
     * number of peers the file lists for a file written before the setting existed (every node held
     * every partition), else the stored value.
     */
    public static OptionalInt storedReplicationFactor(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return OptionalInt.empty();
        }
        Properties stored = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            stored.load(in);
        }
        String value = stored.getProperty(REPLICATION_FACTOR);
        try {
            if (value != null) {
                return OptionalInt.of(Integer.parseInt(value.trim()));
            }
            String peers = stored.getProperty("peers", "");
            return OptionalInt.of((int) java.util.Arrays.stream(peers.split(",")).filter(p -> !p.isBlank()).count());
        } catch (NumberFormatException e) {
            throw new MismatchException("Data dir " + dataDir + ": " + FILE_NAME + " has a non-numeric "
                    + REPLICATION_FACTOR + " '" + value + "'");
        }
    }

    /**
     * The cluster's fixed settings as server setting keys (what a node started with
     * {@code cluster.join} takes from a member, {@code JoinInfo}): everything
     * {@link #writeOrVerify} checks except the node id and the peers; the retention in minutes.
     */
    public static java.util.Map<String, String> clusterSettings(ClusterSpec spec) {
        return settingsOf(toProperties(0, spec));
    }

    /** {@link #clusterSettings} of the metadata stored in {@code dataDir}, with its peers; empty if none. */
    public static Optional<java.util.Map<String, String>> storedSettings(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties stored = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            stored.load(in);
        }
        java.util.Map<String, String> settings = settingsOf(stored);
        settings.put(PEERS, stored.getProperty(PEERS, ""));
        return Optional.of(settings);
    }

    private static java.util.Map<String, String> settingsOf(Properties p) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (String key : p.stringPropertyNames()) {
            switch (key) {
                case "format.version", "node.id", PEERS -> { }
                case "offsets.retention.ms" -> out.put("offsets.retention.minutes",
                        Long.toString(Long.parseLong(p.getProperty(key).trim()) / 60_000L));
                default -> out.put(key, p.getProperty(key));
            }
        }
        return out;
    }

    /** A file without {@code key} was written before it existed; it stands for this value. */
    private static String laterKeyDefault(String key, ClusterSpec spec) {
        if (REPLICATION_FACTOR.equals(key)) {
            return Integer.toString(spec.peers().size());
        }
        if (RACKS.equals(key)) {
            return "";
        }
        return LATER_KEY_DEFAULTS.getProperty(key);
    }

    /** {@code id:rack,...} in id order, empty without labels. */
    public static String racksSpec(java.util.Map<Integer, String> racks) {
        return new java.util.TreeMap<>(racks).entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
    }

    static Properties toProperties(int nodeId, ClusterSpec spec) {
        Properties p = new Properties();
        GroupConfig g = spec.groupConfig();
        p.setProperty("format.version", Integer.toString(FORMAT_VERSION));
        p.setProperty("cluster.id", spec.clusterId());
        p.setProperty("node.id", Integer.toString(nodeId));
        p.setProperty("offsets.partitions", Integer.toString(spec.partitions()));
        p.setProperty("peers", String.join(",", spec.peers().stream().map(NodeAddress::toSpec).toList()));
        p.setProperty(REPLICATION_FACTOR, Integer.toString(spec.replicationFactor()));
        p.setProperty(RACKS, racksSpec(spec.racks()));
        p.setProperty("group.min.session.timeout.ms", Integer.toString(g.minSessionTimeoutMs()));
        p.setProperty("group.max.session.timeout.ms", Integer.toString(g.maxSessionTimeoutMs()));
        p.setProperty("group.initial.rebalance.delay.ms", Integer.toString(g.initialRebalanceDelayMs()));
        p.setProperty("group.max.size", Integer.toString(g.maxGroupSize()));
        putConsumerSettings(p, g);
        p.setProperty("offsets.retention.ms", Long.toString(g.offsetsRetentionMs()));
        p.setProperty("offsets.retention.check.interval.ms", Long.toString(g.offsetsRetentionCheckIntervalMs()));
        p.setProperty("offset.metadata.max.bytes", Integer.toString(g.offsetMetadataMaxBytes()));
        StateLimits limits = g.limits();
        p.setProperty(StateLimits.MAX_OFFSETS_PER_GROUP, Integer.toString(limits.maxOffsetsPerGroup()));
        p.setProperty(StateLimits.MAX_GROUPS_PER_PARTITION, Integer.toString(limits.maxGroupsPerPartition()));
        p.setProperty(StateLimits.MAX_OFFSETS_PER_PARTITION, Integer.toString(limits.maxOffsetsPerPartition()));
        p.setProperty(StateLimits.MAX_METADATA_BYTES_PER_PARTITION,
                Long.toString(limits.maxMetadataBytesPerPartition()));
        return p;
    }

    /** The consumer-protocol settings (issue 17): fixed, since the core decides with them on every replica. */
    private static void putConsumerSettings(Properties p, GroupConfig g) {
        p.setProperty(GroupConfig.CONSUMER_SESSION_TIMEOUT_MS, Integer.toString(g.consumerSessionTimeoutMs()));
        p.setProperty(GroupConfig.CONSUMER_HEARTBEAT_INTERVAL_MS, Integer.toString(g.consumerHeartbeatIntervalMs()));
        p.setProperty(GroupConfig.CONSUMER_MAX_SIZE, Integer.toString(g.consumerMaxSize()));
        p.setProperty(GroupConfig.CONSUMER_ASSIGNORS, String.join(",", g.consumerAssignors()));
    }

    /**
     * The keys added after format version 1 with the value a file without them stands for. A cluster
     * created by an older build has no state limits in its file; it was created with no limits at
     * all, but it starts with the defaults (which only refuse growth beyond them, never state already
     * held: see {@code StateLimits}), and so do nodes started with the defaults: a missing key
     * compares equal to its default.
     */
    static Properties defaultsOfLaterKeys() {
        Properties p = new Properties();
        putConsumerSettings(p, GroupConfig.defaults());
        StateLimits limits = StateLimits.defaults();
        p.setProperty(StateLimits.MAX_OFFSETS_PER_GROUP, Integer.toString(limits.maxOffsetsPerGroup()));
        p.setProperty(StateLimits.MAX_GROUPS_PER_PARTITION, Integer.toString(limits.maxGroupsPerPartition()));
        p.setProperty(StateLimits.MAX_OFFSETS_PER_PARTITION, Integer.toString(limits.maxOffsetsPerPartition()));
        p.setProperty(StateLimits.MAX_METADATA_BYTES_PER_PARTITION,
                Long.toString(limits.maxMetadataBytesPerPartition()));
        return p;
    }
}
