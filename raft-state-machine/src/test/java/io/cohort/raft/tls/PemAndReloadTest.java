package io.cohort.raft.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PEM forms a node reads, and what the key manager does with files that change. */
class PemAndReloadTest {
    @TempDir
    Path dir;

    private final TestCertificates.Ca ca = TestCertificates.ca("test CA");

    @Test
    void readsAPkcs8EcKeyAndACertificateChain() throws Exception {
        TestCertificates.Leaf leaf = ca.issue("n1", List.of("127.0.0.1"), dir, "n1");
        Path chain = dir.resolve("chain.crt");
        Files.writeString(chain, Files.readString(leaf.certFile()) + Files.readString(ca.writeCertificate(
                dir.resolve("ca.crt"))));

        assertThat(PemFiles.readPrivateKey(leaf.keyFile()).getAlgorithm()).isEqualTo("EC");
        assertThat(PemFiles.readCertificates(chain)).extracting(c -> c.getSubjectX500Principal().getName())
                .containsExactly("CN=n1", "CN=test CA,O=Cohort");
    }

    @Test
    void readsAPkcs1RsaKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair rsa = generator.generateKeyPair();
        byte[] pkcs1 = PrivateKeyInfo.getInstance(rsa.getPrivate().getEncoded()).parsePrivateKey().toASN1Primitive()
                .getEncoded();
        Path file = TestCertificates.writePem(dir.resolve("rsa.key"), "RSA PRIVATE KEY", pkcs1);

        PrivateKey read = PemFiles.readPrivateKey(file);

        assertThat(read.getAlgorithm()).isEqualTo("RSA");
        assertThat(read.getEncoded()).isEqualTo(rsa.getPrivate().getEncoded());
    }

    /** SEC1 ("BEGIN EC PRIVATE KEY") with the curve named inside, as {@code openssl ecparam -genkey} writes it. */
    @Test
    void readsASec1EcKey() throws Exception {
        TestCertificates.Leaf leaf = ca.issue("n1", List.of("127.0.0.1"), dir, "n1");
        PrivateKey pkcs8 = PemFiles.readPrivateKey(leaf.keyFile());
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(pkcs8.getEncoded());
        ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
        ECPrivateKey sec1 = new ECPrivateKey(256, inner.getKey(), info.getPrivateKeyAlgorithm().getParameters());
        Path file = TestCertificates.writePem(dir.resolve("sec1.key"), "EC PRIVATE KEY", sec1.getEncoded());

        PrivateKey read = PemFiles.readPrivateKey(file);

        assertThat(read.getAlgorithm()).isEqualTo("EC");
        assertThat(((java.security.interfaces.ECPrivateKey) read).getS())
                .isEqualTo(((java.security.interfaces.ECPrivateKey) pkcs8).getS());
        ReloadingKeyManager.open("test", leaf.certFile(), file, 0); // the pair matches
    }

    @Test
    void refusesEncryptedBrokenSec1MissingAndNonPemKeysNamingTheFile() throws Exception {
        Path encrypted = TestCertificates.writePem(dir.resolve("enc.key"), "ENCRYPTED PRIVATE KEY", new byte[] {1});
        Path sec1 = TestCertificates.writePem(dir.resolve("ec.key"), "EC PRIVATE KEY", new byte[] {1});
        Path notPem = Files.writeString(dir.resolve("garbage.key"), "not a key");
        Path missing = dir.resolve("none.pem");

        assertThatThrownBy(() -> PemFiles.readPrivateKey(encrypted)).hasMessageContaining(encrypted.toString())
                .hasMessageContaining("encrypted");
        assertThatThrownBy(() -> PemFiles.readPrivateKey(sec1)).hasMessageContaining(sec1.toString())
                .hasMessageContaining("not a valid SEC1");
        assertThatThrownBy(() -> PemFiles.readPrivateKey(notPem)).hasMessageContaining("not a PEM file");
        assertThatThrownBy(() -> PemFiles.readCertificates(notPem)).hasMessageContaining(notPem.toString());
        assertThatThrownBy(() -> PemFiles.readCertificates(missing)).hasMessage(missing + " does not exist");
        assertThatThrownBy(() -> ReloadingTrustManager.open("test", missing, 0)).hasMessage(missing + " does not exist");
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefusedAtOpen() {
        TestCertificates.Leaf one = ca.issue("n1", List.of("127.0.0.1"), dir, "n1");
        TestCertificates.Leaf other = ca.issue("n2", List.of("127.0.0.1"), dir, "n2");

        assertThatThrownBy(() -> ReloadingKeyManager.open("test", one.certFile(), other.keyFile(), 0))
                .hasMessageContaining("is not the private key of the certificate");
    }

    @Test
    void aChangedPairIsTakenAndAMismatchedOneKeepsThePreviousIdentity() throws Exception {
        TestCertificates.Leaf first = ca.issue("n1", List.of("127.0.0.1"), dir, "n1");
        ReloadingKeyManager manager = ReloadingKeyManager.open("test", first.certFile(), first.keyFile(), 0);
        assertThat(manager.certificate()).isEqualTo(first.certificate());

        // Only the certificate rewritten so far: not a pair, the old identity stays.
        TestCertificates.Leaf elsewhere = ca.issue("n1", List.of("127.0.0.1"), dir, "elsewhere");
        Files.copy(elsewhere.certFile(), first.certFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThat(manager.certificate()).isEqualTo(first.certificate());
        String alias = manager.chooseServerAlias("EC", null, null);
        assertThat(manager.getPrivateKey(alias)).isEqualTo(PemFiles.readPrivateKey(first.keyFile()));

        // Then the key: the new pair is taken.
        Files.copy(elsewhere.keyFile(), first.keyFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThat(manager.certificate()).isEqualTo(elsewhere.certificate());
        String newAlias = manager.chooseServerAlias("EC", null, null);
        assertThat(newAlias).isNotEqualTo(alias);
        assertThat(manager.getCertificateChain(newAlias)[0]).isEqualTo(elsewhere.certificate());
        assertThat(manager.getPrivateKey(newAlias)).isEqualTo(PemFiles.readPrivateKey(elsewhere.keyFile()));
        assertThat(manager.chooseServerAlias("RSA", null, null)).as("an RSA handshake gets no EC key").isNull();
    }
}
