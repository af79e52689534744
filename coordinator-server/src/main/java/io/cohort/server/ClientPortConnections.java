package io.cohort.server;

import io.cohort.raft.net.ConnectionBudget;
import io.cohort.raft.net.ConnectionLimits;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The connection bounds of the client port ({@link ConnectionLimits}): a limit on open
 * connections, a handshake timeout and an idle timeout, and the Netty event loops they need. The
 * limit lives in the server channel ({@link LimitedClientServerChannel}, NIO: gRPC's default epoll
 * channel cannot be extended), and gRPC takes a custom channel only with event loops of its own
 * kind, so this class owns them; {@link #close()} after the gRPC server has terminated.
 */
final class ClientPortConnections implements AutoCloseable {
    private final ConnectionLimits limits;
    private final ConnectionBudget budget;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;

    ClientPortConnections(int nodeId, ConnectionLimits limits, int workerThreads) {
        this.limits = limits;
        this.budget = new ConnectionBudget("client", limits.clientMaxConnections());
        this.boss = new NioEventLoopGroup(1, new DefaultThreadFactory("cohort-client-accept-n" + nodeId, true));
        this.workers = new NioEventLoopGroup(workerThreads, new DefaultThreadFactory("cohort-client-io-n" + nodeId,
                true));
    }

    /** Sets the bounds on the client port's server builder. */
    NettyServerBuilder apply(NettyServerBuilder builder) {
        return builder.channelFactory(() -> new LimitedClientServerChannel(budget))
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .handshakeTimeout(limits.handshakeTimeoutMs(), TimeUnit.MILLISECONDS)
                .maxConnectionIdle(limits.clientIdleTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    /** The client port's open and refused connections. */
    ConnectionBudget budget() {
        return budget;
    }

    @Override
    public void close() {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
