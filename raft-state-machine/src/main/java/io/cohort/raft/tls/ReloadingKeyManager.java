package io.cohort.raft.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One identity (a certificate chain and its private key, from PEM files) that is read again when
 * the files change: rotation without a restart. Every new TLS connection asks for the identity,
 * so it gets the current one; connections already open keep theirs until they reconnect.
 *
 * <p>A pair that does not match (the key rewritten before the certificate, or a wrong file) is
 * not taken: the manager keeps the previous identity, logs why, and tries again at the next
 * change. The identity is offered whatever CAs the other side lists as acceptable: a peer with a
 * certificate from the wrong CA is refused by the other side's trust check, which says so in its
 * log, rather than by sending no certificate.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);
    /** Aliases name the identity's generation, so a handshake that chose one gets its chain and key together. */
    private static final String ALIAS_PREFIX = "cohort-identity-";

    private final String name;
    private final WatchedFiles files;
    private volatile Identity identity;
    /** The identity before the last reload, for handshakes that chose it just before. */
    private volatile Identity previous;

    private record Identity(X509Certificate[] chain, PrivateKey key, int generation) {
        String alias() {
            return ALIAS_PREFIX + generation;
        }
    }

    private ReloadingKeyManager(String name, WatchedFiles files, Identity identity) {
        this.name = name;
        this.files = files;
        this.identity = identity;
    }

    /**
     * Reads {@code certFile} (the chain, leaf first) and {@code keyFile}; checks they belong
     * together. The files are read again, at most every {@code checkIntervalMs}, when a handshake
     * needs the identity.
     *
     * @param name what the identity is for, in log lines (e.g. "raft.tls")
     * @throws IOException naming the file if either cannot be read or they do not match
     */
    public static ReloadingKeyManager open(String name, Path certFile, Path keyFile, long checkIntervalMs)
            throws IOException {
        WatchedFiles files = new WatchedFiles(List.of(certFile, keyFile), checkIntervalMs);
        Identity identity = parse(certFile, keyFile, files.contents(), 0);
        LOG.info("{}: identity {} (expires {}) from {}", name, identity.chain()[0].getSubjectX500Principal(),
                identity.chain()[0].getNotAfter().toInstant(), certFile);
        return new ReloadingKeyManager(name, files, identity);
    }

    private static Identity parse(Path certFile, Path keyFile, List<byte[]> contents, int generation)
            throws IOException {
        List<X509Certificate> chain = PemFiles.certificates(certFile, contents.get(0));
        PrivateKey key = PemFiles.privateKey(keyFile, contents.get(1));
        if (!belongTogether(chain.get(0), key)) {
            throw new IOException(keyFile + " is not the private key of the certificate in " + certFile + " ("
                    + chain.get(0).getSubjectX500Principal() + ")");
        }
        return new Identity(chain.toArray(new X509Certificate[0]), key, generation);
    }

    /** Signs with the key and verifies with the certificate's public key: works for every key type. */
    private static boolean belongTogether(X509Certificate certificate, PrivateKey key) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448, RSASSA-PSS name their own signature
        };
        try {
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** The certificate this manager presents now. */
    public X509Certificate certificate() {
        maybeReload();
        return identity.chain()[0];
    }

    private void maybeReload() {
        List<byte[]> changed;
        try {
            changed = files.changed(System.currentTimeMillis());
        } catch (IOException e) {
            LOG.warn("{}: cannot read {} now ({}); keeping the identity loaded before", name, files.files(),
                    e.getMessage());
            return;
        }
        if (changed == null) {
            return;
        }
        try {
            Identity current = identity;
            Identity next = parse(files.files().get(0), files.files().get(1), changed, current.generation() + 1);
            previous = current;
            identity = next;
            LOG.info("{}: reloaded identity {} (expires {}) from {}", name, next.chain()[0].getSubjectX500Principal(),
                    next.chain()[0].getNotAfter().toInstant(), files.files().get(0));
        } catch (IOException e) {
            LOG.warn("{}: the changed files are not usable ({}); keeping the identity loaded before until they are",
                    name, e.getMessage());
        }
    }

    private String aliasFor(String keyType) {
        maybeReload();
        Identity current = identity;
        String algorithm = current.key().getAlgorithm();
        boolean matches = keyType.equals(algorithm) || keyType.startsWith(algorithm + "_")
                || (algorithm.equals("RSA") && keyType.equals("RSASSA-PSS"));
        return matches ? current.alias() : null;
    }

    private String aliasFor(String[] keyTypes) {
        if (keyTypes == null) {
            return null;
        }
        for (String keyType : keyTypes) {
            String alias = aliasFor(keyType);
            if (alias != null) {
                return alias;
            }
        }
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        String alias = aliasFor(keyType);
        return alias == null ? null : new String[] {alias};
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return aliasFor(keyTypes);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return aliasFor(keyTypes);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        String alias = aliasFor(keyType);
        return alias == null ? null : new String[] {alias};
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
        Identity chosen = byAlias(alias);
        return chosen == null ? null : chosen.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Identity chosen = byAlias(alias);
        return chosen == null ? null : chosen.key();
    }

    private Identity byAlias(String alias) {
        Identity current = identity;
        if (current.alias().equals(alias)) {
            return current;
        }
        Identity before = previous;
        return before != null && before.alias().equals(alias) ? before : null;
    }
}
