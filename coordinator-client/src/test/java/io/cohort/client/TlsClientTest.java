package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

/**
 * CohortClient against a real node whose client port requires TLS with client certificates: the
 * TLS client works; every mismatch fails at once with a {@link TransportSecurityException} saying
 * what to change, not after the 60-second retry budget with COORDINATOR_NOT_AVAILABLE. The node
 * also checks ACLs, with principals from the client certificates (TLS and authorization together):
 * the {@code client} certificate is the super user, {@code alice}'s maps to {@code User:alice}.
 */
class TlsClientTest {
    private static final Duration VALIDITY = Duration.ofDays(1);
    /** Long on purpose: a mismatch that fell into the retry loop would end as COORDINATOR_NOT_AVAILABLE. */
    private static final Duration API_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static Path caFile;
    private static Path clientCert;
    private static Path clientKey;
    private static Path strangerCaFile;
    private static Path aliceCert;
    private static Path aliceKey;

    @BeforeAll
    static void start() throws IOException {
        CertificateAuthority ca = CertificateAuthority.create("test CA", VALIDITY);
        caFile = root.resolve("ca.pem");
        ca.root().write(caFile, root.resolve("ca-key.pem"));
        ca.issue("CN=node-1,O=Cohort", List.of("127.0.0.1", "localhost"), VALIDITY)
                .write(root.resolve("node-1.pem"), root.resolve("node-1-key.pem"));
        clientCert = root.resolve("client.pem");
        clientKey = root.resolve("client-key.pem");
        ca.issue("CN=client,O=Cohort", List.of(), VALIDITY).write(clientCert, clientKey);
        aliceCert = root.resolve("alice.pem");
        aliceKey = root.resolve("alice-key.pem");
        ca.issue("CN=Alice,OU=Apps,O=Cohort", List.of(), VALIDITY).write(aliceCert, aliceKey);
        CertificateAuthority stranger = CertificateAuthority.create("stranger CA", VALIDITY);
        strangerCaFile = root.resolve("stranger-ca.pem");
        stranger.root().write(strangerCaFile, root.resolve("stranger-ca-key.pem"));
        cluster = LocalCluster.start(root.resolve("cluster"), 1, 2, Map.of(
                ServerConfig.TLS_ENABLED, "true",
                ServerConfig.TLS_CERT, root.resolve("node-<id>.pem").toString(),
                ServerConfig.TLS_KEY, root.resolve("node-<id>-key.pem").toString(),
                ServerConfig.TLS_CA, caFile.toString(),
                ServerConfig.TLS_CLIENT_AUTH, "required",
                ServerConfig.AUTHORIZER_ENABLED, "true",
                ServerConfig.SUPER_USERS, "User:CN=client,O=Cohort",
                ServerConfig.AUTH_PRINCIPAL_MAPPING_RULES, "RULE:^CN=(.*?),OU=Apps,.*$/$1/L,DEFAULT"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static CohortClient.Builder client() {
        return CohortClient.builder().bootstrap(cluster.bootstrap()).apiTimeout(API_TIMEOUT);
    }

    @Test
    void tlsClientWithCertificateCommitsAndFetches() {
        try (CohortClient client = client().tls(caFile, clientCert, clientKey).build()) {
            TopicPartition tp = new TopicPartition("orders", 0);
            client.commitOffsets("tls-group", Map.of(tp, new OffsetAndMetadata(42, -1, "")));
            assertThat(client.fetchOffsets("tls-group")).containsEntry(tp, new OffsetAndMetadata(42, -1, ""));
        }
    }

    /**
     * The principal comes from the certificate of the real TLS port: alice (mapped by the rule) is
     * refused until the super user (the client certificate's full DN) grants her the group.
     */
    @Test
    void certificatePrincipalIsAuthorizedByReplicatedAcls() {
        TopicPartition tp = new TopicPartition("orders", 0);
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(tp, new OffsetAndMetadata(7, -1, ""));
        try (CohortClient alice = client().tls(caFile, aliceCert, aliceKey).build();
             CohortClient admin = client().tls(caFile, clientCert, clientKey).build()) {
            assertThatThrownBy(() -> alice.commitOffsets("alice-group", offsets))
                    .isInstanceOfSatisfying(CohortException.class, e -> assertThat(e.errorCode())
                            .isEqualTo(io.cohort.api.v1.ErrorCode.GROUP_AUTHORIZATION_FAILED))
                    .hasMessageContaining("User:alice");

            admin.createAcls(List.of(io.cohort.api.v1.AclBinding.newBuilder().setPrincipal("User:alice")
                    .setHost("*").setResourceType(io.cohort.api.v1.AclResourceType.ACL_RESOURCE_TYPE_GROUP)
                    .setResourceName("alice-group")
                    .setPatternType(io.cohort.api.v1.AclPatternType.ACL_PATTERN_TYPE_LITERAL)
                    .setOperation(io.cohort.api.v1.AclOperation.ACL_OPERATION_READ)
                    .setPermission(io.cohort.api.v1.AclPermission.ACL_PERMISSION_ALLOW).build()));

            alice.commitOffsets("alice-group", offsets);
            assertThat(alice.fetchOffsets("alice-group")).containsEntry(tp, new OffsetAndMetadata(7, -1, ""));
        }
    }

    @Test
    void plaintextClientFailsAtOnceSayingTheNodeRequiresTls() {
        try (CohortClient client = client().build()) {
            assertThatThrownBy(client::partitionCount)
                    .isInstanceOf(TransportSecurityException.class)
                    .hasMessageContaining("node " + cluster.endpoint(1) + " requires TLS")
                    .hasMessageContaining("--cacert");
        }
    }

    @Test
    void clientWithoutCertificateFailsAtOnceSayingOneIsRequired() {
        try (CohortClient client = client().tls(caFile).build()) {
            assertThatThrownBy(client::partitionCount)
                    .isInstanceOf(TransportSecurityException.class)
                    .hasMessageContaining("requires a client certificate (use --cert and --key)");
        }
    }

    @Test
    void clientTrustingAnotherCaFailsAtOnceSayingTheNodeCertificateIsNotTrusted() {
        try (CohortClient client = client().tls(strangerCaFile, clientCert, clientKey).build()) {
            assertThatThrownBy(client::partitionCount)
                    .isInstanceOf(TransportSecurityException.class)
                    .hasMessageContaining("the certificate of node " + cluster.endpoint(1)
                            + " is not signed by a CA in " + strangerCaFile);
        }
    }

    @Test
    void tlsClientAgainstAPlaintextNodeFailsAtOnceSayingItDoesNotSpeakTls() {
        try (LocalCluster plaintext = LocalCluster.start(root.resolve("plaintext"), 1, 1);
             CohortClient client = CohortClient.builder().bootstrap(plaintext.bootstrap()).apiTimeout(API_TIMEOUT)
                     .tls(caFile, clientCert, clientKey).build()) {
            assertThatThrownBy(client::partitionCount)
                    .isInstanceOf(TransportSecurityException.class)
                    .hasMessageContaining("node " + plaintext.endpoint(1) + " does not speak TLS");
        }
    }

    @Test
    void missingTlsFileIsRefusedByTheBuilder() {
        assertThatThrownBy(() -> client().tls(root.resolve("nope.pem")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope.pem does not exist");
        assertThatThrownBy(() -> client().tls(caFile, clientCert, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs both cert and key");
    }
}
