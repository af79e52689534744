package io.cohort.server;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.server.metrics.NodeMetricsRegistry;
import io.cohort.server.rpc.ClusterAdminService;
import io.cohort.server.rpc.GroupCoordinatorService;
import io.cohort.server.rpc.ParkedCalls;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.server.auth.TokenFile;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile List<LeadershipHandoff.Outcome> handoffs = List.of();
    private final CountDownLatch terminated = new CountDownLatch(1);

    private CohortServer(ServerConfig config, NodeMetricsRegistry metrics, int metricsPort, CohortRaftNode node,
                         GroupCoordinatorService groupCoordinator, ClusterAdminService clusterAdmin,
                         HealthStatusManager health, ThreadPoolExecutor rpcExecutor, Server grpcServer) {
        this.config = config;
        this.metrics = metrics;
        this.metricsPort = metricsPort;
        this.node = node;
        this.groupCoordinator = groupCoordinator;
        this.clusterAdmin = clusterAdmin;
        this.health = health;
        this.rpcExecutor = rpcExecutor;
        this.grpcServer = grpcServer;
    }

    /**
     * Starts a node; returns once it serves (health SERVING).
     *
     * @throws io.cohort.raft.ClusterMetadata.MismatchException if the data dir belongs to a cluster
     *         created with other settings
     * @throws IOException if a port cannot be bound or the data dir cannot be used
     */
    public static CohortServer start(ServerConfig config) throws IOException {
        NodeAddress self = config.self();
        LOG.info("starting node {} of cluster {}: {}", config.nodeId(), config.clusterId(), config.describe());
        NodeMetricsRegistry metrics = new NodeMetricsRegistry();
        CohortRaftNode node = null;
        ParkedCalls parked = null;
        ThreadPoolExecutor rpcExecutor = null;
        try {
            int metricsPort = config.metricsPort() < 0 ? -1 : metrics.serve(self.host(), config.metricsPort());
            parked = new ParkedCalls();
            node = CohortRaftNode.start(config.nodeId(), config.clusterSpec(), config.dataDir(), config.raftTuning(),
                    metrics.instrument(parked));
            metrics.registerNode(node);
            HealthStatusManager health = new HealthStatusManager();
            health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
            rpcExecutor = newRpcExecutor(config.nodeId());
            CohortRaftNode raftNode = node;
            RequestAuthorizer authorizer = new RequestAuthorizer(config.auth().authorizerEnabled(),
                    config.auth().superUsers(), () -> raftNode.shard(0).acls());
            Principals principals = new Principals(config.auth().tokenFile() == null ? null
                    : TokenFile.load(config.auth().tokenFile()), config.auth().principalMappingRules());
            GroupCoordinatorService groupCoordinator = new GroupCoordinatorService(node, parked, metrics.rpcMetrics(),
                    authorizer);
            ClusterAdminService clusterAdmin = new ClusterAdminService(node, authorizer);
            Server grpcServer = NettyServerBuilder.forAddress(new InetSocketAddress(self.host(), self.clientPort()))
                    .executor(rpcExecutor)
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
                    health, rpcExecutor, grpcServer);
            LOG.info("{}", server.servingLine());
            return server;
        } catch (IOException | RuntimeException e) {
            closeQuietly(node);
            if (parked != null) {
                parked.close();
            }
            if (rpcExecutor != null) {
                rpcExecutor.shutdownNow();
            }
            metrics.close();
            throw e;
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
                + " raft=" + self.host() + ":" + self.raftPort() + " metrics=" + metricsPort;
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

    /** The bound /metrics port, or -1 if metrics are disabled. */
    public int metricsPort() {
        return metricsPort;
    }

    /** What the last {@link #close()} did with each partition this node led. */
    List<LeadershipHandoff.Outcome> handoffs() {
        return handoffs;
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
}
