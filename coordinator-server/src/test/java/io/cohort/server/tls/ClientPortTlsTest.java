package io.cohort.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.raft.tls.CertificateAuthority;
import io.cohort.raft.tls.CertificateAuthority.Issued;
import io.cohort.raft.tls.ReloadingKeyManager;
import io.cohort.raft.tls.ReloadingTrustManager;
import io.cohort.server.CohortServer;
import io.cohort.server.ServerConfig;
import io.cohort.testsupport.TestPorts;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client port with TLS, with real handshakes against real nodes: certificates made here with
 * {@link CertificateAuthority}, one node with {@code tls.client.auth=required} (and HTTPS /metrics
 * on loopback), one with {@code optional}.
 */
class ClientPortTlsTest {
    private static final Duration VALIDITY = Duration.ofDays(1);

    @TempDir
    static Path root;

    private static CertificateAuthority ca;
    private static Path caFile;
    private static Path clientCert;
    private static Path clientKey;
    private static Path strangerCaFile;
    private static Path strangerCert;
    private static Path strangerKey;
    private static Path nodeCert;
    private static Path nodeKey;
    private static CohortServer required;
    private static CohortServer optional;

    @BeforeAll
    static void start() throws IOException {
        ca = CertificateAuthority.create("test client CA", VALIDITY);
        caFile = root.resolve("ca.pem");
        ca.root().write(caFile, root.resolve("ca-key.pem"));
        nodeCert = root.resolve("node.pem");
        nodeKey = root.resolve("node-key.pem");
        ca.issue("CN=node-1,O=Cohort", List.of("127.0.0.1", "localhost"), VALIDITY).write(nodeCert, nodeKey);
        clientCert = root.resolve("client.pem");
        clientKey = root.resolve("client-key.pem");
        ca.issue("CN=alice,O=Cohort", List.of(), VALIDITY).write(clientCert, clientKey);
        // A CA nobody trusts, with a client certificate and a node-like certificate of its own.
        CertificateAuthority stranger = CertificateAuthority.create("stranger CA", VALIDITY);
        strangerCaFile = root.resolve("stranger-ca.pem");
        stranger.root().write(strangerCaFile, root.resolve("stranger-ca-key.pem"));
        strangerCert = root.resolve("stranger.pem");
        strangerKey = root.resolve("stranger-key.pem");
        stranger.issue("CN=mallory,O=Cohort", List.of("127.0.0.1"), VALIDITY).write(strangerCert, strangerKey);

        required = startNode("required", Map.of(ServerConfig.TLS_CLIENT_AUTH, "required",
                ServerConfig.METRICS_TLS_ENABLED, "true", ServerConfig.METRICS_HOST, "127.0.0.1"));
        optional = startNode("optional", Map.of(ServerConfig.TLS_CLIENT_AUTH, "optional"));
    }

