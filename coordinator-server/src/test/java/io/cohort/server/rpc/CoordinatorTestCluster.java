package io.cohort.server.rpc;

import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.core.GroupConfig;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.RaftTuning;
import io.cohort.server.metrics.RpcMetrics;
import io.cohort.testsupport.TestPorts;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Real Cohort nodes in this JVM: each a {@link CohortRaftNode} (real Ratis, its own data dir and
 * loopback Raft port) with the gRPC front end of this package in front of it. One node is served
 * in-process (grpc-inprocess); several nodes are served by real Netty servers on their loopback
 * client ports, so leader hints and forwarding use the addresses a client would.
 * Node ids are 1..N, as in a deployed cluster.
 */
final class CoordinatorTestCluster implements AutoCloseable {
    /** Fast elections are fine for a few partitions in one JVM (as in raft-state-machine's tests). */
    static final RaftTuning TEST_TUNING = RaftTuning.builder().electionTimeouts(300, 600).build();
    /** Small, so a new group's first join phase ends quickly. */
    static final int INITIAL_REBALANCE_DELAY_MS = 100;

    final ClusterSpec spec;
    private final Path root;
    /** Authorization and principals for every node; null: none (every call allowed, as by default). */
    private final Security security;
    private final RaftTuning tuning;
    private final boolean inProcess;
    /** What each node's Raft side reports to: the node's ParkedCalls, or a test's wrapper of them. */
    private java.util.function.BiFunction<Integer, io.cohort.raft.PartitionListener, io.cohort.raft.PartitionListener>
            listeners = (id, parked) -> parked;
    private final Node[] nodes;
    /** Every RPC outcome the services reported, as "rpc:code". */
    final List<String> recorded = new CopyOnWriteArrayList<>();

    /** One node: its Raft side, its services, its server and a client channel to it. */
    static final class Node {
        final CohortRaftNode raft;
        final ParkedCalls parked;
        final GroupCoordinatorService coordinator;
        final ClusterAdminService admin;
        final Server server;
        final ManagedChannel channel;

        Node(CohortRaftNode raft, ParkedCalls parked, GroupCoordinatorService coordinator, ClusterAdminService admin,
             Server server, ManagedChannel channel) {
            this.raft = raft;
            this.parked = parked;
            this.coordinator = coordinator;
            this.admin = admin;
            this.server = server;
            this.channel = channel;
        }

        GroupCoordinatorGrpc.GroupCoordinatorBlockingStub blocking() {
            return GroupCoordinatorGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        }

        GroupCoordinatorGrpc.GroupCoordinatorFutureStub future() {
            return GroupCoordinatorGrpc.newFutureStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        }

        ClusterAdminGrpc.ClusterAdminBlockingStub admin() {
            return ClusterAdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        }
    }

    /** What {@code authorizer.enabled=true} with these super users and token file gives a node. */
    record Security(java.util.Set<String> superUsers, io.cohort.server.auth.TokenFile tokens) {
    }

    /** Whether the authorizers take their ACLs as loaded (a node's start, or its add, done). */
    private java.util.function.BooleanSupplier aclsLoaded = () -> true;

    private CoordinatorTestCluster(Path root, int nodeCount, int partitions, GroupConfig groupConfig) {
        this(root, nodeCount, partitions, groupConfig, null, TEST_TUNING);
    }

    private CoordinatorTestCluster(Path root, int nodeCount, int partitions, GroupConfig groupConfig,
                                   Security security, RaftTuning tuning) {
        this.root = root;
        this.security = security;
        this.tuning = tuning;
        this.inProcess = nodeCount == 1;
        List<NodeAddress> peers = new ArrayList<>();
        for (int id = 1; id <= nodeCount; id++) {
            peers.add(new NodeAddress(id, "127.0.0.1", TestPorts.next(), TestPorts.next()));
        }
        this.spec = new ClusterSpec("rpc-test", partitions, peers, groupConfig);
        this.nodes = new Node[nodeCount + 1];
    }

