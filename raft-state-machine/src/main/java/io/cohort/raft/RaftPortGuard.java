package io.cohort.raft;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the Raft port for Raft peers. Ratis serves three gRPC services on its server port: the
 * server-to-server protocol, and its client protocol (writes, reads, watch) and admin protocol
 * (groupManagement with delete-directory, setConfiguration, transferLeadership, groupList/Info).
 * Cohort uses the last two only in process ({@code RaftServer.submitClientRequestAsync},
 * {@code groupManagement}, {@code transferLeadershipAsync}), and from the network they let anyone
 * append an entry to a partition or delete a replica's data. Ratis 3.3 cannot leave them out (a
 * separate client or admin port must be a fixed port > 0, and is then listened on too), so this
 * interceptor, installed through Ratis's services customizer on every gRPC server Ratis builds,
 * refuses every call that is not the server-to-server protocol with PERMISSION_DENIED before it
 * reaches Ratis.
 *
 * <p>Server-to-server calls are accepted only from an address one of the configured peers' hosts
 * resolves to: without TLS (the peer's identity) that is as far as a process can be told apart
 * from a peer. It stops processes on other hosts; a process on a peer's host, or one that can
 * spoof a peer's address, still passes (docs/OPERATIONS.md, "Network exposure"). Host names are
 * resolved again, at most every {@value #RESOLVE_AGAIN_AFTER_MS} ms, when a call comes from an
 * unknown address, so a peer whose address changed is accepted again. Where peers reach each other
 * through addresses their hosts do not resolve to (NAT, a proxy per peer), the address check can be
 * turned off with {@code -D}{@value #PEER_ADDRESS_CHECK_PROPERTY}{@code =false}; the client and
 * admin services stay refused.
 *
 * <p>With mutual TLS ({@link RaftTls}) the TLS handshake has already refused every caller without
 * a certificate of the peer CA. The guard then also requires that certificate to name the host of
 * a configured peer (a DNS or IP subject alternative name, or the common name if it has none), the
 * same name the peers check when they call this node: a certificate the peer CA issued for
 * something else is not a peer's.
 */
final class RaftPortGuard implements ServerInterceptor, GrpcServices.Customizer {
    private static final Logger LOG = LoggerFactory.getLogger(RaftPortGuard.class);
    private static final String RAFT_PEER_SERVICE = RaftServerProtocolServiceGrpc.SERVICE_NAME;
    private static final long RESOLVE_AGAIN_AFTER_MS = 5_000;
    /** Refusals are logged at most this often: an attacker must not fill the disk with our log. */
    private static final long REFUSAL_LOG_INTERVAL_MS = 10_000;

    static final String PEER_ADDRESS_CHECK_PROPERTY = "cohort.raft.peerAddressCheck";

    private final boolean checkPeerAddresses;
    /** The members' hosts: replaced when the membership changes ({@link #updatePeers}). */
    private volatile List<String> peerHosts;
    private volatile Set<InetAddress> peerAddresses;
    private final AtomicLong resolvedAtMs = new AtomicLong();
    private final AtomicLong lastRefusalLoggedMs = new AtomicLong();
    private final AtomicLong refusedCalls = new AtomicLong();

    private final boolean checkPeerCertificates;

    /** @param checkPeerCertificates whether calls come over mutual TLS, whose certificate must name a peer host */
    RaftPortGuard(List<NodeAddress> peers, boolean checkPeerCertificates) {
        this.checkPeerCertificates = checkPeerCertificates;
        this.checkPeerAddresses = !"false".equalsIgnoreCase(System.getProperty(PEER_ADDRESS_CHECK_PROPERTY));
        if (!checkPeerAddresses) {
            LOG.warn("-D{}=false: the Raft port takes Raft calls from any address", PEER_ADDRESS_CHECK_PROPERTY);
        }
        this.peerHosts = peers.stream().map(NodeAddress::host).distinct().toList();
        this.peerAddresses = resolve(peerHosts);
        this.resolvedAtMs.set(System.currentTimeMillis());
    }

    /**
     * The membership changed (a node added or removed): calls from the new members' hosts are
     * accepted from now on, without a restart.
     */
    void updatePeers(List<NodeAddress> peers) {
        List<String> hosts = peers.stream().map(NodeAddress::host).distinct().toList();
        if (hosts.equals(peerHosts)) {
            return;
        }
        peerAddresses = resolve(hosts);
        peerHosts = hosts;
        resolvedAtMs.set(System.currentTimeMillis());
    }

    /** Calls refused since the node started (a non-peer service, or a non-peer address). */
    long refusedCalls() {
        return refusedCalls.get();
    }

    @Override
    public org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder customize(
            org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder builder,
            java.util.EnumSet<GrpcServices.Type> types) {
        return builder.intercept(this);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        String service = call.getMethodDescriptor().getServiceName();
        if (!RAFT_PEER_SERVICE.equals(service)) {
            return refuse(call, "the Raft port serves Raft peers only; " + service
                    + " is not served over the network (Cohort's API is on the client port)");
        }
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (checkPeerAddresses && !isPeerAddress(remote)) {
            return refuse(call, "the Raft port serves Raft peers only; " + remote
                    + " is not an address of a configured peer");
        }
        if (checkPeerCertificates) {
            String notAPeer = PeerCertificateNames.refusalOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION),
                    peerHosts, peerAddresses);
            if (notAPeer != null) {
                return refuse(call, "the Raft port serves Raft peers only; " + notAPeer);
            }
        }
        return next.startCall(call, headers);
    }

    private boolean isPeerAddress(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return false;
        }
        InetAddress address = inet.getAddress();
        if (peerAddresses.contains(address)) {
            return true;
        }
        long nowMs = System.currentTimeMillis();
        long resolvedMs = resolvedAtMs.get();
        if (nowMs - resolvedMs >= RESOLVE_AGAIN_AFTER_MS && resolvedAtMs.compareAndSet(resolvedMs, nowMs)) {
            peerAddresses = resolve(peerHosts);
        }
        return peerAddresses.contains(address);
    }

    private <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, String reason) {
        refusedCalls.incrementAndGet();
        long nowMs = System.currentTimeMillis();
        long loggedMs = lastRefusalLoggedMs.get();
        if (nowMs - loggedMs >= REFUSAL_LOG_INTERVAL_MS && lastRefusalLoggedMs.compareAndSet(loggedMs, nowMs)) {
            LOG.warn("refused {} from {}: {} ({} refused calls so far; logged at most every {} s)",
                    call.getMethodDescriptor().getFullMethodName(),
                    call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR), reason, refusedCalls.get(),
                    REFUSAL_LOG_INTERVAL_MS / 1000);
        }
        call.close(Status.PERMISSION_DENIED.withDescription(reason), new Metadata());
        return new ServerCall.Listener<>() {
        };
    }

    /**
     * Every address of every peer host. A host that does not resolve now is left out (its calls are
     * refused until it does) rather than failing the node's start.
     */
    private static Set<InetAddress> resolve(List<String> hosts) {
        Set<InetAddress> addresses = new HashSet<>();
        for (String host : hosts) {
            try {
                addresses.addAll(List.of(InetAddress.getAllByName(host)));
            } catch (UnknownHostException e) {
                LOG.warn("peer host {} does not resolve; Raft calls from it are refused until it does", host);
            }
        }
        return Set.copyOf(addresses);
    }
}
