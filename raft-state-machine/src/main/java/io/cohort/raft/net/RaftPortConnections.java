package io.cohort.raft.net;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The connection bounds of the Raft port, applied to the gRPC server Ratis builds through Ratis's
 * services customizer ({@code raft.grpc.server.services.customizer}): a connection limit, a
 * handshake timeout and an idle timeout (see {@link ConnectionLimits}). Every server Ratis builds
 * for the node shares one budget.
 *
 * <p>What stays unbounded without authentication: a flood can take every slot of the limit, and
 * then a peer's new connection (after a restart of either node) is refused until the flood's
 * connections time out; connections peers already hold keep working. Telling peers from strangers
 * needs mutual TLS.
 */
public final class RaftPortConnections implements GrpcServices.Customizer, AutoCloseable {
    /** Netty's default for a server's I/O threads, two per core. */
    private static final int WORKER_THREADS = 2 * Runtime.getRuntime().availableProcessors();

    /** How long {@link #close} waits for the I/O threads to end (they have no work left by then). */
    private static final long CLOSE_TIMEOUT_MS = 2_000;

    private final ConnectionLimits limits;
    private final ConnectionBudget budget;
    private final GrpcServices.Customizer next;
    private final EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("raft-port-boss", true));
    private final EventLoopGroup workers = new NioEventLoopGroup(WORKER_THREADS,
            new DefaultThreadFactory("raft-port-io", true));

    private RaftPortConnections(ConnectionLimits limits, GrpcServices.Customizer next) {
        this.limits = limits;
        this.next = next;
        this.budget = new ConnectionBudget("raft", limits.raftMaxConnections());
    }

    /**
     * Sets the bounds on a Raft server's settings; the node reports the counts of {@link #budget()}
     * and closes this after the Raft server. The limit lives in the server channel, which gRPC takes
     * only together with event loops of its kind: NIO ones (epoll's server channel cannot be
     * extended; at a Raft port's traffic the difference is negligible), which this class owns rather
     * than Ratis: Ratis stops the event loops it creates with Netty's default two-second quiet
     * period, which every node stop (a SIGTERM, a rolling restart) would wait for, while by the time
     * this closes the Raft server has stopped and there is nothing left to be quiet for. Ratis has
     * one customizer slot, so {@code next} (the node's other customizer, e.g. its port guard) is
     * applied after the bounds.
     */
    public static RaftPortConnections install(RaftProperties properties, Parameters parameters,
                                              ConnectionLimits limits, GrpcServices.Customizer next) {
        RaftPortConnections customizer = new RaftPortConnections(limits, next);
        // No sizes: Ratis then creates no event loops of its own (ours come with the channel below).
        GrpcConfigKeys.setUseEpoll(properties, false);
        GrpcConfigKeys.Server.setBossGroupSize(properties, 0);
        GrpcConfigKeys.Server.setWorkerGroupSize(properties, 0);
        GrpcConfigKeys.Server.setServicesCustomizer(parameters, customizer);
        return customizer;
    }

    /** The open and refused connections of the Raft port. */
    public ConnectionBudget budget() {
        return budget;
    }

    /** Stops the Raft port's I/O threads at once; call after the Raft server closed. */
    @Override
    public void close() {
        boss.shutdownGracefully(0, CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        workers.shutdownGracefully(0, CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        boss.terminationFuture().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        workers.terminationFuture().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
    }

    @Override
    public NettyServerBuilder customize(NettyServerBuilder builder, EnumSet<GrpcServices.Type> services) {
        NettyServerBuilder bounded = builder.bossEventLoopGroup(boss).workerEventLoopGroup(workers)
                .channelFactory(() -> new LimitedRaftServerChannel(budget))
                .handshakeTimeout(limits.handshakeTimeoutMs(), TimeUnit.MILLISECONDS)
                .maxConnectionIdle(limits.raftIdleTimeoutMs(), TimeUnit.MILLISECONDS);
        return next.customize(bounded, services);
    }
}
