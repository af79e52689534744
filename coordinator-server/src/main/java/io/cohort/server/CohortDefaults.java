package io.cohort.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The laptop defaults of a Cohort node: node {@code i} serves clients on 127.0.0.1:(7100+i), Raft on
 * 7200+i and metrics over HTTP on 7300+i, and a cluster is three such nodes.
 */
public final class CohortDefaults {
    /** The default cluster id; Raft group ids derive from it, so two clusters never share one. */
    public static final String CLUSTER_ID = "cohort";
    /**
     * The default number of offsets partitions (Raft groups). One: a partition is the unit of group
     * commit, and every Raft group costs its own threads, heartbeats and fsyncs on every node. On
     * 2 cores (docs/BENCHMARKS.md, "Tuning") P = 1 commits 3.1x (C=32) and 3.4x (C=8) more offsets per
     * second than P = 3, whose three leaders each batched a third of the load. Clusters whose nodes
     * have cores to spare can choose P >= N to spread the leaders' work.
     */
    public static final int PARTITIONS = 1;
    /** The most partitions a node accepts: each is a Raft group with its own buffers and threads. */
    public static final int MAX_PARTITIONS = 1_000;
    public static final String HOST = "127.0.0.1";
    public static final int CLIENT_PORT_BASE = 7100;
    public static final int RAFT_PORT_BASE = 7200;
    public static final int METRICS_PORT_BASE = 7300;
    public static final int NODES = 3;
    public static final String LOG_DIR = "logs";

    private CohortDefaults() {
    }

    public static int clientPort(int nodeId) {
        return CLIENT_PORT_BASE + nodeId;
    }

    public static int raftPort(int nodeId) {
        return RAFT_PORT_BASE + nodeId;
    }

    public static int metricsPort(int nodeId) {
        return METRICS_PORT_BASE + nodeId;
    }

    /** The default data dir of node {@code nodeId}, relative to the working directory. */
    public static String dataDir(int nodeId) {
        return "data/node-" + nodeId;
    }

    /** The peers of a local cluster of {@code nodes} nodes: {@code 1=127.0.0.1:7201:7101,...}. */
    public static String peers(int nodes) {
        List<String> peers = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            peers.add(i + "=" + HOST + ":" + raftPort(i) + ":" + clientPort(i));
        }
        return String.join(",", peers);
    }
}
