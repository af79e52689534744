package io.cohort.cluster.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** CAs and leaf certificates made by the harness (EC P-256, Bouncy Castle), written as the PEM files a node
 * reads: a throwaway peer CA per run, and other CAs for impostors. */
public final class Certificates {
    private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime());

    private Certificates() {
    }

    /** A self-signed CA. */
    public record Ca(String name, KeyPair keys, X509Certificate certificate) {
        /** Writes the CA certificate as PEM to {@code file}; returns it. */
        public Path writeCertificate(Path file) {
            return writePem(file, "CERTIFICATE", encoded(certificate));
        }

        /**
         * Issues a certificate for {@code commonName} with the DNS and IP subject alternative names
         * {@code sans} (IP literals become IP names), for serverAuth and clientAuth, and writes it
         * to {@code dir}/{@code fileStem}.crt and its key to .key (PKCS#8).
         */
        public Leaf issue(String commonName, List<String> sans, Path dir, String fileStem) {
            KeyPair leafKeys = ecKeys();
            X509Certificate leaf = sign(new X500Name("CN=" + commonName), leafKeys, this, false, sans);
            Path cert = writePem(dir.resolve(fileStem + ".crt"), "CERTIFICATE", encoded(leaf));
            Path key = writePem(dir.resolve(fileStem + ".key"), "PRIVATE KEY", leafKeys.getPrivate().getEncoded());
            return new Leaf(leaf, cert, key);
        }
    }

    /** An issued certificate and where its PEM files are. */
    public record Leaf(X509Certificate certificate, Path certFile, Path keyFile) {
    }

    public static Ca ca(String name) {
        KeyPair keys = ecKeys();
        return new Ca(name, keys, sign(new X500Name("CN=" + name), keys, null, true, List.of()));
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, Ca issuer, boolean isCa,
                                        List<String> sans) {
        Instant now = Instant.now();
        X500Name issuerName = issuer == null ? subject : new X500Name(issuer.certificate().getSubjectX500Principal()
                .getName());
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName,
                    BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(Duration.ofDays(2))), subject, subjectKeys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
            if (isCa) {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                builder.addExtension(Extension.keyUsage, true,
                        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
                builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
                List<GeneralName> names = new ArrayList<>();
                for (String san : sans) {
                    names.add(new GeneralName(san.matches("[0-9.]+") || san.contains(":") ? GeneralName.iPAddress
                            : GeneralName.dNSName, san));
                }
                if (!names.isEmpty()) {
                    builder.addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(new GeneralName[0])));
                }
            }
            var signer = new JcaContentSignerBuilder("SHA256withECDSA")
                    .build(issuer == null ? subjectKeys.getPrivate() : issuer.keys().getPrivate());
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair ecKeys() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes one PEM block, replacing the file in one move so a reader never sees half of it. */
    public static Path writePem(Path file, String type, byte[] der) {
        String pem = "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, pem, StandardCharsets.US_ASCII);
            Files.move(temporary, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
