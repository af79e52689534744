package io.cohort.client;

import static org.awaitility.Awaitility.await;

import io.cohort.raft.ClusterSpec;
import io.cohort.server.CohortServer;
import io.cohort.server.ServerConfig;
import io.cohort.testsupport.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * Real Cohort nodes in the test JVM (real Ratis with on-disk logs, real gRPC servers on loopback
 * ports), for testing the client against the server it is written for. Node ids are 1..N.
 * Shared with cohort-cli's tests through this module's test jar.
 */
public final class LocalCluster implements AutoCloseable {
    /** Short, so that a fenced-member test does not wait 45 s; the server's allowed minimum. */
    static final int MIN_SESSION_TIMEOUT_MS = 1_000;

    private final Path root;
    private final int partitions;
    private final String peers;
    private final List<Integer> clientPorts = new ArrayList<>();
    private final CohortServer[] servers;
    /** Extra node settings for every node, e.g. tls.* or authorizer.enabled; {@code <id>} in a value is replaced by the node id. */
    private final Map<String, String> extraSettings;

    private LocalCluster(Path root, int nodes, int partitions, Map<String, String> extraSettings) {
        this.root = root;
        this.extraSettings = Map.copyOf(extraSettings);
        this.partitions = partitions;
        this.servers = new CohortServer[nodes + 1];
        List<String> entries = new ArrayList<>();
        for (int id = 1; id <= nodes; id++) {
            int clientPort = TestPorts.next();
            clientPorts.add(clientPort);
            entries.add(id + "=127.0.0.1:" + TestPorts.next() + ":" + clientPort);
        }
        this.peers = String.join(",", entries);
    }

    /** Starts {@code nodes} nodes and waits until every partition has a ready leader. */
    public static LocalCluster start(Path root, int nodes, int partitions) {
        return start(root, nodes, partitions, Map.of());
    }

    /**
     * {@link #start(Path, int, int)} with {@code extraSettings} added to every node's settings
     * ({@code <id>} in a value becomes the node id, e.g. {@code tls.cert=/certs/node-<id>.pem}).
     */
    public static LocalCluster start(Path root, int nodes, int partitions, Map<String, String> extraSettings) {
        LocalCluster cluster = new LocalCluster(root, nodes, partitions, extraSettings);
        try {
            for (int id = 1; id <= nodes; id++) {
                cluster.startNode(id);
            }
            cluster.awaitLeaders();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public void startNode(int id) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(ServerConfig.NODE_ID, Integer.toString(id));
        settings.put(ServerConfig.PEERS, peers);
        settings.put(ServerConfig.DATA_DIR, root.resolve("node-" + id).resolve("data").toString());
        settings.put(ServerConfig.LOG_DIR, root.resolve("node-" + id).resolve("logs").toString());
        settings.put(ServerConfig.PARTITIONS, Integer.toString(partitions));
        settings.put(ServerConfig.METRICS_PORT, "0");
        settings.put(ServerConfig.ELECTION_TIMEOUT_MIN_MS, "300");
        settings.put(ServerConfig.ELECTION_TIMEOUT_MAX_MS, "600");
        settings.put(ServerConfig.INITIAL_REBALANCE_DELAY_MS, "100");
        settings.put(ServerConfig.MIN_SESSION_TIMEOUT_MS, Integer.toString(MIN_SESSION_TIMEOUT_MS));
        // The leader-path warm-up (a hidden 2-node cluster, about 6 CPU-seconds) is for a deployed
        // node's first commits; here it only competes with the other test fork for the two cores.
        settings.put(ServerConfig.LEADER_WARMUP_ENABLED, "false");
        extraSettings.forEach((key, value) -> settings.put(key, value.replace("<id>", Integer.toString(id))));
        try {
            servers[id] = CohortServer.start(ServerConfig.of(settings));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops node {@code id} the orderly way (it hands off the partitions it leads). */
    public void stopNode(int id) {
        servers[id].close();
        servers[id] = null;
    }

    public void awaitLeaders() {
        await().atMost(Duration.ofSeconds(60)).until(() -> IntStream.range(0, partitions).allMatch(p -> {
            for (CohortServer server : servers) {
                if (server != null && server.node().isLeaderReady(p)) {
                    return true;
                }
            }
            return false;
        }));
    }

    /**
     * Waits until every partition is led, and ready, by its preferred node
     * ({@code ClusterSpec.preferredLeader}), where each node's leader balancer moves it a few seconds
     * after the start's elections. For a test that reads or changes every partition at once and
     * should not meet such a hand-over, in which the partition answers COORDINATOR_LOAD_IN_PROGRESS
     * ("leadership is being handed over").
     */
    public void awaitPreferredLeaders() {
        ClusterSpec spec = Arrays.stream(servers).filter(Objects::nonNull).findFirst().orElseThrow().node().spec();
        await().atMost(Duration.ofSeconds(60)).until(() -> IntStream.range(0, partitions)
                .allMatch(p -> leaderOf(p) == spec.preferredLeader(p)));
    }

    /** The node id leading {@code partition} and ready, or -1. */
    public int leaderOf(int partition) {
        for (int id = 1; id < servers.length; id++) {
            if (servers[id] != null && servers[id].node().isLeaderReady(partition)) {
                return id;
            }
        }
        return -1;
    }

    /** Node {@code id}'s Raft side (to act on one partition directly, as a test of partial states does). */
    public io.cohort.raft.CohortRaftNode raftNode(int id) {
        return servers[id].node();
    }

    /** {@code 127.0.0.1:port} of node {@code id}'s client server. */
    public String endpoint(int id) {
        return "127.0.0.1:" + clientPorts.get(id - 1);
    }

    /** Every node's client endpoint, comma-separated. */
    public String bootstrap() {
        List<String> all = new ArrayList<>();
        for (int id = 1; id < servers.length; id++) {
            all.add(endpoint(id));
        }
        return String.join(",", all);
    }

    public CohortClient client(String clientId) {
        return CohortClient.builder().bootstrap(bootstrap()).clientId(clientId).apiTimeout(Duration.ofSeconds(30))
                .build();
    }

    /**
     * Stops every node at once: each stop ends with Ratis closing its Raft port's Netty event loops,
     * which waits out Netty's 2 s quiet period, so stopping a 3-node cluster one node after the
     * other took over 6 s. (Each node still hands off what it leads, to a node that is stopping
     * too; nothing here checks that.)
     */
    @Override
    public void close() {
        List<Thread> stopping = new ArrayList<>();
        for (int id = 1; id < servers.length; id++) {
            CohortServer server = servers[id];
            if (server != null) {
                servers[id] = null;
                Thread stop = new Thread(server::close, "local-cluster-stop-n" + id);
                stop.start();
                stopping.add(stop);
            }
        }
        for (Thread stop : stopping) {
            try {
                stop.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
