package io.cohort.raft.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for laptops, test clusters and tests: EC P-256 keys, SHA-256
 * signatures, certificates written as PEM with PKCS#8 keys. Not a production PKI (no revocation,
 * the CA key sits in a file); operators bring their own certificates.
 */
public final class CertificateAuthority {
    /** A certificate and its private key. */
    public record Issued(X509Certificate certificate, PrivateKey privateKey) {
        /** Writes the certificate to {@code certFile} and the key to {@code keyFile} (owner-only permissions). */
        public void write(Path certFile, Path keyFile) throws IOException {
            writePem(certFile, certificate, false);
            writePem(keyFile, privateKey, true);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Issued root;

    private CertificateAuthority(Issued root) {
        this.root = root;
    }

    /** A new self-signed CA named {@code commonName}, valid from a minute ago for {@code validity}. */
    public static CertificateAuthority create(String commonName, Duration validity) {
        KeyPair keys = newKeyPair();
        X500Name name = rfc2253Name("CN=" + commonName + ",O=Cohort");
        try {
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = builder(name, name, keys, validity)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            extensions.createSubjectKeyIdentifier(keys.getPublic()));
            return new CertificateAuthority(new Issued(sign(builder, keys.getPrivate()), keys.getPrivate()));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot create a CA: " + e.getMessage(), e);
        }
    }

    /** The CA's own certificate and key. */
    public Issued root() {
        return root;
    }

    /**
     * Issues a certificate for {@code subjectDn} (e.g. {@code CN=node-1,O=Cohort}) usable both as a
     * TLS server and as a TLS client, naming {@code hosts} (IP addresses or DNS names) as subject
     * alternative names; empty for a client-only certificate.
     */
    public Issued issue(String subjectDn, List<String> hosts, Duration validity) {
        KeyPair keys = newKeyPair();
        try {
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            X500Name issuer = X500Name.getInstance(root.certificate().getSubjectX500Principal().getEncoded());
            X509v3CertificateBuilder builder = builder(issuer, rfc2253Name(subjectDn), keys, validity)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true,
                            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment | KeyUsage.keyAgreement))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            extensions.createAuthorityKeyIdentifier(root.certificate()))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            extensions.createSubjectKeyIdentifier(keys.getPublic()));
            if (!hosts.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false, alternativeNames(hosts));
            }
            return new Issued(sign(builder, root.privateKey()), keys.getPrivate());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue a certificate for " + subjectDn + ": " + e.getMessage(), e);
        }
    }

    /** The object as PEM text (a certificate, or a private key in PKCS#8 form). */
    public static String toPem(Object object) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object instanceof PrivateKey key
                    ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null).generate() : object);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write PEM: " + e.getMessage(), e);
        }
        return text.toString();
    }

    /** Writes {@code object} as PEM; a secret file is created readable by its owner only. */
    static void writePem(Path file, Object object, boolean secret) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temp = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
        try {
            if (secret) {
                try {
                    Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException e) {
                    // Not a POSIX file system: the directory's permissions are what protects it.
                }
            }
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.US_ASCII)) {
                out.write(toPem(object));
            }
            // Atomic, so a reloading node never reads a half-written file.
            Files.move(temp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * The name whose RFC 2253 form ({@code X500Principal.getName()}, what the principal mapping
     * rules and the node's log lines see) reads as {@code dn} is written: Bouncy Castle's own
     * {@code new X500Name(dn)} keeps the RDNs in the opposite order.
     */
    private static X500Name rfc2253Name(String dn) {
        return X500Name.getInstance(new javax.security.auth.x500.X500Principal(dn).getEncoded());
    }

    private static GeneralNames alternativeNames(List<String> hosts) throws IOException {
        List<GeneralName> names = new ArrayList<>();
        for (String host : hosts) {
            boolean ip = host.matches("[0-9.]+") || host.contains(":");
            if (ip) {
                names.add(new GeneralName(GeneralName.iPAddress, InetAddress.getByName(host).getHostAddress()));
            } else {
                names.add(new GeneralName(GeneralName.dNSName, host));
            }
        }
        return new GeneralNames(names.toArray(new GeneralName[0]));
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys, Duration validity) {
        Instant notBefore = Instant.now().minus(Duration.ofMinutes(1));
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, RANDOM).add(BigInteger.ONE),
                Date.from(notBefore), Date.from(notBefore.plus(validity)), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer)
            throws GeneralSecurityException {
        try {
            ContentSigner contentSigner = new JcaContentSignerBuilder("SHA256withECDSA").build(signer);
            return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot make EC P-256 keys: " + e.getMessage(), e);
        }
    }
}
