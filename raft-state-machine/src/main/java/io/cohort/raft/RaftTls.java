package io.cohort.raft;

import io.cohort.raft.tls.ReloadingKeyManager;
import io.cohort.raft.tls.ReloadingTrustManager;
import java.io.IOException;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * The Raft port's mutual TLS, through Ratis's own gRPC TLS ({@link GrpcTlsConfig} in
 * {@link Parameters}): the port requires a client certificate signed by the peer CA, and this
 * node's calls to its peers present its certificate and check theirs (including that it names the
 * peer's host). Ratis builds its SSL contexts once, from the key and trust managers given here;
 * the managers read the PEM files again when they change, so a new connection gets the rotated
 * certificate or CA without a restart (docs/SECURITY.md, "Raft port (peer mTLS)").
 */
final class RaftTls {
    /** How often at most the PEM files are read again to see whether they changed (on a handshake). */
    static final long RELOAD_CHECK_INTERVAL_MS = 1_000;
    private static final String LOG_NAME = "raft.tls";

    private final ReloadingKeyManager keyManager;
    private final ReloadingTrustManager trustManager;

    private RaftTls(ReloadingKeyManager keyManager, ReloadingTrustManager trustManager) {
        this.keyManager = keyManager;
        this.trustManager = trustManager;
    }

    /**
     * Reads the PEM files of {@code settings}; null when TLS is disabled.
     *
     * @throws IOException naming the file if one cannot be read, or the key is not the certificate's
     */
    static RaftTls open(RaftTlsSettings settings) throws IOException {
        if (!settings.enabled()) {
            return null;
        }
        return new RaftTls(
                ReloadingKeyManager.open(LOG_NAME, settings.certFile(), settings.keyFile(), RELOAD_CHECK_INTERVAL_MS),
                ReloadingTrustManager.open(LOG_NAME, settings.caFile(), RELOAD_CHECK_INTERVAL_MS));
    }

    /**
     * Sets the TLS of the Raft server (its port and its connections to peers) and the default for
     * any Ratis client built with the same parameters.
     */
    void configure(Parameters parameters) {
        GrpcTlsConfig config = new GrpcTlsConfig(keyManager, trustManager, true);
        GrpcConfigKeys.Server.setTlsConf(parameters, config);
        GrpcConfigKeys.TLS.setConf(parameters, config);
    }

    /** Certificates of callers of the Raft port refused since start. */
    long refusedCallerCertificates() {
        return trustManager.refusedClientCertificates();
    }

    /** Certificates of peers this node called, refused since start. */
    long refusedPeerCertificates() {
        return trustManager.refusedServerCertificates();
    }
}
