package io.cohort.client;

import io.cohort.client.internal.Endpoint;
import io.cohort.client.internal.TlsDiagnosis;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * A client's gRPC channels, one per node it has called, all with the same credentials (plaintext,
 * or TLS as configured), the bearer token if one is set, and the inbound message limit. Made on
 * first use, closed with the client.
 */
final class NodeChannels implements AutoCloseable {
    private final String clientId;
    private final int maxInboundMessageBytes;
    private final ChannelCredentials credentials;
    /** Sends {@code authorization: Bearer <token>} on every call; null without a token. */
    private final ClientInterceptor bearer;
    private final ConcurrentMap<Endpoint, ManagedChannel> channels = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** {@code bearerToken} may be null (no token); {@code tls} disabled: plaintext. */
    NodeChannels(String clientId, int maxInboundMessageBytes, TlsDiagnosis.ClientTls tls, String bearerToken) {
        this.clientId = clientId;
        this.maxInboundMessageBytes = maxInboundMessageBytes;
        this.credentials = credentials(tls);
        this.bearer = bearerToken == null ? null : bearerInterceptor(bearerToken);
    }

    /** Plaintext, or TLS trusting {@code caCert} only and presenting {@code cert}/{@code key} if given. */
    private static ChannelCredentials credentials(TlsDiagnosis.ClientTls tls) {
        if (!tls.enabled()) {
            return InsecureChannelCredentials.create();
        }
        try {
            TlsChannelCredentials.Builder builder = TlsChannelCredentials.newBuilder().trustManager(tls.caCert().toFile());
            if (tls.cert() != null) {
                builder.keyManager(tls.cert().toFile(), tls.key().toFile());
            }
            return builder.build();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot use the TLS files (--cacert " + tls.caCert()
                    + (tls.cert() == null ? "" : ", --cert " + tls.cert() + ", --key " + tls.key()) + "): "
                    + e.getMessage(), e);
        }
    }

    private static ClientInterceptor bearerInterceptor(String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return MetadataUtils.newAttachHeadersInterceptor(headers);
    }

    /** The largest answer a call takes, in bytes (named in a RESOURCE_EXHAUSTED failure). */
    int maxInboundMessageBytes() {
        return maxInboundMessageBytes;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * The channel to {@code endpoint}, connecting at once. A channel whose node was down waits out
     * gRPC's reconnect backoff (1 s, growing 1.6x per failed attempt up to 2 minutes), failing every
     * call meanwhile; a node back from a restart and handed its partitions again was then unreachable
     * for seconds to clients that had known it. The client calls a node only when it has reason to
     * (it was named coordinator, or it is next in the bootstrap list) and paces its own retries, so
     * each call is a reason to try the connection now.
     */
    ManagedChannel channel(Endpoint endpoint) {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
        ManagedChannel channel = channels.computeIfAbsent(endpoint, e -> {
            ManagedChannelBuilder<?> builder = Grpc.newChannelBuilderForAddress(e.host(), e.port(), credentials)
                    .userAgent("cohort-client/" + clientId).maxInboundMessageSize(maxInboundMessageBytes);
            if (bearer != null) {
                builder.intercept(bearer);
            }
            return builder.build();
        });
        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
            channel.resetConnectBackoff();
        }
        return channel;
    }

    /** Shuts every channel down, waiting up to 2 s each for calls under way. */
    @Override
    public void close() {
        closed = true;
        for (ManagedChannel channel : channels.values()) {
            channel.shutdown();
        }
        for (ManagedChannel channel : channels.values()) {
            try {
                if (!channel.awaitTermination(2, TimeUnit.SECONDS)) {
                    channel.shutdownNow();
                }
            } catch (InterruptedException e) {
                channel.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        channels.clear();
    }
}
