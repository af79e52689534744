package io.cohort.raft.net;

import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;

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
public final class RaftPortConnections implements GrpcServices.Customizer {
    /** Netty's default for a server's I/O threads, two per core. */
    private static final int WORKER_THREADS = 2 * Runtime.getRuntime().availableProcessors();

    private final ConnectionLimits limits;
    private final ConnectionBudget budget;
    private final GrpcServices.Customizer next;

    private RaftPortConnections(ConnectionLimits limits, GrpcServices.Customizer next) {
        this.limits = limits;
        this.next = next;
        this.budget = new ConnectionBudget("raft", limits.raftMaxConnections());
    }

    /**
     * Sets the bounds on a Raft server's settings; returns the budget, whose counts the node
     * reports. The limit lives in the server channel, which gRPC takes only together with event
     * loops of its kind: Ratis creates (and stops) its own when given their sizes, and NIO ones
     * with epoll off (epoll's server channel cannot be extended; at a Raft port's traffic the
     * difference is negligible). Ratis has one customizer slot, so {@code next} (the node's other
     * customizer, e.g. its port guard) is applied after the bounds.
     */
    public static ConnectionBudget install(RaftProperties properties, Parameters parameters, ConnectionLimits limits,
                                           GrpcServices.Customizer next) {
        RaftPortConnections customizer = new RaftPortConnections(limits, next);
        GrpcConfigKeys.setUseEpoll(properties, false);
        GrpcConfigKeys.Server.setBossGroupSize(properties, 1);
        GrpcConfigKeys.Server.setWorkerGroupSize(properties, WORKER_THREADS);
        GrpcConfigKeys.Server.setServicesCustomizer(parameters, customizer);
        return customizer.budget;
    }

    @Override
    public NettyServerBuilder customize(NettyServerBuilder builder, EnumSet<GrpcServices.Type> services) {
        NettyServerBuilder bounded = builder.channelFactory(() -> new LimitedRaftServerChannel(budget))
                .handshakeTimeout(limits.handshakeTimeoutMs(), TimeUnit.MILLISECONDS)
                .maxConnectionIdle(limits.raftIdleTimeoutMs(), TimeUnit.MILLISECONDS);
        return next.customize(bounded, services);
    }
}
