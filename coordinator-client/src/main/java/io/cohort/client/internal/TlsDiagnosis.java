package io.cohort.client.internal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Tells a TLS mismatch from an unreachable node, so that the client fails at once with what to
 * change instead of retrying until its timeout.
 *
 * <p>A TLS client learns the reason from its handshake (the SSL exception in the status's causes).
 * A plaintext client against a TLS node learns nothing useful: the node drops the connection on
 * the first bytes and gRPC reports UNAVAILABLE "Network closed for unknown reason" (or similar),
 * the same as for a node that dies mid-call. So on an UNAVAILABLE that is not a refused connection,
 * a plaintext client {@linkplain #speaksTls probes} the port with a TLS handshake.
 */
public final class TlsDiagnosis {
    /** How long the probe may take; a node that answers RPCs answers a handshake much sooner. */
    static final int PROBE_TIMEOUT_MS = 2_000;
    /** What grpc-java (1.85) reports when the peer closes the connection on the client's first bytes. */
    static final String PLAINTEXT_AGAINST_TLS = "Network closed for unknown reason";

    /** The client's TLS files, for messages; all null for a plaintext client. */
    public record ClientTls(Path caCert, Path cert, Path key) {
        public boolean enabled() {
            return caCert != null;
        }
    }

    private TlsDiagnosis() {
    }

    /**
     * What is wrong with TLS between the client and {@code endpoint}, or null if {@code failure}
     * is not a TLS problem (then it is retried as usual).
     */
    public static String explain(StatusRuntimeException failure, Endpoint endpoint, ClientTls tls) {
        if (failure.getStatus().getCode() != Status.Code.UNAVAILABLE) {
            return null;
        }
        return tls.enabled() ? explainTlsClient(failure, endpoint, tls) : explainPlaintextClient(failure, endpoint);
    }

    private static String explainPlaintextClient(StatusRuntimeException failure, Endpoint endpoint) {
        // Only the failure a TLS node causes is worth a probe: a node that is down refuses the
        // connection, a paused one times out, and neither should wait for a handshake.
        String description = String.valueOf(failure.getStatus().getDescription());
        if (causedBy(failure, ConnectException.class) != null || !description.contains(PLAINTEXT_AGAINST_TLS)
                || !speaksTls(endpoint)) {
            return null;
        }
        return "node " + endpoint + " requires TLS: this client speaks plaintext (use --cacert CA.pem, "
                + "COHORT_CACERT, or CohortClient.builder().tls(...); with client-certificate auth also --cert and --key)";
    }

    private static String explainTlsClient(StatusRuntimeException failure, Endpoint endpoint, ClientTls tls) {
        SSLException ssl = causedBy(failure, SSLException.class);
        String text = allMessages(failure).toLowerCase(Locale.ROOT);
        if (text.contains("not an ssl/tls record") || text.contains("unsupported or unrecognized ssl message")
                || text.contains("first received frame was not settings")) {
            return "node " + endpoint + " does not speak TLS (drop --cacert/--cert/--key, or check the port)";
        }
        if (text.contains("pkix path") || text.contains("unable to find valid certification path")
                || text.contains("certpathvalidatorexception")) {
            return "the certificate of node " + endpoint + " is not signed by a CA in " + tls.caCert()
                    + " (check --cacert)";
        }
        if (text.contains("no subject alternative") || text.contains("no name matching")) {
            return "the certificate of node " + endpoint + " does not name " + endpoint.host()
                    + " (connect with a host name the certificate has)";
        }
        if (text.contains("certificate_required") || text.contains("bad_certificate") || text.contains("unknown_ca")
                || text.contains("certificate_unknown") || text.contains("handshake_failure")) {
            return tls.cert() == null
                    ? "node " + endpoint + " requires a client certificate (use --cert and --key)"
                    : "node " + endpoint + " refused the client certificate " + tls.cert()
                            + " (is it signed by the node's client CA, tls.ca?)";
        }
        if (ssl != null) {
            return "TLS with node " + endpoint + " failed: " + ssl.getMessage();
        }
        return null;
    }

    /**
     * Whether {@code endpoint} answers a TLS handshake. The probe trusts any certificate because it
     * only asks whether the port speaks TLS: it sends no request and closes at once; an alert (e.g.
     * the node wants a client certificate) also means TLS.
     */
    static boolean speaksTls(Endpoint endpoint) {
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), PROBE_TIMEOUT_MS);
            raw.setSoTimeout(PROBE_TIMEOUT_MS);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AnyCertificate()}, null);
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(raw, endpoint.host(),
                    endpoint.port(), false)) {
                socket.startHandshake();
                return true;
            }
        } catch (SSLHandshakeException e) {
            return String.valueOf(e.getMessage()).contains("alert");
        } catch (IOException | GeneralSecurityException e) {
            return false;
        }
    }

    private static <T extends Throwable> T causedBy(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String allMessages(StatusRuntimeException failure) {
        StringBuilder text = new StringBuilder(String.valueOf(failure.getStatus().getDescription()));
        for (Throwable t = failure.getCause(); t != null; t = t.getCause()) {
            text.append(" | ").append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        return text.toString();
    }

    /** Accepts any certificate: used only by the probe above, which sends nothing. */
    private static final class AnyCertificate implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
