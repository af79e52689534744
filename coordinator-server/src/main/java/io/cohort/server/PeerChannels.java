package io.cohort.server;

import io.cohort.raft.NodeAddress;
import io.cohort.server.tls.ServerTls;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Channels from this node to another node's client port, for the calls a node makes on a client's
 * behalf (forwarded TransferLeadership and ACL changes, the leader directory's ClusterStatus polls).
 * They speak what the client ports speak: plaintext, or with {@code tls.enabled} TLS that presents
 * this node's own certificate (peers that require client certificates accept it, and with the
 * authorizer on the call's principal is the node's) and checks the peer against the {@code tls.ca}
 * bundle, else the JDK's trust store. A plaintext channel to a TLS port fails every call, which is
 * why the channels cannot be plaintext regardless of the setting.
 */
public final class PeerChannels implements Function<NodeAddress, ManagedChannel> {
    private final ChannelCredentials credentials;

    private PeerChannels(ChannelCredentials credentials) {
        this.credentials = credentials;
    }

    /** Plaintext channels (client ports without TLS). */
    public static PeerChannels plaintext() {
        return new PeerChannels(InsecureChannelCredentials.create());
    }

    /** Channels like this node's client port: TLS with {@code tls}, plaintext when it is null. */
    public static PeerChannels of(ServerTls tls) {
        return tls == null ? plaintext() : new PeerChannels(tls.peerChannelCredentials());
    }

    @Override
    public ManagedChannel apply(NodeAddress peer) {
        return Grpc.newChannelBuilderForAddress(peer.host(), peer.clientPort(), credentials).build();
    }

    /**
     * A channel that keeps its connection while no call runs ({@link PeerExitWatch} watches the
     * connection itself and never calls): gRPC's idle mode, which would close it after 30 minutes, is
     * off (gRPC turns it off for timeouts of 30 days or more).
     */
    public ManagedChannel watchChannel(NodeAddress peer) {
        return Grpc.newChannelBuilderForAddress(peer.host(), peer.clientPort(), credentials)
                .idleTimeout(30, TimeUnit.DAYS).build();
    }
}
