package io.cohort.server;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.core.shard.Result;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.ForwardingPartitionListener;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.PartitionListener;
import io.cohort.raft.RaftPortOptions;
import io.cohort.raft.net.ConnectionBudget;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.server.auth.TokenFile;
import io.cohort.server.metrics.NodeMetricsRegistry;
import io.cohort.server.rpc.ClusterAdminService;
import io.cohort.server.rpc.GroupCoordinatorService;
import io.cohort.server.rpc.ParkedCalls;
import io.cohort.server.tls.ServerTls;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Cohort node: the Raft node hosting a replica of every partition, the gRPC front end
 * (GroupCoordinator, ClusterAdmin, health, reflection) on the client port, and /metrics over HTTP.
 *
 * <p>Start order: metrics endpoint, Raft node (checks the cluster metadata in the data dir, then
 * replays snapshots and logs), gRPC server, health SERVING. {@link #close()} stops in the reverse
 * order after handing the partitions this node leads to caught-up peers; it is what the SIGTERM
 * hook runs. A SIGKILL skips all of it and loses nothing acknowledged: Ratis acknowledges an entry
 * only after a majority has written it to its log with fsync, so the surviving replicas have it and
 * the killed node replays it from its own log on restart.
 */
public final class CohortServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CohortServer.class);

    /** How long one partition's hand-off may take before the node gives up on it. */
    static final long HANDOFF_TRANSFER_TIMEOUT_MS = 3_000;
    /** How long all hand-offs together may take. */
    static final long HANDOFF_TOTAL_TIMEOUT_MS = 5_000;
    /** How long in-flight calls may finish after the gRPC server stops taking new ones. */
    static final long GRPC_DRAIN_TIMEOUT_MS = 3_000;
    /**
     * gRPC handlers validate, submit to Raft or read, and return; waiting happens in futures, not
     * threads. Two threads per core keep the node's 2-core budget; the queue bounds memory, and a
     * call beyond it is refused rather than queued without limit.
     */
    static final int RPC_THREADS = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
    static final int RPC_QUEUE = 10_000;

    private final ServerConfig config;
    private final NodeMetricsRegistry metrics;
    private final int metricsPort;
    private final CohortRaftNode node;
    private final GroupCoordinatorService groupCoordinator;
    private final ClusterAdminService clusterAdmin;
    private final HealthStatusManager health;
    private final ThreadPoolExecutor rpcExecutor;
    private final Server grpcServer;
    private final ClientPortConnections connections;
    private final AtomicBoolean closed;
    private volatile List<LeadershipHandoff.Outcome> handoffs = List.of();
    private final CountDownLatch terminated = new CountDownLatch(1);
    /** Completed with what failed once this node's storage failed (see {@link #onStorageFailed}). */
    private final CompletableFuture<String> storageFailed;
    /** Learns the leaders of partitions this node holds no replica of; null if it holds them all. */
    private volatile PartitionLeaderDirectory leaderDirectory;
    /** Null with raft.election.on.leader.exit=false. */
    private volatile PeerExitWatch peerExitWatch;
    /** The thread this node started for the leader-path warm-up, or null if it started none. */
    private final Thread warmup;

    private CohortServer(ServerConfig config, NodeMetricsRegistry metrics, int metricsPort, CohortRaftNode node,
                         GroupCoordinatorService groupCoordinator, ClusterAdminService clusterAdmin,
                         HealthStatusManager health, ThreadPoolExecutor rpcExecutor, Server grpcServer,
                         CompletableFuture<String> storageFailed, ClientPortConnections connections,
                         AtomicBoolean closed, Thread warmup) {
        this.config = config;
        this.closed = closed;
        this.warmup = warmup;
        this.metrics = metrics;
        this.metricsPort = metricsPort;
        this.node = node;
        this.groupCoordinator = groupCoordinator;
        this.clusterAdmin = clusterAdmin;
        this.health = health;
        this.rpcExecutor = rpcExecutor;
        this.grpcServer = grpcServer;
        this.storageFailed = storageFailed;
        this.connections = connections;
    }

    /**
     * Starts a node; returns once it serves (health SERVING).
     *
     * @throws io.cohort.raft.ClusterMetadata.MismatchException if the data dir belongs to a cluster
     *         created with other settings
     * @throws IOException if a port cannot be bound or the data dir cannot be used
     */
    public static CohortServer start(ServerConfig config) throws IOException {
        return start(config, false);
    }

    /**
     * Starts a node; {@code joining}: it was started with {@code cluster.join} and its new replicas
     * wait, empty, to be added by {@code cohort cluster add-node} ({@link CohortRaftNode#start}).
     */
    public static CohortServer start(ServerConfig config, boolean joining) throws IOException {
        NodeAddress self = config.self();
        LOG.info("starting node {} of cluster {}: {}", config.nodeId(), config.clusterId(), config.describe());
        // First, beside the node's own start: the warm-up needs all the time it can get before the
        // cluster hands this node a partition, and a failed start stops it (closed).
        AtomicBoolean closed = new AtomicBoolean();
        // Set once the node knows how much log its replicas apply again: a long replay holds the warm-up's calls.
        AtomicReference<Future<?>> warmupHold = new AtomicReference<>();
        Thread warmup = LeaderPathWarmup.startInBackground(config, closed::get, warmupHold::get);
        NodeMetricsRegistry metrics = new NodeMetricsRegistry();
        CohortRaftNode node = null;
        ParkedCalls parked = null;
        ThreadPoolExecutor rpcExecutor = null;
        ClientPortConnections connections = null;
        try {
            ServerTls tls = config.clientTls().enabled() ? ServerTls.load(config.clientTls()) : null;
            int metricsPort = config.metricsPort() < 0 ? -1 : metrics.serve(config.metricsHost(), config.metricsPort(),
                    config.clientTls().metricsTls() ? tls.metricsHttps() : null);
            warnIfMetricsExposed(config, metricsPort);
            parked = new ParkedCalls();
            CompletableFuture<String> storageFailed = new CompletableFuture<>();
            // The replication factor, when not configured, is the one this node's data dir was created with.
            node = CohortRaftNode.start(config.nodeId(),
                    config.clusterSpec(io.cohort.raft.ClusterMetadata.storedReplicationFactor(config.dataDir())),
                    config.dataDir(), config.raftTuning(),
                    new RaftPortOptions(config.connectionLimits(), config.raftTls()),
                    new StorageFailureListener(metrics.instrument(parked), storageFailed), joining);
            metrics.registerNode(node);
            warmupHold.set(LeaderPathWarmup.replayToHoldFor(node));
            HealthStatusManager health = new HealthStatusManager();
            health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
            rpcExecutor = newRpcExecutor(config.nodeId());
            CohortRaftNode raftNode = node;
            RequestAuthorizer authorizer = new RequestAuthorizer(config.auth().authorizerEnabled(),
                    config.auth().superUsers(), () -> raftNode.shard(0).acls(), raftNode::clusterStateLoaded);
            Principals principals = new Principals(config.auth().tokenFile() == null ? null
                    : TokenFile.load(config.auth().tokenFile()), config.auth().principalMappingRules());
            PeerChannels peerChannels = PeerChannels.of(tls);
            GroupCoordinatorService groupCoordinator = new GroupCoordinatorService(node, parked, metrics.rpcMetrics(),
                    authorizer, peerChannels, config.rpcThreads());
            // Other nodes give this node's calls the principal of the certificate it presents (none without TLS).
            ServerTls presented = tls;
            ClusterAdminService clusterAdmin = new ClusterAdminService(node, peerChannels, authorizer,
                    presented == null ? () -> Principals.ANONYMOUS : () -> principals.principalOf(presented.certificate()));
            // I/O threads: two per core, as gRPC's shared default that the limited channel replaces.
            connections = new ClientPortConnections(config.nodeId(), config.connectionLimits(), RPC_THREADS);
            metrics.registerConnections(List.of(connections.budget(), node.raftPort().connections()));
            InetSocketAddress clientAddress = new InetSocketAddress(self.host(), self.clientPort());
            Server grpcServer = config.rpcThreads().applyTo(connections.apply(tls == null
                            ? NettyServerBuilder.forAddress(clientAddress)
                            : NettyServerBuilder.forAddress(clientAddress, tls.grpcCredentials())), rpcExecutor)
                    .addService(ServerInterceptors.intercept(groupCoordinator.definition(), principals))
                    .addService(ServerInterceptors.intercept(clusterAdmin.definition(), principals))
                    .addService(health.getHealthService())
                    .addService(ProtoReflectionServiceV1.newInstance())
                    .addService(reflectionV1Alpha())
                    .permitKeepAliveTime(5, TimeUnit.SECONDS)
                    .build();
            try {
                grpcServer.start();
            } catch (IOException e) {
                throw new IOException("cannot serve clients on " + self.host() + ":" + self.clientPort() + ": "
                        + e.getMessage(), e);
            }
            // The Raft server is up and the front end listens: serve.
            for (String service : List.of(HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
                    GroupCoordinatorGrpc.SERVICE_NAME, ClusterAdminGrpc.SERVICE_NAME)) {
                health.setStatus(service, ServingStatus.SERVING);
            }
            CohortServer server = new CohortServer(config, metrics, metricsPort, node, groupCoordinator, clusterAdmin,
                    health, rpcExecutor, grpcServer, storageFailed, connections, closed, warmup);
            server.leaderDirectory = PartitionLeaderDirectory.startIfNeeded(node, peerChannels);
            if (config.raftTuning().electionOnLeaderExit()) {
                server.peerExitWatch = new PeerExitWatch(config.nodeId(), () -> raftNode.spec().peers(),
                        peerChannels::watchChannel, raftNode::peerProcessExited).start();
            }
            // On its own thread: the failure is reported on a Ratis thread that the stop must not hold.
            storageFailed.thenAcceptAsync(server::onStorageFailed,
                    runnable -> new Thread(runnable, "cohort-storage-failure-stop").start());
            LOG.info("{}", server.servingLine());
            return server;
        } catch (IOException | RuntimeException e) {
            closed.set(true);
            closeQuietly(node);
            if (parked != null) {
                parked.close();
            }
            if (rpcExecutor != null) {
                rpcExecutor.shutdownNow();
            }
            if (connections != null) {
                connections.close();
            }
            metrics.close();
            throw e;
        }
    }

    /**
     * With TLS on the client port, a plaintext /metrics on an address other hosts reach is worth a
     * line in the log: it exposes group names and rates (docs/SECURITY.md).
     */
    private static void warnIfMetricsExposed(ServerConfig config, int metricsPort) {
        if (metricsPort < 0 || !config.clientTls().enabled() || config.clientTls().metricsTls()) {
            return;
        }
        try {
            if (!java.net.InetAddress.getByName(config.metricsHost()).isLoopbackAddress()) {
                LOG.warn("the client port uses TLS but /metrics is plaintext on {}:{}; set {}=127.0.0.1 or {}=true",
                        config.metricsHost(), metricsPort, ServerConfig.METRICS_HOST, ServerConfig.METRICS_TLS_ENABLED);
            }
        } catch (java.net.UnknownHostException e) {
            // serve() bound it, so the name resolves; nothing to warn about otherwise.
        }
    }

    /** The older reflection protocol, which grpcurl before 1.9 and other tools still ask for. */
    @SuppressWarnings("deprecation")
    private static io.grpc.BindableService reflectionV1Alpha() {
        return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
    }

    private static ThreadPoolExecutor newRpcExecutor(int nodeId) {
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(RPC_THREADS, RPC_THREADS, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(RPC_QUEUE), runnable -> {
                    Thread thread = new Thread(runnable, "cohort-rpc-n" + nodeId + "-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /** The line a node prints on stdout once it serves; scripts and the cluster tests wait for it. */
    public String servingLine() {
        NodeAddress self = config.self();
        return "COHORT NODE " + config.nodeId() + " SERVING client=" + self.host() + ":" + grpcServer.getPort()
                + " raft=" + self.host() + ":" + self.raftPort() + " metrics=" + metricsPort
                + (config.clientTls().enabled() ? " tls=" + config.clientTls().clientAuth().value() : "");
    }

    public ServerConfig config() {
        return config;
    }

    public CohortRaftNode node() {
        return node;
    }

    /** The bound client (gRPC) port. */
    public int clientPort() {
        return grpcServer.getPort();
    }

    /** The node's metrics (what /metrics serves). */
    io.prometheus.metrics.model.registry.PrometheusRegistry metricsRegistry() {
        return metrics.registry();
    }

    /** The client port's open and refused connections. */
    ConnectionBudget clientConnections() {
        return connections.budget();
    }

    /** The bound /metrics port, or -1 if metrics are disabled. */
    public int metricsPort() {
        return metricsPort;
    }

    /** The leader-path warm-up's thread if this node started one ({@link LeaderPathWarmup}), else null. */
    Thread warmupThread() {
        return warmup;
    }

    /** What the last {@link #close()} did with each partition this node led. */
    List<LeadershipHandoff.Outcome> handoffs() {
        return handoffs;
    }

    /**
     * This node cannot write its storage, and Ratis cannot reopen a failed log in place: stop at
     * once, after which {@code CohortServerMain} exits with its storage-failure code so a
     * supervisor starts the node again. Queued and in-flight commands were already answered by the
     * Raft node (COORDINATOR_NOT_AVAILABLE).
     *
     * <p>Unlike {@link #close()}, no hand-off, and the Raft server stops first: a transfer makes
     * the peers elect, and this node would persist their vote requests to the failed disk, where
     * Ratis 3.3 replaces {@code raft-meta} with an empty file (it commits the temporary file of a
     * write that failed) and the replica can no longer start (seen in {@code DiskFullIT}). The
     * partitions this node led fail over by election, as after a crash.
     */
    private void onStorageFailed(String description) {
        LOG.error("node {} stops because its storage failed ({}); restart it once {} is writable again",
                config.nodeId(), description, config.dataDir());
        if (!closed.compareAndSet(false, true)) {
            return; // an orderly stop is already under way
        }
        long startNanos = System.nanoTime();
        try {
            health.enterTerminalState();
            closePeerWatches();
            closeQuietly(node);
            groupCoordinator.close();
            clusterAdmin.close();
            stopGrpc();
            metrics.close();
            rpcExecutor.shutdownNow();
            LOG.info("node {} stopped after its storage failed, in {} ms", config.nodeId(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        } finally {
            terminated.countDown();
        }
    }

    /** What failed, once this node's storage failed; then the node is stopping or stopped. */
    public Optional<String> storageFailure() {
        return Optional.ofNullable(storageFailed.getNow(null));
    }

    /** Completes when this node's storage fails (never, normally). */
    public CompletableFuture<String> storageFailed() {
        return storageFailed;
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * The orderly stop: health NOT_SERVING (load balancers and clients stop sending), hand every
     * partition this node leads to a caught-up peer, close the services (they refuse new calls and
     * answer parked ones, which tells clients to find the new coordinator), stop the gRPC server
     * (in-flight calls get a bounded time to finish), then stop the Raft node. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            awaitTerminationQuietly();
            return;
        }
        long startNanos = System.nanoTime();
        LOG.info("node {} stopping", config.nodeId());
        try {
            health.enterTerminalState();
            handoffs = LeadershipHandoff.run(node, HANDOFF_TRANSFER_TIMEOUT_MS,
                    HANDOFF_TOTAL_TIMEOUT_MS, config.raftTuning().electionTimeoutMaxMs());
            // The services refuse new work and answer their parked calls, so the drain below is short.
            groupCoordinator.close();
            clusterAdmin.close();
            stopGrpc();
            connections.close();
            closePeerWatches();
            closeQuietly(node);
            metrics.close();
            rpcExecutor.shutdownNow();
            LOG.info("node {} stopped in {} ms ({} of {} led partitions handed off)", config.nodeId(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                    handoffs.stream().filter(LeadershipHandoff.Outcome::handedOff).count(), handoffs.size());
        } finally {
            terminated.countDown();
        }
    }

    /** Stops the node's watches of the other nodes: the leader directory's polls and the exit watch. */
    private void closePeerWatches() {
        PartitionLeaderDirectory directory = leaderDirectory;
        if (directory != null) {
            directory.close();
        }
        PeerExitWatch exitWatch = peerExitWatch;
        if (exitWatch != null) {
            exitWatch.close();
        }
    }

    private void stopGrpc() {
        grpcServer.shutdown();
        try {
            if (!grpcServer.awaitTermination(GRPC_DRAIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                LOG.warn("calls still running after {} ms; cancelling them", GRPC_DRAIN_TIMEOUT_MS);
                grpcServer.shutdownNow();
                grpcServer.awaitTermination(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            grpcServer.shutdownNow();
        }
    }

    private void awaitTerminationQuietly() {
        try {
            terminated.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(CohortRaftNode node) {
        if (node == null) {
            return;
        }
        try {
            node.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("error while stopping the Raft node", e);
        }
    }

    /** Passes every event on and completes {@code storageFailed} when the node's storage fails. */
    private static final class StorageFailureListener extends ForwardingPartitionListener {
        private final CompletableFuture<String> storageFailed;

        StorageFailureListener(PartitionListener delegate, CompletableFuture<String> storageFailed) {
            super(delegate);
            this.storageFailed = storageFailed;
        }

        @Override
        public void onStorageFailed(String description, Throwable cause) {
            delegate.onStorageFailed(description, cause);
            storageFailed.complete(description + (cause == null ? "" : ": " + cause));
        }
    }
}
