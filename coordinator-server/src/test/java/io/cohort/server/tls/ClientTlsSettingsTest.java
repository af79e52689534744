package io.cohort.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.server.ConfigException;
import io.cohort.server.ServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tls.* and metrics.* settings, and the cert tool's file set. */
class ClientTlsSettingsTest {
    @TempDir
    Path dir;

    private ServerConfig config(Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(settings);
        all.put(ServerConfig.NODE_ID, "1");
        return ServerConfig.of(all);
    }

    @Test
    void offByDefaultAndMetricsOnTheNodeHost() {
        ServerConfig config = config(Map.of());
        assertThat(config.clientTls().enabled()).isFalse();
        assertThat(config.clientTls().metricsTls()).isFalse();
        assertThat(config.metricsHost()).isEqualTo("127.0.0.1");
        assertThat(config.describe()).containsEntry("tls.enabled", "false").containsEntry("metrics.host", "127.0.0.1");
    }

    @Test
    void enabledWithFiles() throws IOException {
        Files.writeString(dir.resolve("c.pem"), "x");
        Files.writeString(dir.resolve("k.pem"), "x");
        Files.writeString(dir.resolve("ca.pem"), "x");
        ServerConfig config = config(Map.of("tls.enabled", "true", "tls.cert", dir.resolve("c.pem").toString(),
                "tls.key", dir.resolve("k.pem").toString(), "tls.ca", dir.resolve("ca.pem").toString(),
                "tls.client.auth", "Required", "metrics.host", "0.0.0.0", "metrics.tls.enabled", "true"));
        assertThat(config.clientTls()).isEqualTo(new ClientTlsConfig(true, dir.resolve("c.pem"), dir.resolve("k.pem"),
                dir.resolve("ca.pem"), ClientAuth.REQUIRED, java.time.Duration.ofSeconds(1), true));
        assertThat(config.metricsHost()).isEqualTo("0.0.0.0");
    }

    @Test
    void clearErrorsForIncompleteSettings() throws IOException {
        assertThatThrownBy(() -> config(Map.of("tls.enabled", "true")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("tls.enabled=true (from the settings) needs tls.cert, the node's certificate chain (PEM)");
        Files.writeString(dir.resolve("c.pem"), "x");
        Files.writeString(dir.resolve("k.pem"), "x");
        assertThatThrownBy(() -> config(Map.of("tls.enabled", "true", "tls.cert", dir.resolve("c.pem").toString(),
                "tls.key", dir.resolve("missing.pem").toString())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("invalid tls.key").hasMessageContaining(
                        "no readable file there");
        assertThatThrownBy(() -> config(Map.of("tls.enabled", "true", "tls.cert", dir.resolve("c.pem").toString(),
                "tls.key", dir.resolve("k.pem").toString(), "tls.client.auth", "required")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("tls.client.auth=required")
                .hasMessageContaining("needs tls.ca");
        assertThatThrownBy(() -> config(Map.of("tls.client.auth", "sometimes")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("expected none, optional or required");
        assertThatThrownBy(() -> config(Map.of("metrics.tls.enabled", "true")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("needs tls.enabled=true");
    }

    @Test
    void certToolWritesTheNamedFilesOnceAndTheyLoad() throws IOException {
        Path certs = dir.resolve("certs");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true);
        assertThat(CertTool.run(new String[] {"generate", "--dir", certs.toString(), "--nodes", "2",
                "--client", "admin", "--client", "alice"}, print, print)).isZero();
        for (String name : new String[] {"ca", "peer-ca", "node-1", "node-2", "peer-node-1", "peer-node-2", "admin",
                "alice"}) {
            assertThat(certs.resolve(name + ".pem")).isRegularFile();
            assertThat(certs.resolve(name + "-key.pem")).isRegularFile();
            assertThat(Files.getPosixFilePermissions(certs.resolve(name + "-key.pem")))
                    .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        }
        ServerTls tls = ServerTls.load(new ClientTlsConfig(true, certs.resolve("node-1.pem"),
                certs.resolve("node-1-key.pem"), certs.resolve("ca.pem"), ClientAuth.REQUIRED,
                java.time.Duration.ofSeconds(1), false));
        assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=node-1,O=Cohort");
        String caBefore = Files.readString(certs.resolve("ca.pem"));
        assertThat(CertTool.run(new String[] {"generate", "--dir", certs.toString()}, print, print)).isZero();
        assertThat(Files.readString(certs.resolve("ca.pem"))).isEqualTo(caBefore);
        assertThat(out.toString()).contains("already in");
        assertThat(CertTool.run(new String[] {"generate", "--nodes", "zero"}, print, print)).isEqualTo(2);
    }
}
