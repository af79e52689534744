package io.cohort.raft.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;

/**
 * Reads the PEM files operators have: certificates ({@code BEGIN CERTIFICATE}, a chain leaf
 * first) and an unencrypted private key, PKCS#8 ({@code BEGIN PRIVATE KEY}: RSA, EC, Ed25519),
 * PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}) or SEC1 EC ({@code BEGIN EC PRIVATE KEY}). The JDK
 * parses the keys (SEC1 is rewrapped as PKCS#8 with Bouncy Castle's ASN.1 classes; no security
 * provider is installed). Every failure names the file and what to do.
 *
 * <p>The one PEM loader of the node: the Raft port ({@code raft.tls.*}), the client port and
 * /metrics ({@code tls.*}) all read their files here, through {@link ReloadingKeyManager} and
 * {@link ReloadingTrustManager}.
 */
public final class PemFiles {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");
    /** DER of PKCS#8's AlgorithmIdentifier for rsaEncryption (1.2.840.113549.1.1.1, NULL parameters). */
    private static final byte[] RSA_ALGORITHM_ID = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
            (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

    private PemFiles() {
    }

    /** The PEM blocks of one file: type (e.g. "CERTIFICATE") and DER bytes, in file order. */
    record Block(String type, byte[] der) {
    }

    /** Every certificate in {@code file}, in file order (for a chain: the leaf first). */
    public static List<X509Certificate> readCertificates(Path file) throws IOException {
        return certificates(file, readBytes(file));
    }

    static List<X509Certificate> certificates(Path file, byte[] pem) throws IOException {
        List<X509Certificate> certificates = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block block : blocks(file, pem)) {
                if (block.type().equals("CERTIFICATE")) {
                    Certificate certificate = factory.generateCertificate(new ByteArrayInputStream(block.der()));
                    certificates.add((X509Certificate) certificate);
                }
            }
        } catch (CertificateException e) {
            throw new IOException(file + ": not a valid X.509 certificate: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IOException(file + ": no '-----BEGIN CERTIFICATE-----' block");
        }
        return certificates;
    }

    /** The private key in {@code file}. */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        return privateKey(file, readBytes(file));
    }

    static PrivateKey privateKey(Path file, byte[] pem) throws IOException {
        for (Block block : blocks(file, pem)) {
            switch (block.type()) {
                case "PRIVATE KEY":
                    return pkcs8(file, block.der());
                case "RSA PRIVATE KEY":
                    return pkcs8(file, wrapPkcs1Rsa(block.der()));
                case "ENCRYPTED PRIVATE KEY":
                    throw new IOException(file + ": the private key is encrypted; give the node an unencrypted key "
                            + "readable only by its user (openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)");
                case "EC PRIVATE KEY":
                    return pkcs8(file, wrapSec1Ec(file, block.der()));
                default:
                    // Certificates or parameters beside the key: skip.
            }
        }
        throw new IOException(file + ": no '-----BEGIN PRIVATE KEY-----' block");
    }

    private static PrivateKey pkcs8(Path file, byte[] der) throws IOException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // Not this algorithm: try the next.
            }
        }
        throw new IOException(file + ": the private key is none of " + KEY_ALGORITHMS + " in PKCS#8");
    }

    /**
     * SEC1 ECPrivateKey ({@code openssl ecparam -genkey}'s output) as PKCS#8 PrivateKeyInfo, with
     * the curve the SEC1 structure names (Bouncy Castle's ASN.1 only; the key is the JDK's).
     */
    private static byte[] wrapSec1Ec(Path file, byte[] sec1Der) throws IOException {
        try {
            ECPrivateKey sec1 = ECPrivateKey.getInstance(ASN1Primitive.fromByteArray(sec1Der));
            if (sec1.getParametersObject() == null) {
                throw new IOException(file + ": the SEC1 'EC PRIVATE KEY' names no curve; convert it to PKCS#8 with "
                        + "openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
            }
            AlgorithmIdentifier algorithm = new AlgorithmIdentifier(X9ObjectIdentifiers.id_ecPublicKey,
                    sec1.getParametersObject());
            return new PrivateKeyInfo(algorithm, sec1).getEncoded();
        } catch (IOException | IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith(file.toString())) {
                throw (IOException) e;
            }
            throw new IOException(file + ": not a valid SEC1 'EC PRIVATE KEY': " + e.getMessage(), e);
        }
    }

    /** PKCS#1 RSAPrivateKey wrapped as PKCS#8 PrivateKeyInfo: SEQUENCE { 0, rsaEncryption, OCTET STRING }. */
    private static byte[] wrapPkcs1Rsa(byte[] pkcs1) {
        byte[] version = {0x02, 0x01, 0x00};
        byte[] octets = derElement(0x04, pkcs1);
        byte[] body = new byte[version.length + RSA_ALGORITHM_ID.length + octets.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(RSA_ALGORITHM_ID, 0, body, version.length, RSA_ALGORITHM_ID.length);
        System.arraycopy(octets, 0, body, version.length + RSA_ALGORITHM_ID.length, octets.length);
        return derElement(0x30, body);
    }

    private static byte[] derElement(int tag, byte[] content) {
        int length = content.length;
        int lengthBytes = length < 0x80 ? 0 : length < 0x100 ? 1 : length < 0x10000 ? 2 : 3;
        byte[] out = new byte[2 + lengthBytes + length];
        out[0] = (byte) tag;
        if (lengthBytes == 0) {
            out[1] = (byte) length;
        } else {
            out[1] = (byte) (0x80 | lengthBytes);
            for (int i = 0; i < lengthBytes; i++) {
                out[2 + i] = (byte) (length >>> (8 * (lengthBytes - 1 - i)));
            }
        }
        System.arraycopy(content, 0, out, 2 + lengthBytes, length);
        return out;
    }

    /** The bytes of {@code file}; a missing file is named as such, not by the bare path Java puts in the exception. */
    static byte[] readBytes(Path file) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException(file + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new IOException(file + " is not readable by this user", e);
        }
    }

    static List<Block> blocks(Path file, byte[] pem) throws IOException {
        Matcher matcher = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
        List<Block> blocks = new ArrayList<>();
        while (matcher.find()) {
            try {
                blocks.add(new Block(matcher.group(1), Base64.getMimeDecoder().decode(matcher.group(2))));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": a '" + matcher.group(1) + "' block is not valid base64", e);
            }
        }
        if (blocks.isEmpty()) {
            throw new IOException(file + ": not a PEM file (no '-----BEGIN ...-----' block)");
        }
        return blocks;
    }
}