    static GroupConfig testGroupConfig() {
        return GroupConfig.defaults().withInitialRebalanceDelayMs(INITIAL_REBALANCE_DELAY_MS);
    }

    /** Starts {@code nodeCount} nodes and waits until every partition has a leader-ready leader. */
    static CoordinatorTestCluster start(Path root, int nodeCount, int partitions) {
        return start(root, nodeCount, partitions, testGroupConfig());
    }

    static CoordinatorTestCluster start(Path root, int nodeCount, int partitions, GroupConfig groupConfig) {
        return start(new CoordinatorTestCluster(root, nodeCount, partitions, groupConfig));
    }

    /** As {@link #start(Path, int, int)}, with the authorizer on and principals from {@code security}. */
    static CoordinatorTestCluster startSecured(Path root, int nodeCount, int partitions, Security security,
                                               RaftTuning tuning) {
        return startSecured(root, nodeCount, partitions, security, tuning, () -> true);
    }

    /** As above; the nodes' authorizers take their ACLs as loaded only while {@code aclsLoaded} says so. */
    static CoordinatorTestCluster startSecured(Path root, int nodeCount, int partitions, Security security,
                                               RaftTuning tuning, java.util.function.BooleanSupplier aclsLoaded) {
        CoordinatorTestCluster cluster = new CoordinatorTestCluster(root, nodeCount, partitions, testGroupConfig(),
                security, tuning);
        cluster.aclsLoaded = aclsLoaded;
        return start(cluster);
    }

    /**
     * As {@link #start(Path, int, int)}, each node's Raft side reporting to
     * {@code listeners.apply(nodeId, parkedCalls)}: a test wraps the ParkedCalls to watch or hold
     * the partitions' apply threads (a listener's onApplied runs on them).
     */
    static CoordinatorTestCluster startWithListeners(Path root, int nodeCount, int partitions,
            java.util.function.BiFunction<Integer, io.cohort.raft.PartitionListener, io.cohort.raft.PartitionListener>
                    listeners) {
        CoordinatorTestCluster cluster = new CoordinatorTestCluster(root, nodeCount, partitions, testGroupConfig());
        cluster.listeners = listeners;
        return start(cluster);
    }

