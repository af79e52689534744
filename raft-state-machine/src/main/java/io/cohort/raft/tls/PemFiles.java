package io.cohort.raft.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads the PEM files operators have: certificate chains and CA bundles ({@code BEGIN CERTIFICATE}
 * blocks) and unencrypted private keys in PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1
 * ({@code BEGIN RSA PRIVATE KEY}) or SEC1 ({@code BEGIN EC PRIVATE KEY}) form.
 *
 * <p>Shared by the client port (coordinator-server) and the Raft port, which is why it lives in
 * raft-state-machine. Bouncy Castle parses the key forms the JDK cannot; the keys it returns are
 * plain JDK keys, so no security provider is installed.
 */
public final class PemFiles {
    private PemFiles() {
    }

    /** Every certificate in {@code file}, in file order (a chain starts with the leaf). */
    public static List<X509Certificate> readCertificates(Path file) {
        byte[] bytes = readBytes(file, "certificate");
        List<X509Certificate> certificates = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (var certificate : factory.generateCertificates(new java.io.ByteArrayInputStream(bytes))) {
                certificates.add((X509Certificate) certificate);
            }
        } catch (CertificateException e) {
            throw new PemException("cannot read certificates from " + file + ": " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new PemException(file + " holds no certificate (expected -----BEGIN CERTIFICATE----- blocks)");
        }
        return List.copyOf(certificates);
    }

    /** The (first) private key in {@code file}. */
    public static PrivateKey readPrivateKey(Path file) {
        String text = new String(readBytes(file, "private key"), StandardCharsets.US_ASCII);
        try (Reader reader = new StringReader(text); PEMParser parser = new PEMParser(reader)) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (object instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (object instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (object instanceof PKCS8EncryptedPrivateKeyInfo || object instanceof PEMEncryptedKeyPair) {
                    throw new PemException("the private key in " + file + " is encrypted; Cohort reads unencrypted "
                            + "keys (protect the file with its permissions, e.g. chmod 600)");
                }
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof PemException p) {
                throw p;
            }
            throw new PemException("cannot read a private key from " + file + ": " + e.getMessage(), e);
        }
        throw new PemException(file + " holds no private key (expected -----BEGIN PRIVATE KEY-----, "
                + "-----BEGIN RSA PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY-----)");
    }

    /** A key store holding every certificate of {@code caFile} as a trusted entry. */
    public static KeyStore trustStore(Path caFile) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int index = 0;
            for (X509Certificate ca : readCertificates(caFile)) {
                store.setCertificateEntry("ca-" + index++, ca);
            }
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new PemException("cannot build a trust store from " + caFile + ": " + e.getMessage(), e);
        }
    }

    /**
     * Throws unless {@code key} is the private half of {@code certificate}'s public key: a rotation
     * that has replaced one file but not yet the other must not be served.
     */
    public static void checkKeyMatches(X509Certificate certificate, PrivateKey key, Path certFile, Path keyFile) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null) {
            return;
        }
        byte[] probe = "cohort key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            if (verifier.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // A key of another type than the certificate's lands here too.
        }
        throw new PemException("the private key in " + keyFile + " does not belong to the certificate in " + certFile);
    }

    private static byte[] readBytes(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new PemException(what + " file " + file + " does not exist", e);
        } catch (IOException e) {
            throw new PemException("cannot read " + what + " file " + file + ": " + e, e);
        }
    }
}
