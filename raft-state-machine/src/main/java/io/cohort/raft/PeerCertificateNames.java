package io.cohort.raft;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/** Whether a Raft caller's TLS certificate names one of the configured peers' hosts. */
final class PeerCertificateNames {
    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    private PeerCertificateNames() {
    }

    /** Null if the session's peer certificate names a peer host, else why not. */
    static String refusalOf(SSLSession session, List<String> peerHosts, Set<InetAddress> peerAddresses) {
        if (session == null) {
            return "the call did not come over TLS";
        }
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return "the caller presented no certificate";
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
            return "the caller presented no X.509 certificate";
        }
        List<String> names = names(certificate);
        for (String name : names) {
            if (namesAPeer(name, peerHosts, peerAddresses)) {
                return null;
            }
        }
        return "its certificate " + certificate.getSubjectX500Principal() + " names " + names
                + ", none of the configured peers' hosts " + peerHosts;
    }

    /** The DNS and IP subject alternative names, or the common name if there is none. */
    static List<String> names(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> alternative : alternatives) {
                    int type = (Integer) alternative.get(0);
                    if (type == SAN_DNS || type == SAN_IP) {
                        names.add(String.valueOf(alternative.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // Unparseable extension: fall back to the common name.
        }
        if (names.isEmpty()) {
            try {
                for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                    if (rdn.getType().equalsIgnoreCase("CN")) {
                        names.add(String.valueOf(rdn.getValue()));
                    }
                }
            } catch (InvalidNameException e) {
                // No usable subject.
            }
        }
        return names;
    }

    private static boolean namesAPeer(String name, List<String> peerHosts, Set<InetAddress> peerAddresses) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (String host : peerHosts) {
            String peer = host.toLowerCase(Locale.ROOT);
            if (lower.equals(peer)) {
                return true;
            }
            // A wildcard covers exactly one leftmost label, as in the host name check of RFC 6125.
            if (lower.startsWith("*.") && peer.endsWith(lower.substring(1))
                    && peer.indexOf('.') == peer.length() - lower.length() + 1) {
                return true;
            }
        }
        if (isIpLiteral(name)) {
            try {
                return peerAddresses.contains(InetAddress.getByName(name));
            } catch (UnknownHostException e) {
                return false;
            }
        }
        return false;
    }

    /** An IPv4 or IPv6 literal: resolving it performs no lookup. */
    private static boolean isIpLiteral(String name) {
        return name.contains(":") || name.matches("[0-9.]+");
    }
}
