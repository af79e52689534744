package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.RaftTlsSettings;
import io.cohort.raft.RaftTuning;
import io.cohort.raft.net.ConnectionLimits;
import io.cohort.server.rpc.RpcThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {
    @TempDir
    Path dir;

    @Test
    void testDefaultsAreTheLaptopCluster() {
        ServerConfig config = ServerConfig.of(Map.of("node.id", "2"));

        assertThat(config.nodeId()).isEqualTo(2);
        assertThat(config.clusterId()).isEqualTo("cohort");
        assertThat(config.peers()).containsExactly(
                new NodeAddress(1, "127.0.0.1", 7201, 7101),
                new NodeAddress(2, "127.0.0.1", 7202, 7102),
                new NodeAddress(3, "127.0.0.1", 7203, 7103));
        assertThat(config.self()).isEqualTo(new NodeAddress(2, "127.0.0.1", 7202, 7102));
        assertThat(config.metricsPort()).isEqualTo(7302);
        assertThat(config.dataDir()).isEqualTo(Path.of("data/node-2"));
        assertThat(config.logDir()).isEqualTo(Path.of("logs"));
        assertThat(config.partitions()).isEqualTo(CohortDefaults.PARTITIONS).isEqualTo(1);
        assertThat(config.raftTuning()).isEqualTo(RaftTuning.defaults());
        assertThat(config.groupConfig()).isEqualTo(GroupConfig.defaults());
        assertThat(config.clusterSpec().partitions()).isEqualTo(1);
        assertThat(config.raftTls()).isEqualTo(RaftTlsSettings.DISABLED);
        assertThat(config.rpcThreads()).isEqualTo(new RpcThreads(true, true, true, true, true));
    }

    @Test
    void testRaftTlsTakesItsThreePemFiles() throws IOException {
        Path cert = Files.writeString(dir.resolve("n1.crt"), "x");
        Path key = Files.writeString(dir.resolve("n1.key"), "x");
        Path ca = Files.writeString(dir.resolve("peer-ca.crt"), "x");
        ServerConfig config = ServerConfig.of(Map.of("node.id", "1", "raft.tls.enabled", "true",
                "raft.tls.cert", cert.toString(), "raft.tls.key", key.toString(), "raft.tls.ca", ca.toString()));

        assertThat(config.raftTls()).isEqualTo(RaftTlsSettings.mutual(cert, key, ca));
        assertThat(config.describe()).containsEntry("raft.tls.enabled", "true").containsEntry("raft.tls.ca",
                ca.toString());
    }

    @Test
    void testRaftTlsRefusesMissingFilesAndFilesWithoutTheSwitch() throws IOException {
        Path cert = Files.writeString(dir.resolve("n1.crt"), "x");
        Path key = Files.writeString(dir.resolve("n1.key"), "x");

        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "raft.tls.enabled", "true",
                "raft.tls.cert", cert.toString(), "raft.tls.key", key.toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("raft.tls.enabled=true (from the settings) needs raft.tls.ca");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "raft.tls.enabled", "true",
                "raft.tls.cert", cert.toString(), "raft.tls.key", key.toString(),
                "raft.tls.ca", dir.resolve("missing.crt").toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("invalid raft.tls.ca").hasMessageContaining("not a readable file");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "raft.tls.cert", cert.toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("raft.tls.cert is set (from the settings) but raft.tls.enabled is not true");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "raft.tls.enabled", "yes")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("expected true or false");
    }

    @Test
    void testFileThenOverridesLaterLayerWins() throws IOException {
        Path file = dir.resolve("node.properties");
        Files.writeString(file, String.join("\n",
                "# a 5-node cluster",
                "node.id=4",
                "cluster.id=prod-a",
                "peers=5=10.0.0.5:9205:9105, 1=10.0.0.1:9201:9101,2=10.0.0.2:9202:9102,3=10.0.0.3:9203:9103,"
                        + "4=10.0.0.4:9204:9104",
                "data.dir=/var/lib/cohort",
                "offsets.partitions=16",
                "metrics.port=9300",
                "raft.election.timeout.min.ms=1000",
                "raft.election.timeout.max.ms=2000",
                "raft.snapshot.every.entries=500",
                "raft.batch.max.commands=64",
                "raft.batch.max.inflight.entries=4",
                "raft.log.metadata.enabled=false",
                "raft.batch.linger.max.us=250",
                "raft.appender.wait.min.ms=0",
                "auto.leader.rebalance.enable=false",
                "raft.log.fsync.before.ack=false",
                "rpc.offset.commit.inline=false",
                "rpc.answer.inline=false",
                "rpc.offset.fetch.inline=false",
                "rpc.heartbeat.inline=false",
                "rpc.consumer.heartbeat.inline=false",
                "group.min.session.timeout.ms=1000",
                "group.max.session.timeout.ms=60000",
                "group.initial.rebalance.delay.ms=0",
                "group.max.size=50",
                "offsets.retention.minutes=60",
                "offsets.retention.check.interval.ms=30000",
                "offset.metadata.max.bytes=100",
                ""));
        Map<String, Map<String, String>> layers = new LinkedHashMap<>();
        layers.put("--set", Map.of("offsets.partitions", "32", "group.max.size", "7"));
        layers.put("--partitions", Map.of("offsets.partitions", "24"));

        ServerConfig config = ServerConfig.load(file, layers);

        assertThat(config.nodeId()).isEqualTo(4);
        assertThat(config.clusterId()).isEqualTo("prod-a");
        assertThat(config.peers()).extracting(NodeAddress::nodeId).containsExactly(1, 2, 3, 4, 5);
        assertThat(config.self()).isEqualTo(new NodeAddress(4, "10.0.0.4", 9204, 9104));
        assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/cohort"));
        assertThat(config.partitions()).isEqualTo(24);
        assertThat(config.metricsPort()).isEqualTo(9300);
        assertThat(config.raftTuning()).isEqualTo(
                RaftTuning.builder().electionTimeouts(1000, 2000).snapshotEveryEntries(500)
                        .batching(64, 4).logMetadataEnabled(false).appenderWaitMinMs(0)
                        .batchLingerMaxMicros(250).leaderRebalanceEnabled(false).fsyncBeforeAck(false).build());
        assertThat(config.rpcThreads()).isEqualTo(new RpcThreads(false, false, false, false, false));
        assertThat(config.groupConfig()).isEqualTo(new GroupConfig(1000, 60000, 0, 7,
                GroupConfig.NEW_MEMBER_JOIN_TIMEOUT_MS, 3_600_000L, 30_000L, 100));
    }

    @Test
    void testElectionTimeoutsDefaultToThePartitionCountsButAGivenValueWins() {
        ServerConfig fifty = ServerConfig.of(Map.of("node.id", "1", "offsets.partitions", "50"));
        assertThat(fifty.raftTuning().electionTimeoutMinMs()).isEqualTo(1_000);
        assertThat(fifty.raftTuning().electionTimeoutMaxMs()).isEqualTo(2_000);
        assertThat(fifty.describe()).containsEntry("raft.election.timeout.min.ms", "1000");

        ServerConfig given = ServerConfig.of(Map.of("node.id", "1", "offsets.partitions", "50",
                "raft.election.timeout.min.ms", "300", "raft.election.timeout.max.ms", "600"));
        assertThat(given.raftTuning().electionTimeoutMinMs()).isEqualTo(300);
        assertThat(given.raftTuning().electionTimeoutMaxMs()).isEqualTo(600);
    }

    @Test
    void testStateLimitsHaveDefaultsAndCanBeSet() {
        assertThat(ServerConfig.of(Map.of("node.id", "1")).groupConfig().limits()).isEqualTo(StateLimits.defaults());

        ServerConfig config = ServerConfig.of(Map.of("node.id", "1", "group.max.offsets", "1000",
                "offsets.partition.max.groups", "200", "offsets.partition.max.offsets", "3000",
                "offsets.partition.max.metadata.bytes", "4194304"));

        assertThat(config.groupConfig().limits()).isEqualTo(new StateLimits(1000, 200, 3000, 4L << 20));
        assertThat(config.describe()).containsEntry("group.max.offsets", "1000")
                .containsEntry("offsets.partition.max.groups", "200")
                .containsEntry("offsets.partition.max.offsets", "3000")
                .containsEntry("offsets.partition.max.metadata.bytes", "4194304");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "offsets.partition.max.groups", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("invalid offsets.partition.max.groups '0'");
    }

    @Test
    void testRetentionMinutesDefaultIsSevenDays() {
        ServerConfig config = ServerConfig.of(Map.of("node.id", "1"));
        assertThat(config.groupConfig().offsetsRetentionMs()).isEqualTo(7L * 24 * 60 * 60 * 1000);
        assertThat(config.describe()).containsEntry("offsets.retention.minutes", "10080")
                .containsEntry("offsets.partitions", "1");
    }

    @Test
    void testTheStopTimeoutDefaultsToAMinuteZeroMeansNoneAndNegativeIsRefused() {
        assertThat(ServerConfig.of(Map.of("node.id", "1")).stopTimeoutMs()).isEqualTo(60_000);
        assertThat(ServerConfig.of(Map.of("node.id", "1", "node.stop.timeout.ms", "0")).describe())
                .containsEntry("node.stop.timeout.ms", "0");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "node.stop.timeout.ms", "-1")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("node.stop.timeout.ms");
    }

    @Test
    void testABooleanSettingMustBeTrueOrFalse() {
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "raft.log.metadata.enabled", "yes")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid raft.log.metadata.enabled 'yes' (from the settings): expected true or false");
    }

    @Test
    void testMissingNodeIdIsAClearError() {
        assertThatThrownBy(() -> ServerConfig.of(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("node.id is required (--node-id N on the command line, or node.id=N in the config "
                        + "file); node ids are 1..N as in peers");
    }

    @Test
    void testBadValuesNameTheKeyAndTheirSource() {
        assertError(Map.of("node.id", "1", "offsets.partitions", "many"), "--set",
                "invalid offsets.partitions 'many' (from --set): not an integer");
        assertError(Map.of("node.id", "1", "offsets.partitions", "0"), "--set",
                "invalid offsets.partitions '0' (from --set): expected 1 or more");
        assertError(Map.of("node.id", "1", "offsets.partitions", "5000"), "--set",
                "invalid offsets.partitions '5000' (from --set): expected at most 1000");
        assertError(Map.of("node.id", "0"), "--node-id",
                "invalid node.id '0' (from --node-id): expected 1 or more");
        assertError(Map.of("node.id", "4"), "--node-id",
                "node.id 4 (from --node-id) is not one of the peers (1=127.0.0.1:7201:7101,2=127.0.0.1:7202:7102,"
                        + "3=127.0.0.1:7203:7103, from the defaults)");
        assertError(Map.of("node.id", "1", "metrics.port", "70000"), "--set",
                "invalid metrics.port '70000' (from --set): expected at most 65535");
        assertError(Map.of("node.id", "1", "metrics.port", "7101"), "--set",
                "invalid metrics.port '7101' (from --set): it is also this node's client or Raft port");
        assertError(Map.of("node.id", "1", "cluster.id", "a b"), "--set",
                "invalid cluster.id 'a b' (from --set): expected 1 to 64 characters out of A-Z a-z 0-9 . _ -");
        assertError(Map.of("node.id", "1", "data.dir", ""), "--set",
                "invalid data.dir '' (from --set): must not be empty");
    }

    @Test
    void testBadPeers() {
        assertError(Map.of("node.id", "1", "peers", "1=localhost:7201"), "--peers",
                "invalid peers '1=localhost:7201' (from --peers): peer '1=localhost:7201' is not of the form "
                        + "id=host:raftPort:clientPort");
        assertError(Map.of("node.id", "1", "peers", "1=h:1:2,1=h:3:4"), "--peers",
                "invalid peers '1=h:1:2,1=h:3:4' (from --peers): node id 1 appears twice");
        assertError(Map.of("node.id", "1", "peers", "1=h:1:2,2=h:2:3"), "--peers",
                "invalid peers '1=h:1:2,2=h:2:3' (from --peers): address h:2 is used twice");
        assertError(Map.of("node.id", "1", "peers", "0=h:1:2"), "--peers",
                "invalid peers '0=h:1:2' (from --peers): node ids start at 1, got 0");
        assertError(Map.of("node.id", "1", "peers", " , "), "--peers",
                "invalid peers ',' (from --peers): expected id=host:raftPort:clientPort,... with at least one peer");
    }

    @Test
    void testInconsistentRangesNameBothKeys() {
        assertError(Map.of("node.id", "1", "raft.election.timeout.min.ms", "2000",
                        "raft.election.timeout.max.ms", "1000"), "--set",
                "raft.election.timeout.max.ms (1000, from --set) must be greater than raft.election.timeout.min.ms "
                        + "(2000, from --set)");
        assertError(Map.of("node.id", "1", "group.min.session.timeout.ms", "7000",
                        "group.max.session.timeout.ms", "6000"), "--set",
                "group.max.session.timeout.ms (6000, from --set) must be at least group.min.session.timeout.ms "
                        + "(7000, from --set)");
    }

    @Test
    void testUnknownKeyIsRejectedWithTheKnownOnes() {
        assertThatThrownBy(() -> ServerConfig.load(null, Map.of("node.id", "1", "offsets.partition", "3"), "--set"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("unknown setting 'offsets.partition' in --set; known settings: node.id, "
                        + "cluster.id, peers,");
    }

    @Test
    void testMissingOrUnreadableFile() {
        Path missing = dir.resolve("nope.properties");
        assertThatThrownBy(() -> ServerConfig.load(missing, Map.of(), "--set"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config file " + missing + " does not exist or is not a file");
    }

    @Test
    void testFileValuesAreAttributedToTheFile() throws IOException {
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "node.id=1\ngroup.max.size=none\n");
        assertThatThrownBy(() -> ServerConfig.load(file, Map.of(), "--set"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid group.max.size 'none' (from config file " + file + "): not an integer");
    }

    @Test
    void testCommandLineOptionsOverrideSetAndFile() throws IOException {
        Path file = dir.resolve("node.properties");
        Files.writeString(file, "node.id=3\nmetrics.port=9000\n");
        CohortServerMain main = new CohortServerMain();
        new picocli.CommandLine(main).parseArgs("--config", file.toString(), "--set", "metrics.port=9001",
                "--metrics-port", "9002", "--node-id", "2", "--set", "peers=1=h:1:2,2=h:3:4");

        ServerConfig config = main.toConfig();

        assertThat(config.nodeId()).isEqualTo(2);
        assertThat(config.metricsPort()).isEqualTo(9002);
        assertThat(config.peers()).hasSize(2);
    }

    @Test
    void testMainRejectsBadConfigWithExitCode2() {
        var err = new java.io.ByteArrayOutputStream();
        var out = new java.io.ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(new String[] {"--node-id", "1", "--partitions", "x"},
                new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));

        assertThat(launch.server()).isNull();
        assertThat(launch.exitCode()).isEqualTo(CohortServerMain.EXIT_BAD_CONFIG);
        assertThat(err.toString()).isEqualTo("cohort-server: bad configuration: invalid offsets.partitions 'x' "
                + "(from --partitions): not an integer" + System.lineSeparator());
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void testMainRejectsUnknownOptionWithExitCode2() {
        var err = new java.io.ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(new String[] {"--nodes", "3"},
                new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true), new java.io.PrintStream(err, true));

        assertThat(launch.exitCode()).isEqualTo(CohortServerMain.EXIT_BAD_CONFIG);
        assertThat(err.toString()).startsWith("cohort-server: Unknown options: '--nodes', '3' (see --help)");
    }

    @Test
    void testHelpListsEveryKeyTheParserAccepts() {
        var out = new java.io.ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(new String[] {"--help"},
                new java.io.PrintStream(out, true), new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true));

        assertThat(launch.exitCode()).isEqualTo(CohortServerMain.EXIT_OK);
        // The help wraps lines inside keys ("raft.<newline>snapshot..."), so compare without whitespace.
        assertThat(out.toString().replaceAll("\\s+", ""))
                .contains("Keys:" + String.join(",", ServerConfig.KEYS) + "(docs/OPERATIONS.md)");
    }

    private static void assertError(Map<String, String> settings, String source, String message) {
        assertThatThrownBy(() -> ServerConfig.load(null, settings, source))
                .isInstanceOf(ConfigException.class)
                .hasMessage(message);
    }

    @Test
    void testConnectionLimitsHaveDefaultsAndAreChecked() {
        assertThat(ServerConfig.of(Map.of("node.id", "1")).connectionLimits())
                .isEqualTo(ConnectionLimits.defaults());
        ServerConfig set = ServerConfig.of(Map.of("node.id", "1", "client.max.connections", "100",
                "client.connection.idle.timeout.ms", "2000", "raft.max.connections", "16",
                "raft.connection.idle.timeout.ms", "3000", "connection.handshake.timeout.ms", "500"));
        assertThat(set.connectionLimits()).isEqualTo(new ConnectionLimits(100, 2_000, 16, 3_000, 500));
        assertThat(set.describe()).containsEntry("raft.max.connections", "16");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "raft.max.connections", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid raft.max.connections '0' (from the settings): expected 1 or more");
    }

    private static final String FIVE_PEERS = "1=127.0.0.1:7201:7101,2=127.0.0.1:7202:7102,3=127.0.0.1:7203:7103,"
            + "4=127.0.0.1:7204:7104,5=127.0.0.1:7205:7105";

    @Test
    void testTheReplicationFactorDefaultsToThreeAtMostNAndDefersToTheDataDir() {
        ServerConfig five = ServerConfig.of(Map.of("node.id", "1", "peers", FIVE_PEERS));
        assertThat(five.replicationFactor()).isZero();
        assertThat(five.clusterSpec().replicationFactor()).isEqualTo(3);
        // A data dir created before the setting stands for RF = N, and it wins over the default.
        assertThat(five.clusterSpec(java.util.OptionalInt.of(5)).replicationFactor()).isEqualTo(5);
        assertThat(ServerConfig.of(Map.of("node.id", "1", "peers", "1=127.0.0.1:7201:7101"))
                .clusterSpec().replicationFactor()).isEqualTo(1);
        ServerConfig two = ServerConfig.of(Map.of("node.id", "1", "peers", FIVE_PEERS,
                "offsets.replication.factor", "2", "offsets.partitions", "6"));
        assertThat(two.clusterSpec(java.util.OptionalInt.of(5)).replicationFactor())
                .as("a configured value is checked against the stored one, not replaced").isEqualTo(2);
        assertThat(two.clusterSpec().replicas(1)).hasSize(2);
        assertThat(two.clusterSpec().replicas(0)).as("partition 0 (ACLs) on every node").hasSize(5);
    }

    @Test
    void testAReplicationFactorAboveTheNodeCountIsAConfigError() {
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "offsets.replication.factor", "4")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("offsets.replication.factor '4'").hasMessageContaining("at most 3");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "offsets.replication.factor", "0")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("offsets.replication.factor");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        CohortServerMain.Launch launch = CohortServerMain.launch(new String[] {"--node-id", "1", "--set",
                "offsets.replication.factor=5"}, new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                new java.io.PrintStream(err));
        assertThat(launch.exitCode()).isEqualTo(CohortServerMain.EXIT_BAD_CONFIG).isEqualTo(2);
        assertThat(err.toString()).contains("offsets.replication.factor");
    }

    @Test
    void testRackLabelsNameEveryNodeOrNone() {
        ServerConfig racked = ServerConfig.of(Map.of("node.id", "1", "cluster.racks", "1:eu-a, 2:eu-b,3:eu-c"));
        assertThat(racked.racks()).isEqualTo(Map.of(1, "eu-a", 2, "eu-b", 3, "eu-c"));
        assertThat(racked.clusterSpec().racks()).isEqualTo(racked.racks());
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "cluster.racks", "1:a,2:b")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("label every node or none");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "cluster.racks", "1:a,2:b,9:c")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("node 9 is not one of the peers");
        assertThatThrownBy(() -> ServerConfig.of(Map.of("node.id", "1", "cluster.racks", "1:a,2,3:c")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("expected id:rack");
    }
}
