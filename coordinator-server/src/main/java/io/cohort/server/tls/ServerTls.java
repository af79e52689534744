package io.cohort.server.tls;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import io.cohort.raft.tls.ReloadingKeyManager;
import io.cohort.raft.tls.ReloadingTrustManager;
import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The node's TLS material for the client port and /metrics, loaded from PEM files and reloaded when
 * they change (the reload happens on the next handshake after the check interval, see
 * {@link ReloadingKeyManager}). Building it fails at once, with the file named, if a file is
 * missing, unreadable, or its key does not match its certificate.
 */
public final class ServerTls {
    /** What the key and trust managers call this material in their log lines. */
    private static final String LOG_NAME = "tls";

    private final ClientTlsConfig config;
    private final ReloadingKeyManager keyManager;
    private final ReloadingTrustManager clientTrust;

    private ServerTls(ClientTlsConfig config, ReloadingKeyManager keyManager, ReloadingTrustManager clientTrust) {
        this.config = config;
        this.keyManager = keyManager;
        this.clientTrust = clientTrust;
    }

    /**
     * Loads the files of {@code config}, which must be enabled.
     *
     * @throws IOException naming the file if one cannot be read, or the key is not the certificate's
     */
    public static ServerTls load(ClientTlsConfig config) throws IOException {
        if (!config.enabled()) {
            throw new IllegalArgumentException("TLS is not enabled");
        }
        long checkIntervalMs = config.reloadCheckInterval().toMillis();
        ReloadingKeyManager keyManager = ReloadingKeyManager.open(LOG_NAME, config.certFile(), config.keyFile(),
                checkIntervalMs);
        ReloadingTrustManager clientTrust = config.clientCaFile() == null ? null
                : ReloadingTrustManager.open(LOG_NAME, config.clientCaFile(), checkIntervalMs);
        return new ServerTls(config, keyManager, clientTrust);
    }

    /** The gRPC server credentials of the client port. */
    public ServerCredentials grpcCredentials() {
        TlsServerCredentials.Builder builder = TlsServerCredentials.newBuilder().keyManager(keyManager);
        if (clientTrust != null && config.clientAuth() != ClientAuth.NONE) {
            builder.trustManager(clientTrust);
        }
        builder.clientAuth(switch (config.clientAuth()) {
            case NONE -> TlsServerCredentials.ClientAuth.NONE;
            case OPTIONAL -> TlsServerCredentials.ClientAuth.OPTIONAL;
            case REQUIRED -> TlsServerCredentials.ClientAuth.REQUIRE;
        });
        return builder.build();
    }

    /**
     * The credentials of this node's calls to another node's client port: this node's certificate
     * as the client certificate, the peer checked against the client CA bundle ({@code tls.ca}: in
     * the usual setup one CA signs the nodes' and the clients' certificates), else the JDK's trust store.
     */
    public ChannelCredentials peerChannelCredentials() {
        TlsChannelCredentials.Builder builder = TlsChannelCredentials.newBuilder().keyManager(keyManager);
        if (clientTrust != null) {
            builder.trustManager(clientTrust);
        }
        return builder.build();
    }

    /** HTTPS for /metrics with the node's certificate; no client certificate is asked for. */
    public HttpsConfigurator metricsHttps() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keyManager}, new TrustManager[0], null);
            return new HttpsConfigurator(context) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters parameters = context.getDefaultSSLParameters();
                    parameters.setNeedClientAuth(false);
                    params.setSSLParameters(parameters);
                }
            };
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot make a TLS context: " + e.getMessage(), e);
        }
    }

    /** The certificate the node serves now. */
    public X509Certificate certificate() {
        return keyManager.certificate();
    }
}
