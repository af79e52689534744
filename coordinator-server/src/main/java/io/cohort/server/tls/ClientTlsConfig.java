package io.cohort.server.tls;

import java.nio.file.Path;
import java.time.Duration;

/**
 * TLS of the client gRPC port (keys {@code tls.*}) and of the metrics endpoint
 * ({@code metrics.tls.enabled}).
 *
 * @param enabled         whether the client port speaks TLS (off by default)
 * @param certFile        the node's certificate chain (PEM, leaf first); null when disabled
 * @param keyFile         the node's private key (PEM: PKCS#8, PKCS#1 or SEC1, unencrypted); null when disabled
 * @param clientCaFile    the CA bundle client certificates are checked against; null when client auth is none
 * @param clientAuth      whether a client certificate is asked for
 * @param reloadCheckInterval how often the files are looked at for a rotation
 * @param metricsTls      whether /metrics is served over HTTPS with the same certificate
 */
public record ClientTlsConfig(boolean enabled, Path certFile, Path keyFile, Path clientCaFile,
                              ClientAuth clientAuth, Duration reloadCheckInterval, boolean metricsTls) {

    /** Plaintext everywhere: the default on a laptop. */
    public static ClientTlsConfig disabled() {
        return new ClientTlsConfig(false, null, null, null, ClientAuth.NONE, Duration.ofSeconds(1), false);
    }
}
