package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.client.TransportSecurityException;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.api.v1.TransferLeadershipResponse;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three node JVMs from the packaged jar with TLS on their client ports (client certificates
 * required), certificates made by the jar's own cert tool as an operator would: a ClusterAdmin
 * call forwarded between nodes travels over TLS; a TLS client
 * commits, its group's coordinator is SIGKILLed, and the client carries on with the new
 * coordinator over TLS; a plaintext client is told at once that the nodes require TLS.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TlsClusterIT {
    private ProcessCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void tlsClientCommitsThroughACoordinatorKill() throws Exception {
        Path serverJar = Path.of(System.getProperty(ProcessCluster.SERVER_JAR_PROPERTY,
                "../coordinator-server/target/cohort-server.jar"));
        Path base = Files.createDirectories(Path.of(System.getProperty("cohort.cluster.dir", "target")));
        Path certs = Files.createTempDirectory(base, "tls-certs");
        generateCertificates(serverJar, certs);
        Path ca = certs.resolve("ca.pem");
        Path clientCert = certs.resolve("client.pem");
        Path clientKey = certs.resolve("client-key.pem");

        cluster = ProcessCluster.builder().nodes(3).partitions(3).name("tls")
                .set("tls.enabled", "true")
                .set("tls.cert", certs.resolve("node-<id>.pem"))
                .set("tls.key", certs.resolve("node-<id>-key.pem"))
                .set("tls.ca", ca)
                .set("tls.client.auth", "required")
                .clientCredentials(TlsChannelCredentials.newBuilder().trustManager(ca.toFile())
                        .keyManager(clientCert.toFile(), clientKey.toFile()).build())
                .start();
        Map<Integer, Integer> leaders = cluster.awaitPreferredLeaders(Duration.ofSeconds(90));

        // A ClusterAdmin call sent to a node that does not lead the partition is forwarded to the
        // leader's client port: over TLS, with the forwarding node's own certificate (it was sent in
        // plaintext, and failed, before PeerChannels).
        int target = leaders.get(0) % 3 + 1;
        TransferLeadershipResponse moved = cluster.admin(target).withDeadlineAfter(60, TimeUnit.SECONDS)
                .transferLeadership(TransferLeadershipRequest.newBuilder().setPartitionIndex(0)
                        .setTargetNodeId(target).setTimeoutMs(30_000).build());
        assertThat(moved.getErrorCode()).as(moved.getErrorMessage()).isEqualTo(ErrorCode.NONE);

        TopicPartition tp = new TopicPartition("orders", 0);
        try (CohortClient client = CohortClient.builder().bootstrap(cluster.bootstrap()).apiTimeout(Duration.ofSeconds(60))
                .tls(ca, clientCert, clientKey).build()) {
            client.commitOffsets("tls-group", Map.of(tp, new OffsetAndMetadata(1)));
            int coordinator = client.findCoordinator("tls-group").nodeId();
            cluster.kill(coordinator);
            client.commitOffsets("tls-group", Map.of(tp, new OffsetAndMetadata(2)));
            assertThat(client.fetchOffsets("tls-group")).containsEntry(tp, new OffsetAndMetadata(2));
            assertThat(client.findCoordinator("tls-group").nodeId()).isNotEqualTo(coordinator);
        }
        try (CohortClient plaintext = CohortClient.builder().bootstrap(cluster.bootstrap())
                .apiTimeout(Duration.ofSeconds(60)).build()) {
            assertThatThrownBy(plaintext::partitionCount).isInstanceOf(TransportSecurityException.class)
                    .hasMessageContaining("requires TLS");
        }
    }

    /** {@code java -cp cohort-server.jar io.cohort.server.tls.CertTool generate}, as docs/SECURITY.md shows. */
    private static void generateCertificates(Path serverJar, Path dir) throws IOException, InterruptedException {
        String java = ProcessCluster.java();
        Process tool = new ProcessBuilder(java, "-Xmx128m", "-cp", serverJar.toString(),
                "io.cohort.server.tls.CertTool", "generate", "--dir", dir.toString(), "--nodes", "3", "--force")
                .redirectErrorStream(true).start();
        String output = new String(tool.getInputStream().readAllBytes());
        assertThat(tool.waitFor()).as(output).isZero();
        for (String file : List.of("ca.pem", "node-1.pem", "node-3-key.pem", "client.pem", "peer-ca.pem",
                "peer-node-2.pem")) {
            assertThat(dir.resolve(file)).isRegularFile();
        }
    }
}
