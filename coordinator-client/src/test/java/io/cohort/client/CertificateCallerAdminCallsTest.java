package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclBindingFilter;
import io.cohort.api.v1.AclOperation;
import io.cohort.api.v1.AclPatternType;
import io.cohort.api.v1.AclPermission;
import io.cohort.api.v1.AclResourceType;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.raft.tls.CertificateAuthority;
import io.cohort.server.ServerConfig;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ClusterAdmin changes from a caller known by its client certificate, on nodes with client-port TLS
 * (certificates required) and the authorizer on: real nodes, real TLS handshakes. Such a caller's
 * identity cannot travel with a call one node forwards to another (the leader would see the
 * forwarding node's certificate), so a node that does not lead partition 0 answers NOT_COORDINATOR
 * naming the leader, and the client sends the change there; once the nodes' own principal may
 * ALTER the cluster, a node forwards as before. A leadership transfer goes to the partition's leader.
 */
class CertificateCallerAdminCallsTest {
    private static final Duration VALIDITY = Duration.ofDays(1);
    private static final String ADMIN = "User:CN=alice,O=Cohort";
    private static final String NODES = "User:CN=node,O=Cohort";

    @TempDir
    Path root;

    @Test
    void aChangeSentToAFollowerIsMadeByTheLeaderAsTheCaller() throws IOException {
        CertificateAuthority ca = CertificateAuthority.create("test CA", VALIDITY);
        Path caFile = root.resolve("ca.pem");
        ca.root().write(caFile, root.resolve("ca-key.pem"));
        Path nodeCert = root.resolve("node.pem");
        Path nodeKey = root.resolve("node-key.pem");
        ca.issue("CN=node,O=Cohort", List.of("127.0.0.1", "localhost"), VALIDITY).write(nodeCert, nodeKey);
        Path adminCert = root.resolve("alice.pem");
        Path adminKey = root.resolve("alice-key.pem");
        ca.issue("CN=alice,O=Cohort", List.of(), VALIDITY).write(adminCert, adminKey);

        try (LocalCluster cluster = LocalCluster.start(root.resolve("cluster"), 3, 1, Map.of(
                ServerConfig.TLS_ENABLED, "true", ServerConfig.TLS_CERT, nodeCert.toString(),
                ServerConfig.TLS_KEY, nodeKey.toString(), ServerConfig.TLS_CA, caFile.toString(),
                ServerConfig.TLS_CLIENT_AUTH, "required", ServerConfig.AUTHORIZER_ENABLED, "true",
                ServerConfig.SUPER_USERS, ADMIN))) {
            int leader = cluster.leaderOf(0);
            int follower = leader % 3 + 1;
            ManagedChannel toFollower = Grpc.newChannelBuilder(cluster.endpoint(follower),
                    TlsChannelCredentials.newBuilder().trustManager(caFile.toFile())
                            .keyManager(adminCert.toFile(), adminKey.toFile()).build()).build();
            try {
                ClusterAdminGrpc.ClusterAdminBlockingStub followerAdmin = ClusterAdminGrpc.newBlockingStub(toFollower);

                // Sent to the follower by hand: not forwarded (the leader would judge the nodes'
                // principal, which may not ALTER the cluster) but answered NOT_COORDINATOR, naming the leader.
                CreateAclsResponse refused = followerAdmin.withDeadlineAfter(30, TimeUnit.SECONDS)
                        .createAcls(CreateAclsRequest.newBuilder().addCreations(readGroups("User:CN=bob")).build());
                assertThat(refused.getErrorCode()).as(refused.getErrorMessage()).isEqualTo(ErrorCode.NOT_COORDINATOR);
                assertThat(refused.getErrorMessage()).contains("node " + leader + " does", cluster.endpoint(leader),
                        NODES, ADMIN);
                assertThat(cluster.raftNode(leader).shard(0).acls().size()).isZero();

                // The client, bootstrapped with the follower alone, sends the change to the leader.
                AclBinding nodesMayAlter = AclBinding.newBuilder().setPrincipal(NODES).setHost("*")
                        .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_CLUSTER).setResourceName("cohort-cluster")
                        .setPatternType(AclPatternType.ACL_PATTERN_TYPE_LITERAL)
                        .setOperation(AclOperation.ACL_OPERATION_ALTER)
                        .setPermission(AclPermission.ACL_PERMISSION_ALLOW).build();
                try (CohortClient admin = CohortClient.builder().bootstrap(cluster.endpoint(follower))
                        .apiTimeout(Duration.ofSeconds(30)).tls(caFile, adminCert, adminKey).build()) {
                    CreateAclsResponse made = admin.createAcls(List.of(nodesMayAlter));
                    assertThat(made.getErrorCode()).as(made.getErrorMessage()).isEqualTo(ErrorCode.NONE);
                    assertThat(admin.describeAcls(everything())).containsExactly(nodesMayAlter);
                }

                // Now the nodes may ALTER the cluster: the follower forwards, and the leader makes the change.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> cluster.raftNode(follower).shard(0).acls().size() == 1);
                CreateAclsResponse forwarded = followerAdmin.withDeadlineAfter(30, TimeUnit.SECONDS)
                        .createAcls(CreateAclsRequest.newBuilder().addCreations(readGroups("User:CN=bob")).build());
                assertThat(forwarded.getErrorCode()).as(forwarded.getErrorMessage()).isEqualTo(ErrorCode.NONE);
                assertThat(cluster.raftNode(leader).shard(0).acls().size()).isEqualTo(2);

                // The nodes' ALTER taken back, a leadership transfer asked of the follower: the client
                // sends it to the partition's leader (or follows the NOT_COORDINATOR), and it is done.
                try (CohortClient admin = CohortClient.builder().bootstrap(cluster.endpoint(follower))
                        .apiTimeout(Duration.ofSeconds(30)).tls(caFile, adminCert, adminKey).build()) {
                    admin.deleteAcls(List.of(AclBindingFilter.newBuilder().setPrincipal(NODES)
                            .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_ANY)
                            .setPatternType(AclPatternType.ACL_PATTERN_TYPE_ANY)
                            .setOperation(AclOperation.ACL_OPERATION_ANY)
                            .setPermission(AclPermission.ACL_PERMISSION_ANY).build()));
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> cluster.raftNode(follower).shard(0).acls().size() == 1);
                    admin.transferLeadership(0, follower, Duration.ofSeconds(30));
                    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf(0) == follower);
                }
            } finally {
                toFollower.shutdownNow();
            }
        }
    }

    private static AclBinding readGroups(String principal) {
        return AclBinding.newBuilder().setPrincipal(principal).setHost("*")
                .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_GROUP).setResourceName("app-")
                .setPatternType(AclPatternType.ACL_PATTERN_TYPE_PREFIXED).setOperation(AclOperation.ACL_OPERATION_READ)
                .setPermission(AclPermission.ACL_PERMISSION_ALLOW).build();
    }

    private static AclBindingFilter everything() {
        return AclBindingFilter.newBuilder().setResourceType(AclResourceType.ACL_RESOURCE_TYPE_ANY)
                .setPatternType(AclPatternType.ACL_PATTERN_TYPE_ANY).setOperation(AclOperation.ACL_OPERATION_ANY)
                .setPermission(AclPermission.ACL_PERMISSION_ANY).build();
    }
}
