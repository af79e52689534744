package io.cohort.raft.tls;

import java.net.Socket;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager serving the certificate chain and private key of two PEM files, reloaded when the
 * files change (see {@link FileReloader}): a rotated certificate is served to the next connection
 * without a restart; open connections keep the certificate they were made with.
 *
 * <p>Each loaded pair gets its own alias ({@code cohort-<generation>}), and the chain and key are
 * looked up by the alias the handshake chose, so a reload between the TLS stack's calls cannot pair
 * a new certificate with an old key; TLS stacks that cache key material by alias see a new alias.
 * Works with the JDK's and Netty's TLS (grpc, and Ratis's GrpcTlsConfig).
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
    /** How often the files are looked at, unless told otherwise. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(1);

    private record Identity(String alias, List<X509Certificate> chain, PrivateKey key) {
    }

    private final FileReloader<Identity> identity;
    /** The previous identity, for a handshake that chose its alias just before a reload. */
    private volatile Identity previous;

    private ReloadingKeyManager(Path certFile, Path keyFile, Duration checkInterval) {
        this.identity = new FileReloader<>("certificate " + certFile, List.of(certFile, keyFile), checkInterval,
                generation -> load(certFile, keyFile, generation));
    }

    /**
     * Loads {@code certFile} (the chain, leaf first) and {@code keyFile}; throws {@link PemException}
     * if they cannot be used.
     */
    public static ReloadingKeyManager fromPem(Path certFile, Path keyFile, Duration checkInterval) {
        return new ReloadingKeyManager(certFile, keyFile, checkInterval);
    }

    private Identity load(Path certFile, Path keyFile, int generation) {
        List<X509Certificate> chain = PemFiles.readCertificates(certFile);
        PrivateKey key = PemFiles.readPrivateKey(keyFile);
        PemFiles.checkKeyMatches(chain.get(0), key, certFile, keyFile);
        Identity before = identity == null ? null : identity.current();
        if (before != null) {
            previous = before;
        }
        return new Identity("cohort-" + generation, chain, key);
    }

    /** The leaf certificate served now (after a reload check). */
    public X509Certificate certificate() {
        return identity.get().chain().get(0);
    }

    private String aliasFor(String keyType) {
        Identity now = identity.get();
        return keyType == null || matches(keyType, now.key()) ? now.alias() : null;
    }

    /** JSSE names key types "RSA", "EC", "RSASSA-PSS", or for TLS 1.2 "EC_RSA" (key type, then signer). */
    private static boolean matches(String keyType, PrivateKey key) {
        String wanted = keyType.toUpperCase(Locale.ROOT);
        int underscore = wanted.indexOf('_');
        if (underscore > 0) {
            wanted = wanted.substring(0, underscore);
        }
        String have = key.getAlgorithm().toUpperCase(Locale.ROOT);
        return wanted.equals(have) || (wanted.equals("RSASSA-PSS") && have.equals("RSA"))
                || (wanted.equals("ECDSA") && have.equals("EC")) || (wanted.equals("EDDSA") && have.startsWith("ED"));
    }

    private Identity byAlias(String alias) {
        Identity now = identity.current();
        if (now.alias().equals(alias)) {
            return now;
        }
        Identity before = previous;
        return before != null && before.alias().equals(alias) ? before : null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        String alias = aliasFor(keyType);
        return alias == null ? null : new String[] {alias};
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        for (String keyType : keyTypes) {
            String alias = aliasFor(keyType);
            if (alias != null) {
                return alias;
            }
        }
        return null;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return chooseClientAlias(keyTypes, issuers, null);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return aliasFor(keyType);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyType);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Identity found = byAlias(alias);
        return found == null ? null : found.chain().toArray(new X509Certificate[0]);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Identity found = byAlias(alias);
        return found == null ? null : found.key();
    }
}