    private static CoordinatorTestCluster start(CoordinatorTestCluster cluster) {
        int nodeCount = cluster.nodes.length - 1;
        try {
            for (int id = 1; id <= nodeCount; id++) {
                cluster.startNode(id);
            }
            cluster.awaitAllLeadersReady();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void startNode(int id) {
        try {
            ParkedCalls parked = new ParkedCalls();
            CohortRaftNode raft = CohortRaftNode.start(id, spec, root.resolve("node-" + id), tuning,
                    listeners.apply(id, parked));
            RpcMetrics metrics = (rpc, code, nanos) -> recorded.add(rpc + ":" + code);
            io.cohort.server.auth.RequestAuthorizer authorizer = security == null
                    ? io.cohort.server.auth.RequestAuthorizer.ALLOW_ALL
                    : new io.cohort.server.auth.RequestAuthorizer(true, security.superUsers(),
                            () -> raft.shard(0).acls(), aclsLoaded);
            GroupCoordinatorService coordinator = new GroupCoordinatorService(raft, parked, metrics, authorizer);
            ClusterAdminService admin = new ClusterAdminService(raft, authorizer);
            io.grpc.ServerServiceDefinition coordinatorService = coordinator.definition();
            io.grpc.ServerServiceDefinition adminService = admin.definition();
            if (security != null) {
                io.cohort.server.auth.Principals principals = new io.cohort.server.auth.Principals(security.tokens(),
                        io.cohort.server.auth.PrincipalMappingRules.DEFAULT);
                coordinatorService = io.grpc.ServerInterceptors.intercept(coordinatorService, principals);
                adminService = io.grpc.ServerInterceptors.intercept(adminService, principals);
            }
            Server server;
            ManagedChannel channel;
            if (inProcess) {
                String name = "cohort-rpc-test-" + id + "-" + System.nanoTime();
                server = InProcessServerBuilder.forName(name).addService(coordinatorService)
                        .addService(adminService).build().start();
                channel = InProcessChannelBuilder.forName(name).build();
            } else {
                NodeAddress address = spec.peer(id);
                server = NettyServerBuilder.forAddress(new InetSocketAddress(address.host(), address.clientPort()))
                        .addService(coordinatorService).addService(adminService).build().start();
                channel = NettyChannelBuilder.forAddress(address.host(), address.clientPort()).usePlaintext().build();
            }
            nodes[id] = new Node(raft, parked, coordinator, admin, server, channel);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops node {@code id} as a crash would look to the others (its data stays for a restart). */
    void stopNode(int id) {
        Node node = nodes[id];
        nodes[id] = null;
        node.channel.shutdownNow();
        node.coordinator.close();
        node.admin.close();
        node.server.shutdownNow();
        try {
            node.server.awaitTermination(5, TimeUnit.SECONDS);
            node.raft.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts node {@code id} again from its data dir, on the same ports. */
    void restartNode(int id) {
        startNode(id);
    }

    Node node(int id) {
        return nodes[id];
    }

    int size() {
        return nodes.length - 1;
    }

    /** The node that is leader-ready for {@code partition}, waiting for one. */
    Node leaderOf(int partition) {
        Node[] found = new Node[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (int id = 1; id < nodes.length; id++) {
                if (nodes[id] != null && nodes[id].raft.isLeaderReady(partition)) {
                    found[0] = nodes[id];
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** A node that does not lead {@code partition} but knows its leader. */
    Node followerOf(int partition) {
        Node leader = leaderOf(partition);
        for (int id = 1; id < nodes.length; id++) {
            Node node = nodes[id];
            if (node != leader && node != null) {
                await().atMost(Duration.ofSeconds(30)).until(() -> node.raft.leaderOf(partition) == leader.raft.nodeId());
                return node;
            }
        }
        throw new IllegalStateException("no follower of partition " + partition);
    }

    /**
     * Waits until every partition is led, leader-ready, by its preferred leader: the leader balancer
     * moves leadership there shortly after the first election, and a test that picked the first
     * leader would see it step down under its feet. With one partition nothing is moved (nothing to
     * spread): any leader-ready leader.
     */
    void awaitAllLeadersReady() {
        for (int p = 0; p < spec.partitions(); p++) {
            int partition = p;
            if (spec.partitions() == 1) {
                leaderOf(partition);
                continue;
            }
            int preferred = spec.preferredLeader(p);
            await().atMost(Duration.ofSeconds(60)).until(() -> nodes[preferred] != null
                    && nodes[preferred].raft.isLeaderReady(partition));
        }
    }

    /** Waits until every replica of {@code partition} applied the same index. */
    void awaitReplicasConverged(int partition) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            long first = nodes[1].raft.stateMachine(partition).lastAppliedIndex();
            for (int id = 2; id < nodes.length; id++) {
                if (nodes[id].raft.stateMachine(partition).lastAppliedIndex() != first) {
                    return false;
                }
            }
            return true;
        });
    }

    /** A group id that falls into {@code partition}. */
    String groupIn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String groupId = prefix + "-" + i;
            if (io.cohort.core.PartitionFunction.partitionFor(groupId, spec.partitions()) == partition) {
                return groupId;
            }
        }
    }

    @Override
    public void close() {
        for (int id = 1; id < nodes.length; id++) {
            if (nodes[id] != null) {
                try {
                    stopNode(id);
                } catch (RuntimeException e) {
                    // best effort at teardown
                }
            }
        }
    }
}
