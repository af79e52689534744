package io.cohort.raft.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trusts the certificates signed by the CAs of one PEM file, read again when the file changes
 * (a CA rotation: put the old and the new CA in the file, rotate the certificates, then drop the
 * old CA). The checks themselves are the JDK's PKIX validation, including the host name check of
 * the server's certificate when the connecting side asks for it (gRPC does).
 *
 * <p>Every certificate it refuses is counted ({@link #refusedClientCertificates()},
 * {@link #refusedServerCertificates()}) and logged at WARN,
 * at most once per {@value #REFUSAL_LOG_INTERVAL_MS} ms: a process knocking with a foreign
 * certificate must not fill the disk with our log.
 */
public final class ReloadingTrustManager extends X509ExtendedTrustManager {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingTrustManager.class);
    private static final long REFUSAL_LOG_INTERVAL_MS = 10_000;

    private final String name;
    private final WatchedFiles files;
    private volatile X509ExtendedTrustManager delegate;
    private final AtomicLong refusedClients = new AtomicLong();
    private final AtomicLong refusedServers = new AtomicLong();
    private final AtomicLong lastRefusalLoggedMs = new AtomicLong();

    private ReloadingTrustManager(String name, WatchedFiles files, X509ExtendedTrustManager delegate) {
        this.name = name;
        this.files = files;
        this.delegate = delegate;
    }

    /**
     * Trusts the CA certificates in {@code caFile}, read again at most every {@code checkIntervalMs}
     * when a handshake checks a certificate.
     *
     * @param name what the trust is for, in log lines (e.g. "raft.tls")
     */
    public static ReloadingTrustManager open(String name, Path caFile, long checkIntervalMs) throws IOException {
        WatchedFiles files = new WatchedFiles(List.of(caFile), checkIntervalMs);
        List<X509Certificate> cas = PemFiles.certificates(caFile, files.contents().get(0));
        LOG.info("{}: trusting {} CA certificate(s) from {}: {}", name, cas.size(), caFile,
                cas.stream().map(X509Certificate::getSubjectX500Principal).toList());
        return new ReloadingTrustManager(name, files, pkix(caFile, cas));
    }

    private static X509ExtendedTrustManager pkix(Path caFile, List<X509Certificate> cas) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            for (TrustManager manager : factory.getTrustManagers()) {
                if (manager instanceof X509ExtendedTrustManager x509) {
                    return x509;
                }
            }
            throw new IOException(caFile + ": the JDK gave no X509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new IOException(caFile + ": cannot build a trust store of its certificates: " + e.getMessage(), e);
        }
    }

    /** Client certificates (of callers of our port) refused since start: not signed by a trusted CA, or expired. */
    public long refusedClientCertificates() {
        return refusedClients.get();
    }

    /** Server certificates (of the sides we called) refused since start: untrusted CA, expired, or another host. */
    public long refusedServerCertificates() {
        return refusedServers.get();
    }

    private X509ExtendedTrustManager current() {
        try {
            List<byte[]> changed = files.changed(System.currentTimeMillis());
            if (changed != null) {
                Path caFile = files.files().get(0);
                List<X509Certificate> cas = PemFiles.certificates(caFile, changed.get(0));
                delegate = pkix(caFile, cas);
                LOG.info("{}: reloaded {} CA certificate(s) from {}: {}", name, cas.size(), caFile,
                        cas.stream().map(X509Certificate::getSubjectX500Principal).toList());
            }
        } catch (IOException e) {
            LOG.warn("{}: the CA file {} is not usable now ({}); keeping the CAs loaded before", name,
                    files.files().get(0), e.getMessage());
        }
        return delegate;
    }

    private CertificateException refusedBecause(String side, X509Certificate[] chain, CertificateException e) {
        long count = (side.equals("client") ? refusedClients : refusedServers).incrementAndGet();
        long nowMs = System.currentTimeMillis();
        long loggedMs = lastRefusalLoggedMs.get();
        if (nowMs - loggedMs >= REFUSAL_LOG_INTERVAL_MS && lastRefusalLoggedMs.compareAndSet(loggedMs, nowMs)) {
            String subject = chain == null || chain.length == 0 ? "(none)"
                    : chain[0].getSubjectX500Principal() + " issued by " + chain[0].getIssuerX500Principal();
            LOG.warn("{}: refused the {} certificate {}: {} ({} refused so far; logged at most every {} s)", name,
                    side, subject, e.getMessage(), count, REFUSAL_LOG_INTERVAL_MS / 1000);
        }
        return e;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check("client", chain, () -> current().checkClientTrusted(chain, authType, socket));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check("client", chain, () -> current().checkClientTrusted(chain, authType, engine));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check("client", chain, () -> current().checkClientTrusted(chain, authType));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check("server", chain, () -> current().checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check("server", chain, () -> current().checkServerTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check("server", chain, () -> current().checkServerTrusted(chain, authType));
    }

    /** One trust check of the current managers; a refusal is counted and logged as {@link #refusedBecause}. */
    private void check(String side, X509Certificate[] chain, TrustCheck check) throws CertificateException {
        try {
            check.run();
        } catch (CertificateException e) {
            throw refusedBecause(side, chain, e);
        }
    }

    @FunctionalInterface
    private interface TrustCheck {
        void run() throws CertificateException;
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return current().getAcceptedIssuers();
    }
}
