package io.cohort.raft;

import io.cohort.raft.net.ConnectionBudget;
import io.cohort.raft.net.ConnectionLimits;
import io.cohort.raft.net.RaftPortConnections;
import java.io.IOException;
import java.util.List;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;

/**
 * A node's Raft port as Cohort guards it on top of Ratis's gRPC server: the {@link RaftPortGuard}
 * (only peers' server-to-server calls), the connection bounds ({@link RaftPortConnections}) and
 * mutual TLS ({@link RaftTls}), installed into the Ratis server's parameters before it is built;
 * and what they counted since start.
 */
public final class RaftPort implements AutoCloseable {
    private final RaftPortGuard guard;
    /** Null without TLS on the Raft port. */
    private final RaftTls tls;
    private final ConnectionBudget connections;
    /** The port's bounds and I/O threads; null when connections are unbounded. */
    private final RaftPortConnections boundedConnections;

    private RaftPort(RaftPortGuard guard, RaftTls tls, ConnectionBudget connections,
                     RaftPortConnections boundedConnections) {
        this.guard = guard;
        this.tls = tls;
        this.connections = connections;
        this.boundedConnections = boundedConnections;
    }

    /** Installs the guard, the bounds and TLS of {@code options} into the Ratis server's settings. */
    static RaftPort install(RaftPortOptions options, List<NodeAddress> peers, RaftProperties properties,
                            Parameters parameters) throws IOException {
        RaftTls tls = RaftTls.open(options.tls());
        RaftPortGuard guard = new RaftPortGuard(peers, tls != null);
        // One customizer slot in Ratis: the connection bounds, then the guard, on every server it builds.
        ConnectionLimits limits = options.connectionLimits();
        RaftPort port;
        if (limits == null) {
            GrpcConfigKeys.Server.setServicesCustomizer(parameters, guard);
            port = new RaftPort(guard, tls, new ConnectionBudget("raft", Integer.MAX_VALUE), null);
        } else {
            RaftPortConnections bounded = RaftPortConnections.install(properties, parameters, limits, guard);
            port = new RaftPort(guard, tls, bounded.budget(), bounded);
        }
        // TLS is Ratis's own (GrpcTlsConfig): the SSL handler sits under the customizer's bounds and guard.
        if (tls != null) {
            tls.configure(parameters);
        }
        return port;
    }

    /** The peers whose calls the port accepts, after a membership change. */
    void updatePeers(List<NodeAddress> peers) {
        guard.updatePeers(peers);
    }

    /** Calls refused since start: Ratis's client or admin services, or a non-peer address. */
    public long refusedCalls() {
        return guard.refusedCalls();
    }

    /** Whether the port speaks mutual TLS. */
    public boolean tlsEnabled() {
        return tls != null;
    }

    /**
     * Certificates refused by the port's TLS since start (0 without TLS): a caller's (not signed by
     * the peer CA, or expired).
     */
    public long refusedCallerCertificates() {
        return tls == null ? 0 : tls.refusedCallerCertificates();
    }

    /**
     * Certificates refused since start (0 without TLS) of peers this node called: not signed by the
     * peer CA, expired, or not naming the host dialled.
     */
    public long refusedPeerCertificates() {
        return tls == null ? 0 : tls.refusedPeerCertificates();
    }

    /** The port's open and refused connections. */
    public ConnectionBudget connections() {
        return connections;
    }

    /** Stops the bounded port's I/O threads; after the Ratis server closed. */
    @Override
    public void close() {
        if (boundedConnections != null) {
            boundedConnections.close();
        }
    }
}
