package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.LocalCluster;
import io.cohort.raft.tls.CertificateAuthority;
import io.cohort.server.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cohort --cacert/--cert/--key} against a real node that requires TLS with client certificates. */
class CliTlsTest {
    private static final Duration VALIDITY = Duration.ofDays(1);

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static String caFile;
    private static String clientCert;
    private static String clientKey;

    @BeforeAll
    static void start() throws IOException {
        CertificateAuthority ca = CertificateAuthority.create("test CA", VALIDITY);
        ca.root().write(root.resolve("ca.pem"), root.resolve("ca-key.pem"));
        ca.issue("CN=node-1,O=Cohort", List.of("127.0.0.1"), VALIDITY)
                .write(root.resolve("node-1.pem"), root.resolve("node-1-key.pem"));
        ca.issue("CN=client,O=Cohort", List.of(), VALIDITY)
                .write(root.resolve("client.pem"), root.resolve("client-key.pem"));
        caFile = root.resolve("ca.pem").toString();
        clientCert = root.resolve("client.pem").toString();
        clientKey = root.resolve("client-key.pem").toString();
        cluster = LocalCluster.start(root.resolve("cluster"), 1, 1, Map.of(
                ServerConfig.TLS_ENABLED, "true",
                ServerConfig.TLS_CERT, root.resolve("node-<id>.pem").toString(),
                ServerConfig.TLS_KEY, root.resolve("node-<id>-key.pem").toString(),
                ServerConfig.TLS_CA, caFile,
                ServerConfig.TLS_CLIENT_AUTH, "required"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void withCaCertAndClientCertificateTheCommandsWork() {
        Cli status = Cli.run("--bootstrap", cluster.bootstrap(), "--cacert", caFile, "--cert", clientCert,
                "--key", clientKey, "cluster", "status");
        assertThat(status.exit()).as(status.toString()).isZero();
        assertThat(status.out()).contains("LEADER");

        Cli commit = Cli.run("--bootstrap", cluster.bootstrap(), "--cacert", caFile, "--cert", clientCert,
                "--key", clientKey, "offsets", "set", "cli-tls", "orders:0=7");
        assertThat(commit.exit()).as(commit.toString()).isZero();
        Cli fetch = Cli.run("--bootstrap", cluster.bootstrap(), "--cacert", caFile, "--cert", clientCert,
                "--key", clientKey, "--output", "json", "offsets", "get", "cli-tls");
        assertThat(fetch.exit()).as(fetch.toString()).isZero();
        assertThat(fetch.out()).contains("\"orders\"").contains("7");
    }

    @Test
    void withoutTlsOptionsItFailsAtOnceSayingTheNodeRequiresTls() {
        Cli cli = Cli.run("--bootstrap", cluster.bootstrap(), "groups", "list");
        assertThat(cli.exit()).as(cli.toString()).isEqualTo(1);
        assertThat(cli.err()).contains("node " + cluster.endpoint(1) + " requires TLS").contains("--cacert")
                .doesNotContain("is the cluster running").doesNotContain("UNKNOWN_SERVER_ERROR");
    }

    @Test
    void withoutClientCertificateItSaysOneIsRequired() {
        Cli cli = Cli.run("--bootstrap", cluster.bootstrap(), "--cacert", caFile, "groups", "list");
        assertThat(cli.exit()).as(cli.toString()).isEqualTo(1);
        assertThat(cli.err()).contains("requires a client certificate (use --cert and --key)");
    }

    @Test
    void certWithoutCaCertIsAUsageError() {
        Cli cli = Cli.run("--bootstrap", cluster.bootstrap(), "--cert", clientCert, "--key", clientKey,
                "groups", "list");
        assertThat(cli.exit()).as(cli.toString()).isEqualTo(2);
        assertThat(cli.err()).contains("--cert/--key need --cacert");
    }
}
