package io.cohort.raft.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.raft.tls.CertificateAuthority.Issued;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.List;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PEM reading in every key form operators have, and reloading on rotation. */
class PemFilesTest {
    private static final Duration VALIDITY = Duration.ofDays(1);

    @TempDir
    Path dir;

    @Test
    void readsPkcs8Pkcs1AndSec1Keys() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("ca", VALIDITY);
        Issued node = ca.issue("CN=node", List.of("127.0.0.1"), VALIDITY);
        node.write(dir.resolve("node.pem"), dir.resolve("node-key.pem"));
        assertThat(Files.readString(dir.resolve("node-key.pem"))).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(PemFiles.readPrivateKey(dir.resolve("node-key.pem")).getEncoded())
                .isEqualTo(node.privateKey().getEncoded());

        // SEC1 ("BEGIN EC PRIVATE KEY"), as openssl ecparam -genkey writes it.
        Files.writeString(dir.resolve("sec1.pem"), sec1Pem(node.privateKey()));
        assertThat(Files.readString(dir.resolve("sec1.pem"))).startsWith("-----BEGIN EC PRIVATE KEY-----");
        assertThat(((java.security.interfaces.ECPrivateKey) PemFiles.readPrivateKey(dir.resolve("sec1.pem"))).getS())
                .isEqualTo(((java.security.interfaces.ECPrivateKey) node.privateKey()).getS());

        // PKCS#1 ("BEGIN RSA PRIVATE KEY"), as openssl genrsa (1.x) writes it.
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        KeyPair rsaKeys = rsa.generateKeyPair();
        Files.writeString(dir.resolve("pkcs1.pem"), traditionalPem(rsaKeys.getPrivate()));
        assertThat(Files.readString(dir.resolve("pkcs1.pem"))).startsWith("-----BEGIN RSA PRIVATE KEY-----");
        assertThat(PemFiles.readPrivateKey(dir.resolve("pkcs1.pem")).getEncoded())
                .isEqualTo(rsaKeys.getPrivate().getEncoded());
    }

    @Test
    void refusesAKeyThatIsNotTheCertificatesAndNamesBothFiles() throws IOException {
        CertificateAuthority ca = CertificateAuthority.create("ca", VALIDITY);
        ca.issue("CN=a", List.of(), VALIDITY).write(dir.resolve("a.pem"), dir.resolve("a-key.pem"));
        ca.issue("CN=b", List.of(), VALIDITY).write(dir.resolve("b.pem"), dir.resolve("b-key.pem"));
        assertThatThrownBy(() -> ReloadingKeyManager.fromPem(dir.resolve("a.pem"), dir.resolve("b-key.pem"),
                Duration.ofSeconds(1)))
                .isInstanceOf(PemException.class)
                .hasMessage("the private key in " + dir.resolve("b-key.pem") + " does not belong to the certificate in "
                        + dir.resolve("a.pem"));
    }

    @Test
    void clearErrorsForMissingAndNonPemFiles() throws IOException {
        assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("none.pem")))
                .isInstanceOf(PemException.class).hasMessageContaining("none.pem does not exist");
        Files.writeString(dir.resolve("junk.pem"), "hello\n");
        assertThatThrownBy(() -> PemFiles.readPrivateKey(dir.resolve("junk.pem")))
                .isInstanceOf(PemException.class).hasMessageContaining("holds no private key");
        assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("junk.pem")))
                .isInstanceOf(PemException.class).hasMessageContaining("junk.pem");
    }

    @Test
    void keyManagerServesTheRotatedPairAndKeepsTheOldOneWhileTheFilesDoNotMatch() throws IOException {
        CertificateAuthority ca = CertificateAuthority.create("ca", VALIDITY);
        Path cert = dir.resolve("node.pem");
        Path key = dir.resolve("node-key.pem");
        Issued first = ca.issue("CN=first", List.of(), VALIDITY);
        first.write(cert, key);
        ReloadingKeyManager keyManager = ReloadingKeyManager.fromPem(cert, key, Duration.ofMillis(10));
        assertThat(keyManager.certificate()).isEqualTo(first.certificate());

        // Half a rotation: the new certificate, the old key. Not served.
        Issued second = ca.issue("CN=second", List.of(), VALIDITY);
        CertificateAuthority.writePem(cert, second.certificate(), false);
        await().pollDelay(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(keyManager.certificate()).isEqualTo(first.certificate()));
        String aliasBefore = keyManager.chooseEngineServerAlias("EC", null, null);
        assertThat(keyManager.getPrivateKey(aliasBefore)).isEqualTo(first.privateKey());

        // The rotation completes: served from the next check on, under a new alias.
        CertificateAuthority.writePem(key, second.privateKey(), true);
        await().atMost(Duration.ofSeconds(5)).until(() -> keyManager.certificate().equals(second.certificate()));
        String aliasAfter = keyManager.chooseEngineServerAlias("EC", null, null);
        assertThat(aliasAfter).isNotEqualTo(aliasBefore);
        assertThat(keyManager.getPrivateKey(aliasAfter)).isEqualTo(second.privateKey());
        assertThat(keyManager.getCertificateChain(aliasAfter)[0]).isEqualTo(second.certificate());
        assertThat(keyManager.chooseEngineServerAlias("RSA", null, null)).isNull();
    }

    /** SEC1 with the curve named inside, as openssl writes it (the JDK's encoding names it outside only). */
    private static String sec1Pem(PrivateKey key) throws IOException {
        org.bouncycastle.asn1.pkcs.PrivateKeyInfo info =
                org.bouncycastle.asn1.pkcs.PrivateKeyInfo.getInstance(key.getEncoded());
        org.bouncycastle.asn1.sec.ECPrivateKey inner =
                org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(info.parsePrivateKey());
        org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, inner.getKey(),
                info.getPrivateKeyAlgorithm().getParameters());
        StringWriter text = new StringWriter();
        try (org.bouncycastle.util.io.pem.PemWriter writer = new org.bouncycastle.util.io.pem.PemWriter(text)) {
            writer.writeObject(new org.bouncycastle.util.io.pem.PemObject("EC PRIVATE KEY", sec1.getEncoded()));
        }
        return text.toString();
    }

    private static String traditionalPem(PrivateKey key) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(key);
        }
        return text.toString();
    }
}
