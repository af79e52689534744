package io.cohort.raft;

import static org.awaitility.Awaitility.await;

import io.cohort.core.GroupConfig;
import io.cohort.core.shard.Result;
import io.cohort.testsupport.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

/**
 * A cluster of real Ratis servers in this JVM, each with its own on-disk data dir and its own
 * loopback Raft port, for testing the replication layer. (Separate JVM processes and SIGKILL are
 * the cluster-tests module's job.)
 */
final class RaftTestCluster implements AutoCloseable {
    /** Fast timeouts are fine for 3 nodes with a few partitions in one JVM. */
    static final RaftTuning TEST_TUNING = RaftTuning.builder().electionTimeouts(300, 600).leaderBalanceHoldMs(1_000).build();

    final Path root;
    final ClusterSpec spec;
    final RaftTuning tuning;
    private final CohortRaftNode[] nodes;
    /** Each node's Raft port TLS, used at its next start. */
    private final RaftTlsSettings[] tls;
    /** Answers to parked calls, as each node's front end would have delivered them. */
    final Map<Integer, Map<io.cohort.core.shard.ParkKey, io.cohort.core.response.Response>> delivered =
            new ConcurrentHashMap<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    /** Per node: while present, that node's apply thread waits here at its next applied entry ({@link #holdApplies}). */
    private final Map<Integer, java.util.concurrent.CountDownLatch> applyHolds = new ConcurrentHashMap<>();

    RaftTestCluster(Path root, int nodeCount, int partitions, GroupConfig groupConfig, RaftTuning tuning) {
        this(root, nodeCount, partitions, nodeCount, groupConfig, tuning);
    }

