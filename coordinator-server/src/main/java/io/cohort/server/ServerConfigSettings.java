package io.cohort.server;

import static io.cohort.server.ServerConfig.*;

import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.RaftTlsSettings;
import io.cohort.raft.RaftTuning;
import io.cohort.raft.net.ConnectionLimits;
import io.cohort.server.tls.ClientTlsConfig;
import io.cohort.server.tls.ClientTlsSettings;
import io.cohort.server.auth.AuthConfig;
import io.cohort.server.auth.PrincipalMappingRules;
import io.cohort.server.rpc.RpcThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The raw values of a node's settings with the source of each (file, --set, environment), turned
 * into a checked {@link ServerConfig}: every parse and range check, and the one error line per bad
 * value ({@link ConfigException}) that {@link ServerConfig#load} promises.
 */
final class ServerConfigSettings {
    private static final Pattern CLUSTER_ID_PATTERN = Pattern.compile("[A-Za-z0-9._-]{1,64}");
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
                        booleanValue(RPC_ANSWER_INLINE, RpcThreads.DEFAULT.answersOnApplyThread()),
                        booleanValue(RPC_OFFSET_FETCH_INLINE, RpcThreads.DEFAULT.offsetFetchOnEventLoop()),
                        booleanValue(RPC_HEARTBEAT_INLINE, RpcThreads.DEFAULT.heartbeatOnEventLoop()),
                        booleanValue(RPC_CONSUMER_HEARTBEAT_INLINE, RpcThreads.DEFAULT.consumerHeartbeatOnEventLoop())),
                longValue(STOP_TIMEOUT_MS, DEFAULT_STOP_TIMEOUT_MS, 0, Long.MAX_VALUE));
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
        long snapshotMin = longValue(SNAPSHOT_MIN_ENTRIES, defaults.snapshotMinEntries(), 1, Long.MAX_VALUE);
        int batchCommands = intValue(BATCH_MAX_COMMANDS, defaults.maxBatchCommands(), 1, 65_536);
        int inFlight = intValue(BATCH_MAX_IN_FLIGHT_ENTRIES, defaults.maxInFlightEntries(), 1, 1_024);
        boolean logMetadata = booleanValue(LOG_METADATA_ENABLED, defaults.logMetadataEnabled());
        boolean fsyncBeforeAck = booleanValue(LOG_FSYNC_BEFORE_ACK, defaults.fsyncBeforeAck());
        int appenderWaitMs = intValue(APPENDER_WAIT_MIN_MS, defaults.appenderWaitMinMs(), 0, 1_000);
        int lingerMicros = intValue(BATCH_LINGER_MAX_US, defaults.batchLingerMaxMicros(), 0, 1_000_000);
        boolean rebalance = booleanValue(AUTO_LEADER_REBALANCE_ENABLE, defaults.leaderRebalanceEnabled());
        boolean electOnExit = booleanValue(ELECTION_ON_LEADER_EXIT, defaults.electionOnLeaderExit());
        return defaults.toBuilder().electionTimeouts(minMs, maxMs).snapshotEveryEntries(snapshotEvery)
                .snapshotMinEntries(snapshotMin)                .batching(batchCommands, inFlight).logMetadataEnabled(logMetadata).fsyncBeforeAck(fsyncBeforeAck)
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
