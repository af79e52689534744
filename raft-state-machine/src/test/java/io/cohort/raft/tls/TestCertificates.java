package io.cohort.raft.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * CAs and leaf certificates made in the test, written as the PEM files a node reads: the tests'
 * file-based view of {@link CertificateAuthority} (the one certificate generator of the project,
 * also behind {@code cohort-server certs} and the cluster harness).
 */
public final class TestCertificates {
    private static final Duration VALIDITY = Duration.ofDays(2);

    private TestCertificates() {
    }

    /** A self-signed CA. */
    public record Ca(String name, CertificateAuthority authority) {
        public X509Certificate certificate() {
            return authority.root().certificate();
        }

        /** Writes the CA certificate as PEM to {@code file}; returns it. */
        public Path writeCertificate(Path file) {
            try {
                CertificateAuthority.writePem(file, certificate(), false);
                return file;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * Issues a certificate for {@code CN=commonName} with the DNS and IP subject alternative
         * names {@code sans}, for serverAuth and clientAuth, and writes it to
         * {@code dir}/{@code fileStem}.crt and its key to .key (PKCS#8).
         */
        public Leaf issue(String commonName, List<String> sans, Path dir, String fileStem) {
            CertificateAuthority.Issued issued = authority.issue("CN=" + commonName, sans, VALIDITY);
            Path cert = dir.resolve(fileStem + ".crt");
            Path key = dir.resolve(fileStem + ".key");
            try {
                issued.write(cert, key);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Leaf(issued.certificate(), cert, key);
        }
    }

    /** An issued certificate and where its PEM files are. */
    public record Leaf(X509Certificate certificate, Path certFile, Path keyFile) {
    }

    /** The serial number of the (first) certificate in a PEM file. */
    public static BigInteger serialOf(Path certFile) throws IOException {
        return PemFiles.readCertificates(certFile).get(0).getSerialNumber();
    }

    public static Ca ca(String name) {
        return new Ca(name, CertificateAuthority.create(name, VALIDITY));
    }

    /** Writes one raw PEM block (for malformed or unusual files), replacing the file in one move. */
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