    RaftTestCluster(Path root, int nodeCount, int partitions, int replicationFactor, GroupConfig groupConfig,
                    RaftTuning tuning) {
        this.root = root;
        this.tuning = tuning;
        List<NodeAddress> peers = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            peers.add(new NodeAddress(i, "127.0.0.1", TestPorts.next(), TestPorts.next()));
        }
        this.spec = new ClusterSpec("test-cluster", partitions, peers, groupConfig, replicationFactor, Map.of());
        this.nodes = new CohortRaftNode[nodeCount];
        this.tls = new RaftTlsSettings[nodeCount];
        java.util.Arrays.fill(tls, RaftTlsSettings.DISABLED);
    }

    static RaftTestCluster start(Path root, int nodeCount, int partitions, GroupConfig groupConfig) {
        return start(root, nodeCount, partitions, groupConfig, TEST_TUNING);
    }

    static RaftTestCluster start(Path root, int nodeCount, int partitions, GroupConfig groupConfig, RaftTuning tuning) {
        return start(new RaftTestCluster(root, nodeCount, partitions, groupConfig, tuning));
    }

    /** Each partition on {@code replicationFactor} of the nodes, as {@link ClusterSpec} places it. */
    static RaftTestCluster start(Path root, int nodeCount, int partitions, int replicationFactor,
                                 GroupConfig groupConfig, RaftTuning tuning) {
        return start(new RaftTestCluster(root, nodeCount, partitions, replicationFactor, groupConfig, tuning));
    }

    private static RaftTestCluster start(RaftTestCluster cluster) {
        int nodeCount = cluster.nodes.length;
        for (int i = 0; i < nodeCount; i++) {
            cluster.startNode(i);
        }
        cluster.awaitAllLeadersReady();
        return cluster;
    }

    /**
     * Starts a cluster whose nodes use {@code tlsOf.apply(nodeId)} on their Raft port (built before
     * any node starts, so the test can issue certificates for the ports chosen).
     */
    static RaftTestCluster start(Path root, int nodeCount, int partitions, GroupConfig groupConfig,
                                 java.util.function.BiFunction<Integer, NodeAddress, RaftTlsSettings> tlsOf) {
        RaftTestCluster cluster = new RaftTestCluster(root, nodeCount, partitions, groupConfig, TEST_TUNING);
        for (int i = 0; i < nodeCount; i++) {
            cluster.useTls(i, tlsOf.apply(i, cluster.spec.peer(i)));
        }
        for (int i = 0; i < nodeCount; i++) {
            cluster.startNode(i);
        }
        cluster.awaitAllLeadersReady();
        return cluster;
    }

    /** The Raft port TLS node {@code nodeId} gets at its next start. */
    void useTls(int nodeId, RaftTlsSettings settings) {
        tls[nodeId] = settings;
    }

    Path dataDir(int nodeId) {
        return root.resolve("node-" + nodeId);
    }

    void startNode(int nodeId) {
        try {
            Map<io.cohort.core.shard.ParkKey, io.cohort.core.response.Response> mine =
                    delivered.computeIfAbsent(nodeId, id -> new ConcurrentHashMap<>());
            nodes[nodeId] = CohortRaftNode.start(nodeId, spec, dataDir(nodeId), tuning,
                    RaftPortOptions.unbounded(tls[nodeId]),
                    new PartitionListener() {
                        @Override
                        public void onApplied(int partition, List<Result> results) {
                            java.util.concurrent.CountDownLatch hold = applyHolds.get(nodeId);
                            if (hold != null) {
                                try {
                                    hold.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                            for (Result result : results) {
                                for (Result.Completion completion : result.completions()) {
                                    mine.put(completion.key(), completion.response());
                                }
                            }
                        }

                        @Override
                        public void onLeaderReady(int partition) {
                            events.add("n" + nodeId + " ready p" + partition);
                        }

                        @Override
                        public void onStepDown(int partition) {
                            events.add("n" + nodeId + " stepdown p" + partition);
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Holds node {@code nodeId}'s apply threads at their next applied entry, as a stuck apply thread
     * would be, until the returned release runs (also before the node is stopped).
     */
    Runnable holdApplies(int nodeId) {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        applyHolds.put(nodeId, hold);
        return () -> {
            applyHolds.remove(nodeId, hold);
            hold.countDown();
        };
    }

    void stopNode(int nodeId) {
        java.util.concurrent.CountDownLatch hold = applyHolds.remove(nodeId);
        if (hold != null) {
            hold.countDown();
        }
        try {
            nodes[nodeId].close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        nodes[nodeId] = null;
    }

    CohortRaftNode node(int nodeId) {
        return nodes[nodeId];
    }

    List<CohortRaftNode> runningNodes() {
        return IntStream.range(0, nodes.length).filter(i -> nodes[i] != null).mapToObj(i -> nodes[i]).toList();
    }

    /** The running node that is leader-ready for {@code partition}, waiting for one. */
    CohortRaftNode leaderOf(int partition) {
        for (CohortRaftNode node : runningNodes()) {
            if (node.isLeaderReady(partition)) {
                return node;
            }
        }
        CohortRaftNode[] found = new CohortRaftNode[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (CohortRaftNode node : runningNodes()) {
                if (node.isLeaderReady(partition)) {
                    found[0] = node;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /**
     * Waits until every partition is led, and while all nodes run (with several partitions and the
     * balancer on), led by its preferred node: a
     * leader elected before the preferred node was up hands over to it once it has caught up, and
     * tests should not start their workload in the middle of that handover.
     */
    void awaitAllLeadersReady() {
        boolean allRunning = runningNodes().size() == nodes.length;
        for (int p = 0; p < spec.partitions(); p++) {
            int partition = p;
            if (allRunning && tuning.leaderRebalanceEnabled() && spec.partitions() > 1) {
                CohortRaftNode preferred = nodes[indexOf(spec.preferredLeader(partition))];
                await().atMost(Duration.ofSeconds(60)).until(() -> preferred.isLeaderReady(partition));
            } else {
                leaderOf(partition);
            }
        }
    }

    private int indexOf(int nodeId) {
        for (int i = 0; i < spec.peers().size(); i++) {
            if (spec.peers().get(i).nodeId() == nodeId) {
                return i;
            }
        }
        throw new IllegalArgumentException("no node " + nodeId);
    }

    /**
     * Submits to the current leader, re-finding it when leadership moves in flight (as a client
     * does on NOT_COORDINATOR): under a loaded machine a leader can step down mid-test.
     */
    Result submitToLeader(int partition, io.cohort.core.command.Command command) throws Exception {
        Exception last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                return leaderOf(partition).submit(partition, command).get(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof ProposalException)) {
                    throw e;
                }
                last = e;
                await().pollDelay(Duration.ofMillis(50)).atMost(Duration.ofSeconds(1)).until(() -> true);
            }
        }
        throw last;
    }

    /** Waits until every running replica of {@code partition} applied the same index. */
    void awaitReplicasConverged(int partition) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            long[] applied = runningNodes().stream()
                    .mapToLong(n -> n.stateMachine(partition).lastAppliedIndex()).toArray();
            return applied.length > 0 && java.util.Arrays.stream(applied).allMatch(a -> a == applied[0]);
        });
    }

    @Override
    public void close() {
        applyHolds.values().forEach(java.util.concurrent.CountDownLatch::countDown);
        applyHolds.clear();
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                try {
                    nodes[i].close();
                } catch (IOException | RuntimeException e) {
                    // best effort at teardown
                }
                nodes[i] = null;
            }
        }
    }
}