    private static CohortServer startNode(String name, Map<String, String> extra) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(ServerConfig.NODE_ID, "1");
        settings.put(ServerConfig.PEERS, "1=127.0.0.1:" + TestPorts.next() + ":" + TestPorts.next());
        settings.put(ServerConfig.DATA_DIR, root.resolve(name).resolve("data").toString());
        settings.put(ServerConfig.LOG_DIR, root.resolve(name).resolve("logs").toString());
        settings.put(ServerConfig.PARTITIONS, "1");
        settings.put(ServerConfig.METRICS_PORT, "0");
        settings.put(ServerConfig.ELECTION_TIMEOUT_MIN_MS, "300");
        settings.put(ServerConfig.ELECTION_TIMEOUT_MAX_MS, "600");
        settings.put(ServerConfig.LEADER_WARMUP_ENABLED, "false");
        settings.put(ServerConfig.TLS_ENABLED, "true");
        settings.put(ServerConfig.TLS_CERT, nodeCert.toString());
        settings.put(ServerConfig.TLS_KEY, nodeKey.toString());
        settings.put(ServerConfig.TLS_CA, caFile.toString());
        settings.put(ServerConfig.TLS_RELOAD_CHECK_INTERVAL_MS, "100");
        settings.putAll(extra);
        return CohortServer.start(ServerConfig.of(settings));
    }

    @AfterAll
    static void stop() {
        for (CohortServer server : new CohortServer[] {required, optional}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void tlsClientWithCertificateIsServed() throws IOException {
        assertThat(health(required, tls(caFile, clientCert, clientKey))).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void clientWithoutCertificateIsRefusedWhenRequired() throws IOException {
        assertThatThrownBy(() -> health(required, tls(caFile, null, null)))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void clientWithoutCertificateIsServedWhenOptional() throws IOException {
        assertThat(health(optional, tls(caFile, null, null))).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        assertThat(health(optional, tls(caFile, clientCert, clientKey)))
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    /**
     * Also with {@code optional}: a certificate that is presented must verify. (A JDK or Netty key
     * manager would not even send a certificate whose issuer the node does not list; ours sends it
     * regardless, as a misconfigured or hostile client would.)
     */
    @Test
    void clientCertificateOfAnUntrustedCaIsRefused() throws IOException {
        for (CohortServer server : new CohortServer[] {required, optional}) {
            ChannelCredentials presentingStranger = TlsChannelCredentials.newBuilder().trustManager(caFile.toFile())
                    .keyManager(ReloadingKeyManager.open("test", strangerCert, strangerKey, 1_000)).build();
            assertThatThrownBy(() -> health(server, presentingStranger))
                    .isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        }
    }

    @Test
    void clientRefusesANodeWhoseCertificateItsCaDidNotSign() throws IOException {
        assertThatThrownBy(() -> health(required, tls(strangerCaFile, clientCert, clientKey)))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(causes(e)).contains("PKIX");
                });
    }

    @Test
    void plaintextClientIsRefused() {
        assertThatThrownBy(() -> health(required, InsecureChannelCredentials.create()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void metricsAreServedOverHttpsWithTheNodeCertificate() throws Exception {
        SSLContext trustingCa = SSLContext.getInstance("TLS");
        trustingCa.init(null, new TrustManager[] {ReloadingTrustManager.open("test", caFile, 1_000)}, null);
        HttpClient http = HttpClient.newBuilder().sslContext(trustingCa).connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + required.metricsPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("jvm_");
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + required.metricsPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
    }

    /**
     * A rotated certificate (new key, new subject, same CA) is served to the next connection
     * without a restart, and clients keep working.
     */
    @Test
    void rotatedCertificateIsServedToNewConnectionsWithoutRestart() throws Exception {
        assertThat(servedCertificate(required).getSubjectX500Principal().getName()).isEqualTo("CN=node-1,O=Cohort");
        Issued rotated = ca.issue("CN=node-1-rotated,O=Cohort", List.of("127.0.0.1", "localhost"), VALIDITY);
        rotated.write(nodeCert, nodeKey);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(
                () -> servedCertificate(required).getSerialNumber().equals(rotated.certificate().getSerialNumber()));
        assertThat(health(required, tls(caFile, clientCert, clientKey))).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    /** The leaf certificate {@code server}'s client port presents to a new TLS connection. */
    private static X509Certificate servedCertificate(CohortServer server) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {ReloadingKeyManager.open("test", clientCert, clientKey, 1_000)},
                new TrustManager[] {ReloadingTrustManager.open("test", caFile, 1_000)}, null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", server.clientPort())) {
            socket.setSoTimeout(5_000);
            socket.setEnabledProtocols(new String[] {"TLSv1.3"});
            socket.setSSLParameters(withAlpn(socket));
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    private static javax.net.ssl.SSLParameters withAlpn(SSLSocket socket) {
        javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
        parameters.setApplicationProtocols(new String[] {"h2"});
        return parameters;
    }

    private static ChannelCredentials tls(Path trusted, Path cert, Path key) throws IOException {
        TlsChannelCredentials.Builder builder = TlsChannelCredentials.newBuilder().trustManager(trusted.toFile());
        if (cert != null) {
            builder.keyManager(cert.toFile(), key.toFile());
        }
        return builder.build();
    }

    private static HealthCheckResponse.ServingStatus health(CohortServer server, ChannelCredentials credentials) {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.clientPort(), credentials).build();
        try {
            return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance()).getStatus();
        } finally {
            channel.shutdownNow();
        }
    }

    private static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }
}
