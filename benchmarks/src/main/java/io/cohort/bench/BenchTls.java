package io.cohort.bench;

import io.cohort.raft.tls.CertificateAuthority;
import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The certificates of a {@code --tls} or {@code --vs-secure} run: a throwaway CA, one node certificate
 * for 127.0.0.1 that every node serves (they share the host), a client certificate for the driver's
 * workload clients and one for its admin client (the super user when the authorizer is on).
 */
record BenchTls(Path ca, Path nodeCert, Path nodeKey, Path clientCert, Path clientKey, Path adminCert, Path adminKey) {
    /** The workload clients' principal (the DEFAULT mapping of their certificate's subject). */
    static final String CLIENT_PRINCIPAL = "User:CN=bench-client,O=Cohort";
    /** The admin client's principal: the super user of a {@code --vs-secure} cluster. */
    static final String ADMIN_PRINCIPAL = "User:CN=bench-admin,O=Cohort";

    static BenchTls generate(Path dir) {
        Duration validity = Duration.ofDays(2);
        CertificateAuthority authority = CertificateAuthority.create("Cohort bench CA", validity);
        BenchTls tls = new BenchTls(dir.resolve("ca.pem"), dir.resolve("node.pem"), dir.resolve("node-key.pem"),
                dir.resolve("client.pem"), dir.resolve("client-key.pem"), dir.resolve("admin.pem"), dir.resolve("admin-key.pem"));
        try {
            authority.root().write(tls.ca, dir.resolve("ca-key.pem"));
            authority.issue("CN=bench-node,O=Cohort", List.of("127.0.0.1", "localhost"), validity)
                    .write(tls.nodeCert, tls.nodeKey);
            authority.issue("CN=bench-client,O=Cohort", List.of(), validity).write(tls.clientCert, tls.clientKey);
            authority.issue("CN=bench-admin,O=Cohort", List.of(), validity).write(tls.adminCert, tls.adminKey);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the bench certificates to " + dir, e);
        }
        return tls;
    }

    /** The node settings: TLS on the client port, client certificates required. */
    Map<String, String> nodeSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("tls.enabled", "true");
        settings.put("tls.cert", nodeCert.toString());
        settings.put("tls.key", nodeKey.toString());
        settings.put("tls.ca", ca.toString());
        settings.put("tls.client.auth", "required");
        return settings;
    }

    /**
     * The settings of a secured cluster: {@link #nodeSettings()} plus the authorizer on with the
     * admin as the only super user, so the workload clients pass real ACL checks on every call.
     */
    Map<String, String> securedNodeSettings() {
        Map<String, String> settings = nodeSettings();
        settings.put("authorizer.enabled", "true");
        settings.put("super.users", ADMIN_PRINCIPAL);
        return settings;
    }

    /** The admin client's credentials (the cluster harness's own channels use them too). */
    ChannelCredentials adminCredentials() {
        try {
            return TlsChannelCredentials.newBuilder().trustManager(ca.toFile())
                    .keyManager(adminCert.toFile(), adminKey.toFile()).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
