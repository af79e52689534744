package io.cohort.server;

import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.RaftTlsSettings;
import io.cohort.raft.RaftTuning;
import io.cohort.raft.net.ConnectionLimits;
import io.cohort.server.tls.ClientTlsConfig;
import io.cohort.server.tls.ClientTlsSettings;
import io.cohort.server.auth.AuthConfig;
import io.cohort.server.auth.PrincipalMappingRules;
import io.cohort.server.rpc.RpcThreads;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Everything one node is started with: its identity, the cluster it belongs to, where it keeps its
 * files, its Raft timing and the group settings (Kafka's names and defaults).
 *
 * <p>Values come from a properties file, overridden by the command line; every key has a default
 * except {@code node.id}. {@link #load} checks everything before the node touches its data dir,
 * and a bad value fails with one {@link ConfigException} line naming the key and its source.
 *
 * @param nodeId      this node's id, 1..N, one of the peers
 * @param clusterId   the cluster's id (fixed at creation; Raft group ids derive from it)
 * @param peers       every node of the cluster, in id order
 * @param dataDir     where this node keeps its Raft logs, snapshots and cluster metadata
 * @param logDir      where this node writes {@code node-<id>.log}
 * @param partitions  the number of offsets partitions (fixed at creation)
 * @param metricsPort the HTTP port of /metrics; 0 picks a free port, -1 disables the endpoint
 * @param raftTuning  the Ratis settings ({@link RaftTuning#defaults()} with the configured overrides)
 * @param groupConfig the group coordinator settings (fixed at creation)
 * @param connectionLimits the bounds on the client and Raft ports' connections
 * @param raftTls     mutual TLS on the Raft port ({@code raft.tls.*}), or {@link RaftTlsSettings#DISABLED}
 * @param metricsHost the address /metrics binds to (default: this node's host from the peers)
 * @param clientTls   TLS of the client port and /metrics (keys {@code tls.*}, {@code metrics.tls.enabled})
 * @param auth        principals and authorization (docs/SECURITY.md)
 * @param replicationFactor {@code offsets.replication.factor}, 1..N, or 0 when not configured: then
 *                    what the data dir stores, or {@link #DEFAULT_REPLICATION_FACTOR} capped at N
 *                    for a new cluster (fixed at creation)
 * @param racks       {@code cluster.racks}: node id to rack label, every node or none (fixed at creation)
 * @param leaderWarmupEnabled {@code node.warmup.enabled}: run the leader code once on a throwaway
 *                    in-process cluster, beside the node's own start ({@link LeaderPathWarmup})
 * @param rpcThreads  which threads carry an offset commit ({@code rpc.offset.commit.inline},
 *                    {@code rpc.answer.inline}; {@link RpcThreads})
 */
public record ServerConfig(int nodeId, String clusterId, List<NodeAddress> peers, Path dataDir, Path logDir,
                           int partitions, int metricsPort, RaftTuning raftTuning, GroupConfig groupConfig,
                           ConnectionLimits connectionLimits, RaftTlsSettings raftTls, String metricsHost,
                           ClientTlsConfig clientTls, AuthConfig auth, int replicationFactor,
                           Map<Integer, String> racks, boolean leaderWarmupEnabled, RpcThreads rpcThreads) {

    public static final String NODE_ID = "node.id";
    public static final String CLUSTER_ID = "cluster.id";
    public static final String PEERS = "peers";
    public static final String DATA_DIR = "data.dir";
    public static final String LOG_DIR = "log.dir";
    public static final String PARTITIONS = "offsets.partitions";
    public static final String REPLICATION_FACTOR = "offsets.replication.factor";
    public static final String RACKS = "cluster.racks";
    /** Kafka's {@code offsets.topic.replication.factor}; a smaller cluster holds every partition on every node. */
    public static final int DEFAULT_REPLICATION_FACTOR = 3;
    public static final String METRICS_PORT = "metrics.port";
    public static final String ELECTION_TIMEOUT_MIN_MS = "raft.election.timeout.min.ms";
    public static final String ELECTION_TIMEOUT_MAX_MS = "raft.election.timeout.max.ms";
    public static final String SNAPSHOT_EVERY_ENTRIES = "raft.snapshot.every.entries";
    public static final String BATCH_MAX_COMMANDS = "raft.batch.max.commands";
    public static final String BATCH_MAX_IN_FLIGHT_ENTRIES = "raft.batch.max.inflight.entries";
    public static final String LOG_METADATA_ENABLED = "raft.log.metadata.enabled";
    /** Whether a replica fsyncs an entry before acknowledging it (false: Kafka's durability, see RaftTuning). */
    public static final String LOG_FSYNC_BEFORE_ACK = "raft.log.fsync.before.ack";
    public static final String APPENDER_WAIT_MIN_MS = "raft.appender.wait.min.ms";
    public static final String BATCH_LINGER_MAX_US = "raft.batch.linger.max.us";
    /** Kafka's name: whether the leader balancer hands partitions back to their preferred nodes. */
    public static final String AUTO_LEADER_REBALANCE_ENABLE = "auto.leader.rebalance.enable";
    /** Whether a follower stands at once when its partition leader's process exits (RaftTuning#electionOnLeaderExit). */
    public static final String ELECTION_ON_LEADER_EXIT = "raft.election.on.leader.exit";
    public static final String LEADER_WARMUP_ENABLED = "node.warmup.enabled";
    public static final String RPC_OFFSET_COMMIT_INLINE = "rpc.offset.commit.inline";
    public static final String RPC_ANSWER_INLINE = "rpc.answer.inline";
    public static final String MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
    public static final String MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
    public static final String INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
    public static final String GROUP_MAX_SIZE = "group.max.size";
    public static final String CONSUMER_SESSION_TIMEOUT_MS = GroupConfig.CONSUMER_SESSION_TIMEOUT_MS;
    public static final String CONSUMER_HEARTBEAT_INTERVAL_MS = GroupConfig.CONSUMER_HEARTBEAT_INTERVAL_MS;
    public static final String CONSUMER_MAX_SIZE = GroupConfig.CONSUMER_MAX_SIZE;
    public static final String CONSUMER_ASSIGNORS = GroupConfig.CONSUMER_ASSIGNORS;
    public static final String OFFSETS_RETENTION_MINUTES = "offsets.retention.minutes";
    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS = "offsets.retention.check.interval.ms";
    public static final String OFFSET_METADATA_MAX_BYTES = "offset.metadata.max.bytes";
    public static final String GROUP_MAX_OFFSETS = StateLimits.MAX_OFFSETS_PER_GROUP;
    public static final String PARTITION_MAX_GROUPS = StateLimits.MAX_GROUPS_PER_PARTITION;
    public static final String PARTITION_MAX_OFFSETS = StateLimits.MAX_OFFSETS_PER_PARTITION;
    public static final String PARTITION_MAX_METADATA_BYTES = StateLimits.MAX_METADATA_BYTES_PER_PARTITION;
    public static final String CLIENT_MAX_CONNECTIONS = "client.max.connections";
    public static final String CLIENT_IDLE_TIMEOUT_MS = "client.connection.idle.timeout.ms";
    public static final String RAFT_MAX_CONNECTIONS = "raft.max.connections";
    public static final String RAFT_IDLE_TIMEOUT_MS = "raft.connection.idle.timeout.ms";
    public static final String HANDSHAKE_TIMEOUT_MS = "connection.handshake.timeout.ms";
    public static final String RAFT_TLS_ENABLED = "raft.tls.enabled";
    public static final String RAFT_TLS_CERT = "raft.tls.cert";
    public static final String RAFT_TLS_KEY = "raft.tls.key";
    public static final String RAFT_TLS_CA = "raft.tls.ca";
    public static final String METRICS_HOST = "metrics.host";
    public static final String METRICS_TLS_ENABLED = "metrics.tls.enabled";
    public static final String TLS_ENABLED = "tls.enabled";
    public static final String TLS_CERT = "tls.cert";
    public static final String TLS_KEY = "tls.key";
    public static final String TLS_CA = "tls.ca";
    public static final String TLS_CLIENT_AUTH = "tls.client.auth";
    public static final String TLS_RELOAD_CHECK_INTERVAL_MS = "tls.reload.check.interval.ms";
    public static final String AUTHORIZER_ENABLED = "authorizer.enabled";
    public static final String SUPER_USERS = "super.users";
    public static final String AUTH_TOKEN_FILE = "auth.token.file";
    public static final String AUTH_PRINCIPAL_MAPPING_RULES = "auth.principal.mapping.rules";

    /** Every key a node accepts, in documentation order. */
    /** A member's client endpoint to join through (JoinBootstrap); read by CohortServerMain. */
    public static final String JOIN = "cluster.join";
    public static final List<String> KEYS = List.of(NODE_ID, CLUSTER_ID, PEERS, JOIN, DATA_DIR, LOG_DIR, PARTITIONS,
            REPLICATION_FACTOR, RACKS,
            METRICS_PORT, ELECTION_TIMEOUT_MIN_MS, ELECTION_TIMEOUT_MAX_MS, SNAPSHOT_EVERY_ENTRIES,
            BATCH_MAX_COMMANDS, BATCH_MAX_IN_FLIGHT_ENTRIES, LOG_METADATA_ENABLED, APPENDER_WAIT_MIN_MS,
            BATCH_LINGER_MAX_US, LOG_FSYNC_BEFORE_ACK,
            AUTO_LEADER_REBALANCE_ENABLE, ELECTION_ON_LEADER_EXIT, LEADER_WARMUP_ENABLED, RPC_OFFSET_COMMIT_INLINE,
            RPC_ANSWER_INLINE,
            MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS, INITIAL_REBALANCE_DELAY_MS, GROUP_MAX_SIZE,
            CONSUMER_SESSION_TIMEOUT_MS, CONSUMER_HEARTBEAT_INTERVAL_MS, CONSUMER_MAX_SIZE, CONSUMER_ASSIGNORS,
            OFFSETS_RETENTION_MINUTES, OFFSETS_RETENTION_CHECK_INTERVAL_MS, OFFSET_METADATA_MAX_BYTES,
            GROUP_MAX_OFFSETS, PARTITION_MAX_GROUPS, PARTITION_MAX_OFFSETS, PARTITION_MAX_METADATA_BYTES,
            CLIENT_MAX_CONNECTIONS, CLIENT_IDLE_TIMEOUT_MS, RAFT_MAX_CONNECTIONS, RAFT_IDLE_TIMEOUT_MS,
            HANDSHAKE_TIMEOUT_MS, RAFT_TLS_ENABLED, RAFT_TLS_CERT, RAFT_TLS_KEY, RAFT_TLS_CA,
            METRICS_HOST, METRICS_TLS_ENABLED, TLS_ENABLED, TLS_CERT, TLS_KEY, TLS_CA, TLS_CLIENT_AUTH,
            TLS_RELOAD_CHECK_INTERVAL_MS, AUTHORIZER_ENABLED, SUPER_USERS, AUTH_TOKEN_FILE,
            AUTH_PRINCIPAL_MAPPING_RULES);

    private static final Pattern CLUSTER_ID_PATTERN = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public ServerConfig {
        peers = List.copyOf(peers);
        racks = Map.copyOf(racks);
    }

    /** This node's address (host, Raft port, client port) from the peer list. */
    public NodeAddress self() {
        return peers.stream().filter(p -> p.nodeId() == nodeId).findFirst().orElseThrow();
    }

    /** What every node of the cluster must agree on; stored in the data dir at first start. */
    public ClusterSpec clusterSpec() {
        return clusterSpec(java.util.OptionalInt.empty());
    }

    /**
     * The cluster spec with the replication factor resolved: the configured one; else the one the
     * data dir stores ({@code storedReplicationFactor}, see
     * {@link io.cohort.raft.ClusterMetadata#storedReplicationFactor}: N for a cluster created before
     * the setting); else the default, at most N.
     */
    public ClusterSpec clusterSpec(java.util.OptionalInt storedReplicationFactor) {
        int rf = replicationFactor > 0 ? replicationFactor
                : storedReplicationFactor.orElse(Math.min(DEFAULT_REPLICATION_FACTOR, peers.size()));
        return new ClusterSpec(clusterId, partitions, peers, groupConfig, Math.min(rf, peers.size()), racks);
    }

    /** The settings as {@code key=value} lines, for the log at startup. */
    public Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        out.put(NODE_ID, Integer.toString(nodeId));
        out.put(CLUSTER_ID, clusterId);
        out.put(PEERS, String.join(",", peers.stream().map(NodeAddress::toSpec).toList()));
        out.put(DATA_DIR, dataDir.toString());
        out.put(LOG_DIR, logDir.toString());
        out.put(PARTITIONS, Integer.toString(partitions));
        out.put(REPLICATION_FACTOR, replicationFactor > 0 ? Integer.toString(replicationFactor)
                : "(stored, or " + Math.min(DEFAULT_REPLICATION_FACTOR, peers.size()) + " for a new cluster)");
        out.put(RACKS, io.cohort.raft.ClusterMetadata.racksSpec(racks));
        out.put(METRICS_PORT, Integer.toString(metricsPort));
        out.put(ELECTION_TIMEOUT_MIN_MS, Integer.toString(raftTuning.electionTimeoutMinMs()));
        out.put(ELECTION_TIMEOUT_MAX_MS, Integer.toString(raftTuning.electionTimeoutMaxMs()));
        out.put(SNAPSHOT_EVERY_ENTRIES, Long.toString(raftTuning.snapshotEveryEntries()));
        out.put(BATCH_MAX_COMMANDS, Integer.toString(raftTuning.maxBatchCommands()));
        out.put(BATCH_MAX_IN_FLIGHT_ENTRIES, Integer.toString(raftTuning.maxInFlightEntries()));
        out.put(LOG_METADATA_ENABLED, Boolean.toString(raftTuning.logMetadataEnabled()));
        out.put(LOG_FSYNC_BEFORE_ACK, Boolean.toString(raftTuning.fsyncBeforeAck()));
        out.put(APPENDER_WAIT_MIN_MS, Integer.toString(raftTuning.appenderWaitMinMs()));
        out.put(BATCH_LINGER_MAX_US, Integer.toString(raftTuning.batchLingerMaxMicros()));
        out.put(AUTO_LEADER_REBALANCE_ENABLE, Boolean.toString(raftTuning.leaderRebalanceEnabled()));
        out.put(ELECTION_ON_LEADER_EXIT, Boolean.toString(raftTuning.electionOnLeaderExit()));
        out.put(LEADER_WARMUP_ENABLED, Boolean.toString(leaderWarmupEnabled));
        out.put(RPC_OFFSET_COMMIT_INLINE, Boolean.toString(rpcThreads.offsetCommitOnEventLoop()));
        out.put(RPC_ANSWER_INLINE, Boolean.toString(rpcThreads.answersOnApplyThread()));
        out.put(MIN_SESSION_TIMEOUT_MS, Integer.toString(groupConfig.minSessionTimeoutMs()));
        out.put(MAX_SESSION_TIMEOUT_MS, Integer.toString(groupConfig.maxSessionTimeoutMs()));
        out.put(INITIAL_REBALANCE_DELAY_MS, Integer.toString(groupConfig.initialRebalanceDelayMs()));
        out.put(GROUP_MAX_SIZE, Integer.toString(groupConfig.maxGroupSize()));
        out.put(CONSUMER_SESSION_TIMEOUT_MS, Integer.toString(groupConfig.consumerSessionTimeoutMs()));
        out.put(CONSUMER_HEARTBEAT_INTERVAL_MS, Integer.toString(groupConfig.consumerHeartbeatIntervalMs()));
        out.put(CONSUMER_MAX_SIZE, Integer.toString(groupConfig.consumerMaxSize()));
        out.put(CONSUMER_ASSIGNORS, String.join(",", groupConfig.consumerAssignors()));
        out.put(OFFSETS_RETENTION_MINUTES, Long.toString(groupConfig.offsetsRetentionMs() / 60_000L));
        out.put(OFFSETS_RETENTION_CHECK_INTERVAL_MS, Long.toString(groupConfig.offsetsRetentionCheckIntervalMs()));
        out.put(OFFSET_METADATA_MAX_BYTES, Integer.toString(groupConfig.offsetMetadataMaxBytes()));
        StateLimits limits = groupConfig.limits();
        out.put(GROUP_MAX_OFFSETS, Integer.toString(limits.maxOffsetsPerGroup()));
        out.put(PARTITION_MAX_GROUPS, Integer.toString(limits.maxGroupsPerPartition()));
        out.put(PARTITION_MAX_OFFSETS, Integer.toString(limits.maxOffsetsPerPartition()));
        out.put(PARTITION_MAX_METADATA_BYTES, Long.toString(limits.maxMetadataBytesPerPartition()));
        out.put(CLIENT_MAX_CONNECTIONS, Integer.toString(connectionLimits.clientMaxConnections()));
        out.put(CLIENT_IDLE_TIMEOUT_MS, Long.toString(connectionLimits.clientIdleTimeoutMs()));
        out.put(RAFT_MAX_CONNECTIONS, Integer.toString(connectionLimits.raftMaxConnections()));
        out.put(RAFT_IDLE_TIMEOUT_MS, Long.toString(connectionLimits.raftIdleTimeoutMs()));
        out.put(HANDSHAKE_TIMEOUT_MS, Long.toString(connectionLimits.handshakeTimeoutMs()));
        out.put(RAFT_TLS_ENABLED, Boolean.toString(raftTls.enabled()));
        if (raftTls.enabled()) {
            out.put(RAFT_TLS_CERT, raftTls.certFile().toString());
            out.put(RAFT_TLS_KEY, raftTls.keyFile().toString());
            out.put(RAFT_TLS_CA, raftTls.caFile().toString());
        }
        out.put(METRICS_HOST, metricsHost);
        ClientTlsSettings.describe(clientTls, out);
        out.put(AUTHORIZER_ENABLED, Boolean.toString(auth.authorizerEnabled()));
        out.put(SUPER_USERS, String.join(";", new java.util.TreeSet<>(auth.superUsers())));
        out.put(AUTH_TOKEN_FILE, auth.tokenFile() == null ? "" : auth.tokenFile().toString());
        out.put(AUTH_PRINCIPAL_MAPPING_RULES, auth.principalMappingRules().toString());
        return out;
    }

    /**
     * Reads {@code file} (may be null: defaults only), applies {@code overrides} (the command line)
     * on top, and checks the result.
     *
     * @param overrideSource how to name the overrides in error messages, e.g. "the command line"
     * @throws ConfigException naming the first bad setting
     */
    public static ServerConfig load(Path file, Map<String, String> overrides, String overrideSource) {
        return load(file, Map.of(overrideSource, overrides));
    }

    /**
     * Reads {@code file} (may be null), then applies each layer of overrides in iteration order, a
     * later layer winning; a layer's key names its source in error messages (e.g. "--set").
     */
    public static ServerConfig load(Path file, Map<String, Map<String, String>> layers) {
        Settings settings = new Settings();
        if (file != null) {
            settings.putAll(readFile(file), "config file " + file);
        }
        for (Map.Entry<String, Map<String, String>> layer : layers.entrySet()) {
            settings.putAll(layer.getValue(), layer.getKey());
        }
        return settings.toConfig();
    }

    /** {@link #load} without a file: the defaults and {@code settings}. */
    public static ServerConfig of(Map<String, String> settings) {
        return load(null, settings, "the settings");
    }

    private static Map<String, String> readFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("config file " + file + " does not exist or is not a file");
        }
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> values = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            values.put(key, properties.getProperty(key));
        }
        return values;
    }

    /** The raw values with the source of each, turned into a checked config. */
    private static final class Settings {
        private final Map<String, String> values = new HashMap<>();
        private final Map<String, String> sources = new HashMap<>();

        void putAll(Map<String, String> more, String source) {
            for (Map.Entry<String, String> entry : more.entrySet()) {
                String key = entry.getKey().trim();
                if (!KEYS.contains(key)) {
                    throw new ConfigException("unknown setting '" + key + "' in " + source + "; known settings: "
                            + String.join(", ", KEYS));
                }
                values.put(key, entry.getValue() == null ? "" : entry.getValue().trim());
                sources.put(key, source);
            }
        }

        ServerConfig toConfig() {
            int nodeId = requiredInt(NODE_ID, 1, Integer.MAX_VALUE);
            String clusterId = string(CLUSTER_ID, CohortDefaults.CLUSTER_ID);
            if (!CLUSTER_ID_PATTERN.matcher(clusterId).matches()) {
                throw invalid(CLUSTER_ID, "expected 1 to 64 characters out of A-Z a-z 0-9 . _ -");
            }
            List<NodeAddress> peers = peers(nodeId);
            int partitions = intValue(PARTITIONS, CohortDefaults.PARTITIONS, 1, CohortDefaults.MAX_PARTITIONS);
            int metricsPort = intValue(METRICS_PORT, CohortDefaults.metricsPort(nodeId), -1, 65_535);
            NodeAddress self = peers.stream().filter(p -> p.nodeId() == nodeId).findFirst().orElseThrow();
            if (metricsPort == self.clientPort() || metricsPort == self.raftPort()) {
                throw invalid(METRICS_PORT, "it is also this node's client or Raft port");
            }
            Path dataDir = path(DATA_DIR, CohortDefaults.dataDir(nodeId));
            Path logDir = path(LOG_DIR, CohortDefaults.LOG_DIR);
            String metricsHost = string(METRICS_HOST, self.host());
            ClientTlsConfig clientTls = ClientTlsSettings.parse(values::get, this::source);
            int replicationFactor = values.containsKey(REPLICATION_FACTOR)
                    ? intValue(REPLICATION_FACTOR, 0, 1, Integer.MAX_VALUE) : 0;
            // A node joining through cluster.join lists only itself until the cluster's members arrive
            // (JoinBootstrap); CohortServerMain compares its setting with the cluster's instead.
            if (replicationFactor > peers.size() && !values.containsKey(JOIN)) {
                throw invalid(REPLICATION_FACTOR, "expected at most " + peers.size() + ", the number of " + PEERS
                        + ": each partition is held by that many distinct nodes");
            }
            return new ServerConfig(nodeId, clusterId, peers, dataDir, logDir, partitions, metricsPort,
                    raftTuning(partitions), groupConfig(), connectionLimits(), raftTls(), metricsHost, clientTls, auth(),
                    replicationFactor, racks(peers), booleanValue(LEADER_WARMUP_ENABLED, true),
                    new RpcThreads(booleanValue(RPC_OFFSET_COMMIT_INLINE, RpcThreads.DEFAULT.offsetCommitOnEventLoop()),
                            booleanValue(RPC_ANSWER_INLINE, RpcThreads.DEFAULT.answersOnApplyThread())));
        }

        /** {@code cluster.racks=id:rack,...}: a label for every peer or none (the placement needs all). */
        private Map<Integer, String> racks(List<NodeAddress> peers) {
            String spec = values.getOrDefault(RACKS, "");
            Map<Integer, String> racks = new TreeMap<>();
            for (String part : spec.split(",")) {
                if (part.isBlank()) {
                    continue;
                }
                String[] idAndRack = part.trim().split(":", 2);
                int id;
                try {
                    id = Integer.parseInt(idAndRack[0].trim());
                } catch (NumberFormatException e) {
                    throw invalid(RACKS, "expected id:rack,... with numeric ids, got '" + part.trim() + "'");
                }
                if (idAndRack.length != 2 || !idAndRack[1].trim().matches("[A-Za-z0-9._-]{1,64}")) {
                    throw invalid(RACKS, "expected id:rack,... with racks of 1 to 64 characters out of "
                            + "A-Z a-z 0-9 . _ -, got '" + part.trim() + "'");
                }
                if (peers.stream().noneMatch(peer -> peer.nodeId() == id)) {
                    throw invalid(RACKS, "node " + id + " is not one of the " + PEERS);
                }
                if (racks.put(id, idAndRack[1].trim()) != null) {
                    throw invalid(RACKS, "node " + id + " is labelled twice");
                }
            }
            if (!racks.isEmpty() && racks.size() != peers.size()) {
                throw invalid(RACKS, "labels " + racks.size() + " of " + peers.size() + " nodes; label every node "
                        + "or none");
            }
            return racks;
        }

        /** Upper bounds: a connection limit past 1,000,000 or a timeout past a day is a typo. */
        private ConnectionLimits connectionLimits() {
            return new ConnectionLimits(
                    intValue(CLIENT_MAX_CONNECTIONS, ConnectionLimits.DEFAULT_CLIENT_MAX_CONNECTIONS, 1, 1_000_000),
                    longValue(CLIENT_IDLE_TIMEOUT_MS, ConnectionLimits.DEFAULT_CLIENT_IDLE_TIMEOUT_MS, 1, 86_400_000),
                    intValue(RAFT_MAX_CONNECTIONS, ConnectionLimits.DEFAULT_RAFT_MAX_CONNECTIONS, 1, 1_000_000),
                    longValue(RAFT_IDLE_TIMEOUT_MS, ConnectionLimits.DEFAULT_RAFT_IDLE_TIMEOUT_MS, 1, 86_400_000),
                    longValue(HANDSHAKE_TIMEOUT_MS, ConnectionLimits.DEFAULT_HANDSHAKE_TIMEOUT_MS, 1, 86_400_000));
        }

        /**
         * {@code raft.tls.enabled=true} needs the three PEM files, each a readable file; the files
         * without the switch are refused too, so that a node never runs plaintext while its
         * operator believes it is not.
         */
        private RaftTlsSettings raftTls() {
            boolean enabled = booleanValue(RAFT_TLS_ENABLED, false);
            List<String> files = List.of(RAFT_TLS_CERT, RAFT_TLS_KEY, RAFT_TLS_CA);
            if (!enabled) {
                for (String key : files) {
                    if (values.containsKey(key)) {
                        throw new ConfigException(key + " is set (from " + source(key) + ") but " + RAFT_TLS_ENABLED
                                + " is not true: set " + RAFT_TLS_ENABLED + "=true to use it, or remove it");
                    }
                }
                return RaftTlsSettings.DISABLED;
            }
            Path[] paths = new Path[files.size()];
            for (int i = 0; i < files.size(); i++) {
                String key = files.get(i);
                if (!values.containsKey(key)) {
                    throw new ConfigException(RAFT_TLS_ENABLED + "=true (from " + source(RAFT_TLS_ENABLED) + ") needs "
                            + key + ": " + String.join(", ", files) + " name this node's peer certificate, its key and "
                            + "the peer CA (PEM files)");
                }
                paths[i] = path(key, null);
                if (!Files.isRegularFile(paths[i]) || !Files.isReadable(paths[i])) {
                    throw invalid(key, "not a readable file");
                }
            }
            return RaftTlsSettings.mutual(paths[0], paths[1], paths[2]);
        }

        private AuthConfig auth() {
            boolean enabled = booleanValue(AUTHORIZER_ENABLED, false);
            Set<String> superUsers = new java.util.TreeSet<>();
            for (String user : values.getOrDefault(SUPER_USERS, "").split(";")) {
                if (user.isBlank()) {
                    continue;
                }
                if (!user.trim().startsWith("User:") || user.trim().length() == 5) {
                    throw invalid(SUPER_USERS, "expected User:<name>;User:<name>..., got '" + user.trim() + "'");
                }
                superUsers.add(user.trim());
            }
            String tokenFile = values.getOrDefault(AUTH_TOKEN_FILE, "");
            Path tokens = tokenFile.isEmpty() ? null : path(AUTH_TOKEN_FILE, tokenFile);
            if (tokens != null && !Files.isRegularFile(tokens)) {
                throw invalid(AUTH_TOKEN_FILE, "no such file");
            }
            PrincipalMappingRules rules;
            try {
                rules = PrincipalMappingRules.parse(values.getOrDefault(AUTH_PRINCIPAL_MAPPING_RULES, "DEFAULT"));
            } catch (IllegalArgumentException e) {
                throw invalid(AUTH_PRINCIPAL_MAPPING_RULES, e.getMessage());
            }
            return new AuthConfig(enabled, superUsers, tokens, rules);
        }

        /** The defaults (election timeouts for {@code partitions}: {@link RaftTuning.Builder#electionTimeoutsFor}), then the settings given. */
        private RaftTuning raftTuning(int partitions) {
            RaftTuning defaults = RaftTuning.builder().electionTimeoutsFor(partitions).build();
            int minMs = intValue(ELECTION_TIMEOUT_MIN_MS, defaults.electionTimeoutMinMs(), 1, 600_000);
            int maxMs = intValue(ELECTION_TIMEOUT_MAX_MS, defaults.electionTimeoutMaxMs(), 2, 600_000);
            if (maxMs <= minMs) {
                throw new ConfigException(ELECTION_TIMEOUT_MAX_MS + " (" + maxMs + ", from " + source(ELECTION_TIMEOUT_MAX_MS)
                        + ") must be greater than " + ELECTION_TIMEOUT_MIN_MS + " (" + minMs + ", from "
                        + source(ELECTION_TIMEOUT_MIN_MS) + ")");
            }
            long snapshotEvery = longValue(SNAPSHOT_EVERY_ENTRIES, defaults.snapshotEveryEntries(), 1, Long.MAX_VALUE);
            int batchCommands = intValue(BATCH_MAX_COMMANDS, defaults.maxBatchCommands(), 1, 65_536);
            int inFlight = intValue(BATCH_MAX_IN_FLIGHT_ENTRIES, defaults.maxInFlightEntries(), 1, 1_024);
            boolean logMetadata = booleanValue(LOG_METADATA_ENABLED, defaults.logMetadataEnabled());
            boolean fsyncBeforeAck = booleanValue(LOG_FSYNC_BEFORE_ACK, defaults.fsyncBeforeAck());
            int appenderWaitMs = intValue(APPENDER_WAIT_MIN_MS, defaults.appenderWaitMinMs(), 0, 1_000);
            int lingerMicros = intValue(BATCH_LINGER_MAX_US, defaults.batchLingerMaxMicros(), 0, 1_000_000);
            boolean rebalance = booleanValue(AUTO_LEADER_REBALANCE_ENABLE, defaults.leaderRebalanceEnabled());
            boolean electOnExit = booleanValue(ELECTION_ON_LEADER_EXIT, defaults.electionOnLeaderExit());
            return defaults.toBuilder().electionTimeouts(minMs, maxMs).snapshotEveryEntries(snapshotEvery)
                    .batching(batchCommands, inFlight).logMetadataEnabled(logMetadata).fsyncBeforeAck(fsyncBeforeAck)
                    .appenderWaitMinMs(appenderWaitMs).batchLingerMaxMicros(lingerMicros)
                    .leaderRebalanceEnabled(rebalance).electionOnLeaderExit(electOnExit).build();
        }

        private GroupConfig groupConfig() {
            int minSession = intValue(MIN_SESSION_TIMEOUT_MS, GroupConfig.DEFAULT_MIN_SESSION_TIMEOUT_MS, 0,
                    Integer.MAX_VALUE);
            int maxSession = intValue(MAX_SESSION_TIMEOUT_MS, GroupConfig.DEFAULT_MAX_SESSION_TIMEOUT_MS, 0,
                    Integer.MAX_VALUE);
            if (maxSession < minSession) {
                throw new ConfigException(MAX_SESSION_TIMEOUT_MS + " (" + maxSession + ", from "
                        + source(MAX_SESSION_TIMEOUT_MS) + ") must be at least " + MIN_SESSION_TIMEOUT_MS + " ("
                        + minSession + ", from " + source(MIN_SESSION_TIMEOUT_MS) + ")");
            }
            int initialDelay = intValue(INITIAL_REBALANCE_DELAY_MS, GroupConfig.DEFAULT_INITIAL_REBALANCE_DELAY_MS, 0,
                    Integer.MAX_VALUE);
            int maxSize = intValue(GROUP_MAX_SIZE, GroupConfig.DEFAULT_MAX_GROUP_SIZE, 1, Integer.MAX_VALUE);
            long retentionMinutes = longValue(OFFSETS_RETENTION_MINUTES,
                    GroupConfig.DEFAULT_OFFSETS_RETENTION_MS / 60_000L, 1, Long.MAX_VALUE / 60_000L);
            long checkIntervalMs = longValue(OFFSETS_RETENTION_CHECK_INTERVAL_MS,
                    GroupConfig.DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS, 1, Long.MAX_VALUE);
            int metadataMaxBytes = intValue(OFFSET_METADATA_MAX_BYTES, GroupConfig.DEFAULT_OFFSET_METADATA_MAX_BYTES,
                    0, Integer.MAX_VALUE);
            return new GroupConfig(minSession, maxSession, initialDelay, maxSize, GroupConfig.NEW_MEMBER_JOIN_TIMEOUT_MS,
                    retentionMinutes * 60_000L, checkIntervalMs, metadataMaxBytes, stateLimits())
                    .withConsumerSettings(
                            intValue(CONSUMER_SESSION_TIMEOUT_MS, GroupConfig.DEFAULT_CONSUMER_SESSION_TIMEOUT_MS, 1,
                                    Integer.MAX_VALUE),
                            intValue(CONSUMER_HEARTBEAT_INTERVAL_MS,
                                    GroupConfig.DEFAULT_CONSUMER_HEARTBEAT_INTERVAL_MS, 1, Integer.MAX_VALUE),
                            intValue(CONSUMER_MAX_SIZE, GroupConfig.DEFAULT_CONSUMER_MAX_SIZE, 1, Integer.MAX_VALUE),
                            consumerAssignors());
        }

        /** group.consumer.assignors: names of the server assignors this build has, the first the default. */
        private List<String> consumerAssignors() {
            String text = values.get(CONSUMER_ASSIGNORS);
            if (text == null) {
                return GroupConfig.DEFAULT_CONSUMER_ASSIGNORS;
            }
            List<String> names = java.util.Arrays.stream(text.split(",")).map(String::trim)
                    .filter(name -> !name.isEmpty()).distinct().toList();
            if (names.isEmpty()) {
                throw invalid(CONSUMER_ASSIGNORS, "expected one or more of " + GroupConfig.DEFAULT_CONSUMER_ASSIGNORS);
            }
            for (String name : names) {
                if (!GroupConfig.DEFAULT_CONSUMER_ASSIGNORS.contains(name)) {
                    throw invalid(CONSUMER_ASSIGNORS, "unknown assignor '" + name + "' (this build has "
                            + GroupConfig.DEFAULT_CONSUMER_ASSIGNORS + ")");
                }
            }
            return names;
        }

        private StateLimits stateLimits() {
            int max = Integer.MAX_VALUE;
            return new StateLimits(
                    intValue(GROUP_MAX_OFFSETS, StateLimits.DEFAULT_MAX_OFFSETS_PER_GROUP, 1, max),
                    intValue(PARTITION_MAX_GROUPS, StateLimits.DEFAULT_MAX_GROUPS_PER_PARTITION, 1, max),
                    intValue(PARTITION_MAX_OFFSETS, StateLimits.DEFAULT_MAX_OFFSETS_PER_PARTITION, 1, max),
                    longValue(PARTITION_MAX_METADATA_BYTES, StateLimits.DEFAULT_MAX_METADATA_BYTES_PER_PARTITION, 0,
                            Long.MAX_VALUE));
        }

        private List<NodeAddress> peers(int nodeId) {
            String spec = string(PEERS, CohortDefaults.peers(CohortDefaults.NODES));
            List<NodeAddress> peers = new ArrayList<>();
            for (String part : spec.split(",")) {
                if (part.isBlank()) {
                    continue;
                }
                NodeAddress peer;
                try {
                    peer = NodeAddress.parse(part);
                } catch (IllegalArgumentException e) {
                    throw invalid(PEERS, e.getMessage());
                }
                if (peer.nodeId() < 1) {
                    throw invalid(PEERS, "node ids start at 1, got " + peer.nodeId());
                }
                if (peer.host().isBlank()) {
                    throw invalid(PEERS, "peer '" + part.trim() + "' has an empty host");
                }
                peers.add(peer);
            }
            if (peers.isEmpty()) {
                throw invalid(PEERS, "expected id=host:raftPort:clientPort,... with at least one peer");
            }
            peers.sort(Comparator.comparingInt(NodeAddress::nodeId));
            Set<String> endpoints = new java.util.HashSet<>();
            for (int i = 0; i < peers.size(); i++) {
                NodeAddress peer = peers.get(i);
                if (i > 0 && peers.get(i - 1).nodeId() == peer.nodeId()) {
                    throw invalid(PEERS, "node id " + peer.nodeId() + " appears twice");
                }
                for (int port : new int[] {peer.raftPort(), peer.clientPort()}) {
                    if (!endpoints.add(peer.host() + ":" + port)) {
                        throw invalid(PEERS, "address " + peer.host() + ":" + port + " is used twice");
                    }
                }
            }
            if (peers.stream().noneMatch(p -> p.nodeId() == nodeId)) {
                throw new ConfigException(NODE_ID + " " + nodeId + " (from " + source(NODE_ID) + ") is not one of the "
                        + PEERS + " (" + spec + ", from " + source(PEERS) + ")");
            }
            return peers;
        }

        private String source(String key) {
            return sources.getOrDefault(key, "the defaults");
        }

        private ConfigException invalid(String key, String why) {
            return new ConfigException("invalid " + key + " '" + values.get(key) + "' (from " + source(key) + "): "
                    + why);
        }

        private String string(String key, String defaultValue) {
            String value = values.get(key);
            if (value == null) {
                return defaultValue;
            }
            if (value.isEmpty()) {
                throw invalid(key, "must not be empty");
            }
            return value;
        }

        private Path path(String key, String defaultValue) {
            try {
                return Path.of(string(key, defaultValue));
            } catch (java.nio.file.InvalidPathException e) {
                throw invalid(key, e.getMessage());
            }
        }

        private int requiredInt(String key, int min, int max) {
            if (!values.containsKey(key)) {
                throw new ConfigException(key + " is required (--node-id N on the command line, or " + key
                        + "=N in the config file); node ids are 1..N as in " + PEERS);
            }
            return intValue(key, 0, min, max);
        }

        private boolean booleanValue(String key, boolean defaultValue) {
            String text = values.get(key);
            if (text == null) {
                return defaultValue;
            }
            return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw invalid(key, "expected true or false");
            };
        }

        private int intValue(String key, int defaultValue, int min, int max) {
            return (int) longValue(key, defaultValue, min, max);
        }

        private long longValue(String key, long defaultValue, long min, long max) {
            String text = values.get(key);
            if (text == null) {
                return defaultValue;
            }
            long value;
            try {
                value = Long.parseLong(text.replace("_", ""));
            } catch (NumberFormatException e) {
                throw invalid(key, "not an integer");
            }
            if (value < min || value > max) {
                throw invalid(key, value < min || max == Long.MAX_VALUE ? "expected " + min + " or more"
                        : "expected at most " + max);
            }
            return value;
        }
    }
}
