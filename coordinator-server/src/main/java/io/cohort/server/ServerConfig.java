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
import io.cohort.server.rpc.RpcThreads;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

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
 * @param rpcThreads  which threads carry an offset commit, fetch and heartbeat ({@code rpc.offset.commit.inline},
 *                    {@code rpc.answer.inline}, {@code rpc.offset.fetch.inline}, {@code rpc.heartbeat.inline},
 *                    {@code rpc.consumer.heartbeat.inline}; {@link RpcThreads})
 * @param stopTimeoutMs {@code node.stop.timeout.ms}: how long the orderly stop of a SIGTERM may take
 *                    before the process prints every thread's stack and halts ({@link StopWatchdog}); 0: no limit
 */
public record ServerConfig(int nodeId, String clusterId, List<NodeAddress> peers, Path dataDir, Path logDir,
                           int partitions, int metricsPort, RaftTuning raftTuning, GroupConfig groupConfig,
                           ConnectionLimits connectionLimits, RaftTlsSettings raftTls, String metricsHost,
                           ClientTlsConfig clientTls, AuthConfig auth, int replicationFactor,
                           Map<Integer, String> racks, boolean leaderWarmupEnabled, RpcThreads rpcThreads,
                           long stopTimeoutMs) {

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
    public static final String SNAPSHOT_MIN_ENTRIES = "raft.snapshot.min.entries";
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
    public static final String STOP_TIMEOUT_MS = "node.stop.timeout.ms";
    /**
     * Below systemd's default TimeoutStopSec (90 s), so the stack dump comes before its SIGKILL; far
     * above an orderly stop (hand-offs at most 5 s, gRPC drain 3 s, the Raft stop and its snapshot).
     */
    public static final long DEFAULT_STOP_TIMEOUT_MS = 60_000;
    public static final String RPC_OFFSET_COMMIT_INLINE = "rpc.offset.commit.inline";
    public static final String RPC_ANSWER_INLINE = "rpc.answer.inline";
    public static final String RPC_OFFSET_FETCH_INLINE = "rpc.offset.fetch.inline";
    public static final String RPC_HEARTBEAT_INLINE = "rpc.heartbeat.inline";
    public static final String RPC_CONSUMER_HEARTBEAT_INLINE = "rpc.consumer.heartbeat.inline";
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
            METRICS_PORT, ELECTION_TIMEOUT_MIN_MS, ELECTION_TIMEOUT_MAX_MS, SNAPSHOT_EVERY_ENTRIES, SNAPSHOT_MIN_ENTRIES,
            BATCH_MAX_COMMANDS, BATCH_MAX_IN_FLIGHT_ENTRIES, LOG_METADATA_ENABLED, APPENDER_WAIT_MIN_MS,
            BATCH_LINGER_MAX_US, LOG_FSYNC_BEFORE_ACK,
            AUTO_LEADER_REBALANCE_ENABLE, ELECTION_ON_LEADER_EXIT, LEADER_WARMUP_ENABLED, STOP_TIMEOUT_MS,
            RPC_OFFSET_COMMIT_INLINE,
            RPC_ANSWER_INLINE, RPC_OFFSET_FETCH_INLINE, RPC_HEARTBEAT_INLINE, RPC_CONSUMER_HEARTBEAT_INLINE,
            MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS, INITIAL_REBALANCE_DELAY_MS, GROUP_MAX_SIZE,
            CONSUMER_SESSION_TIMEOUT_MS, CONSUMER_HEARTBEAT_INTERVAL_MS, CONSUMER_MAX_SIZE, CONSUMER_ASSIGNORS,
            OFFSETS_RETENTION_MINUTES, OFFSETS_RETENTION_CHECK_INTERVAL_MS, OFFSET_METADATA_MAX_BYTES,
            GROUP_MAX_OFFSETS, PARTITION_MAX_GROUPS, PARTITION_MAX_OFFSETS, PARTITION_MAX_METADATA_BYTES,
            CLIENT_MAX_CONNECTIONS, CLIENT_IDLE_TIMEOUT_MS, RAFT_MAX_CONNECTIONS, RAFT_IDLE_TIMEOUT_MS,
            HANDSHAKE_TIMEOUT_MS, RAFT_TLS_ENABLED, RAFT_TLS_CERT, RAFT_TLS_KEY, RAFT_TLS_CA,
            METRICS_HOST, METRICS_TLS_ENABLED, TLS_ENABLED, TLS_CERT, TLS_KEY, TLS_CA, TLS_CLIENT_AUTH,
            TLS_RELOAD_CHECK_INTERVAL_MS, AUTHORIZER_ENABLED, SUPER_USERS, AUTH_TOKEN_FILE,
            AUTH_PRINCIPAL_MAPPING_RULES);

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
        out.put(SNAPSHOT_MIN_ENTRIES, Long.toString(raftTuning.snapshotMinEntries()));
        out.put(BATCH_MAX_COMMANDS, Integer.toString(raftTuning.maxBatchCommands()));
        out.put(BATCH_MAX_IN_FLIGHT_ENTRIES, Integer.toString(raftTuning.maxInFlightEntries()));
        out.put(LOG_METADATA_ENABLED, Boolean.toString(raftTuning.logMetadataEnabled()));
        out.put(LOG_FSYNC_BEFORE_ACK, Boolean.toString(raftTuning.fsyncBeforeAck()));
        out.put(APPENDER_WAIT_MIN_MS, Integer.toString(raftTuning.appenderWaitMinMs()));
        out.put(BATCH_LINGER_MAX_US, Integer.toString(raftTuning.batchLingerMaxMicros()));
        out.put(AUTO_LEADER_REBALANCE_ENABLE, Boolean.toString(raftTuning.leaderRebalanceEnabled()));
        out.put(ELECTION_ON_LEADER_EXIT, Boolean.toString(raftTuning.electionOnLeaderExit()));
        out.put(LEADER_WARMUP_ENABLED, Boolean.toString(leaderWarmupEnabled));
        out.put(STOP_TIMEOUT_MS, Long.toString(stopTimeoutMs));
        out.put(RPC_OFFSET_COMMIT_INLINE, Boolean.toString(rpcThreads.offsetCommitOnEventLoop()));
        out.put(RPC_ANSWER_INLINE, Boolean.toString(rpcThreads.answersOnApplyThread()));
        out.put(RPC_OFFSET_FETCH_INLINE, Boolean.toString(rpcThreads.offsetFetchOnEventLoop()));
        out.put(RPC_HEARTBEAT_INLINE, Boolean.toString(rpcThreads.heartbeatOnEventLoop()));
        out.put(RPC_CONSUMER_HEARTBEAT_INLINE, Boolean.toString(rpcThreads.consumerHeartbeatOnEventLoop()));
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
        ServerConfigSettings settings = new ServerConfigSettings();
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
}
