package io.cohort.raft.tls;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager that trusts the CA certificates of one PEM bundle (and nothing from the JDK's
 * default store), reloaded when the file changes: a new CA can be added to the bundle, and an old
 * one dropped, without a restart. Checks are the JDK's PKIX path validation, including the
 * certificates' validity periods and, for a client checking a server, the host name against the
 * certificate's subject alternative names (done by the TLS stack).
 */
public final class ReloadingTrustManager extends X509ExtendedTrustManager {
    private final FileReloader<X509ExtendedTrustManager> delegate;

    private ReloadingTrustManager(Path caFile, Duration checkInterval) {
        this.delegate = new FileReloader<>("CA bundle " + caFile, List.of(caFile), checkInterval,
                generation -> load(caFile));
    }

    /** Trusts the certificates in {@code caFile}; throws {@link PemException} if it cannot be used. */
    public static ReloadingTrustManager fromPem(Path caFile, Duration checkInterval) {
        return new ReloadingTrustManager(caFile, checkInterval);
    }

    private static X509ExtendedTrustManager load(Path caFile) {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(PemFiles.trustStore(caFile));
            for (TrustManager manager : factory.getTrustManagers()) {
                if (manager instanceof X509ExtendedTrustManager x509) {
                    return x509;
                }
            }
            throw new PemException("the JDK offers no X.509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new PemException("cannot trust the certificates of " + caFile + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.get().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.get().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.get().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.get().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.get().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.get().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.get().getAcceptedIssuers();
    }
}
