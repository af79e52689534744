package io.cohort.server.auth;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Throwaway certificates for tests: a CA and leaf certificates it signs (EC P-256, Bouncy Castle).
 * This is the authz branch's own seam; the TLS helper's cert tool replaces it when merged.
 */
final class TestCertificates {
    record Issued(X509Certificate certificate, PrivateKey key) {
    }

    private TestCertificates() {
    }

    static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    static Issued ca(String dn) throws Exception {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = builder(name(dn), name(dn), keys);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        return new Issued(sign(builder, keys.getPrivate()), keys.getPrivate());
    }

    /** A leaf for {@code dn}, signed by {@code ca}, valid for localhost and 127.0.0.1. */
    static Issued leaf(Issued ca, String dn) throws Exception {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = builder(X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
                name(dn), keys);
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        return new Issued(sign(builder, ca.key()), keys.getPrivate());
    }

    /** The name whose RFC 2253 form (what X500Principal.getName() and the mapping rules see) is {@code dn}. */
    private static X500Name name(String dn) {
        return X500Name.getInstance(new javax.security.auth.x500.X500Principal(dn).getEncoded());
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject,
                keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(builder.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    }
}
