package io.cohort.raft;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Mutual TLS on the Raft port, or none: the node's peer certificate (PEM chain, leaf first), its
 * private key (PEM, unencrypted PKCS#8 or PKCS#1 RSA) and the peer CA(s) it trusts (PEM). The same
 * certificate is presented as the server of the Raft port and as the client of this node's calls
 * to its peers, so it must name this node's host (as written in the peer list: a DNS or IP subject
 * alternative name) and, if it has an extended key usage, allow both serverAuth and clientAuth.
 *
 * @param enabled  whether the Raft port speaks mutual TLS
 * @param certFile the node's peer certificate chain; null when disabled
 * @param keyFile  its private key; null when disabled
 * @param caFile   the CA certificates a peer's certificate must be signed by; null when disabled
 */
public record RaftTlsSettings(boolean enabled, Path certFile, Path keyFile, Path caFile) {
    /** Plaintext Raft port (the default on a laptop). */
    public static final RaftTlsSettings DISABLED = new RaftTlsSettings(false, null, null, null);

    public RaftTlsSettings {
        if (enabled) {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
            Objects.requireNonNull(caFile, "caFile");
        }
    }

    /** Mutual TLS with this node's certificate and key, trusting peers signed by the CAs in {@code caFile}. */
    public static RaftTlsSettings mutual(Path certFile, Path keyFile, Path caFile) {
        return new RaftTlsSettings(true, certFile, keyFile, caFile);
    }
}
