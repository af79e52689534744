package io.cohort.server;

import io.cohort.testsupport.TestPorts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Settings for nodes started in the test JVM, on free loopback ports, with fast Raft timeouts. */
final class TestNodes {
    private TestNodes() {
    }

    /** {@code id=127.0.0.1:raft:client,...} for {@code nodes} nodes on free ports. */
    static String peers(int nodes) {
        List<String> peers = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            peers.add(i + "=127.0.0.1:" + TestPorts.next() + ":" + TestPorts.next());
        }
        return String.join(",", peers);
    }

    static Map<String, String> settings(Path root, int nodeId, String peers, int partitions) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(ServerConfig.NODE_ID, Integer.toString(nodeId));
        settings.put(ServerConfig.PEERS, peers);
        settings.put(ServerConfig.DATA_DIR, root.resolve("node-" + nodeId).resolve("data").toString());
        settings.put(ServerConfig.LOG_DIR, root.resolve("node-" + nodeId).resolve("logs").toString());
        settings.put(ServerConfig.PARTITIONS, Integer.toString(partitions));
        settings.put(ServerConfig.METRICS_PORT, "0");
        settings.put(ServerConfig.ELECTION_TIMEOUT_MIN_MS, "300");
        settings.put(ServerConfig.ELECTION_TIMEOUT_MAX_MS, "600");
        // The leader-path warm-up (a hidden 2-node cluster, about 6 CPU-seconds) is for a deployed
        // node's first commits; here it only competes with the other test fork for the two cores.
        settings.put(ServerConfig.LEADER_WARMUP_ENABLED, "false");
        return settings;
    }

    static ServerConfig config(Path root, int nodeId, String peers, int partitions) {
        return ServerConfig.of(settings(root, nodeId, peers, partitions));
    }

    /** The same settings as command-line arguments of the main. */
    static String[] args(Path root, int nodeId, String peers, int partitions) {
        List<String> args = new ArrayList<>();
        for (Map.Entry<String, String> setting : settings(root, nodeId, peers, partitions).entrySet()) {
            args.add("--set");
            args.add(setting.getKey() + "=" + setting.getValue());
        }
        return args.toArray(String[]::new);
    }
}
