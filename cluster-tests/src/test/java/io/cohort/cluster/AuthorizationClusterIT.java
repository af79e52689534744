package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclOperation;
import io.cohort.api.v1.AclPatternType;
import io.cohort.api.v1.AclPermission;
import io.cohort.api.v1.AclResourceType;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.client.CohortClient;
import io.cohort.core.PartitionFunction;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ACLs across three real node JVMs, Raft ports on mutual TLS, with the authorizer on and
 * bearer-token principals (tokens made by the packaged jar's {@code tokens create}): an ACL change sent to a node that does not lead
 * partition 0 is enforced by every node, keeps being enforced after partition 0's leader is killed
 * with SIGKILL, a change made while a node is down reaches it when it comes back, and everything
 * survives a full-cluster SIGKILL and restart.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AuthorizationClusterIT {
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void aclChangesAreEnforcedOnEveryNodeAcrossLeaderKillAndFullRestart() throws Exception {
        Path tokens = Files.createTempDirectory("cohort-tokens");
        List<String> adminLines = createToken("admin");
        List<String> aliceLines = createToken("alice");
        Files.write(tokens.resolve("tokens"), List.of(adminLines.get(2), aliceLines.get(2)));
        String adminToken = adminLines.get(1).substring(2);
        String aliceToken = aliceLines.get(1).substring(2);

        // Raft mTLS on as well (the 3-node test: ACLs replicated over peer TLS).
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(NODES).partitions(PARTITIONS).raftTls()
                .set("authorizer.enabled", "true")
                .set("super.users", "User:admin")
                .set("auth.token.file", tokens.resolve("tokens").toString()));
        String appGroup = groupIn(1, "app-");
        String otherGroup = groupIn(2, "billing-");
        try (CohortClient admin = CohortClient.builder().bootstrap(cluster.bootstrap()).bearerToken(adminToken)
                .apiTimeout(SETTLE).build()) {
            // The harness reads ClusterStatus without a token: let ANONYMOUS describe the cluster.
            admin.createAcls(List.of(acl("User:ANONYMOUS", AclResourceType.ACL_RESOURCE_TYPE_CLUSTER, "cohort-cluster",
                    AclPatternType.ACL_PATTERN_TYPE_LITERAL, AclOperation.ACL_OPERATION_DESCRIBE)));
        }
        Map<Integer, Integer> leaders = cluster.awaitStableLeaders(SETTLE);
        assertDenied(cluster, aliceToken, appGroup);

        int partition0Leader = leaders.get(0);
        int follower = partition0Leader % NODES + 1;
        CreateAclsResponse created = cluster.admin(follower).withInterceptors(bearer(adminToken))
                .withDeadlineAfter(30, TimeUnit.SECONDS).createAcls(CreateAclsRequest.newBuilder()
                        .addCreations(acl("User:alice", AclResourceType.ACL_RESOURCE_TYPE_GROUP, "app-",
                                AclPatternType.ACL_PATTERN_TYPE_PREFIXED, AclOperation.ACL_OPERATION_READ)).build());
        assertThat(created.getErrorCode()).as(created.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(created.getPropagatedToAllNodes()).isTrue();
        awaitEnforced(cluster, aliceToken, appGroup, otherGroup, false);

        cluster.kill(partition0Leader);
        awaitEnforced(cluster, aliceToken, appGroup, otherGroup, false);
        // A change made while a node is down: committed by the survivors, not propagated to all.
        int survivor = cluster.runningNodeIds().get(0);
        CreateAclsResponse whileDown = await().atMost(SETTLE).until(() -> cluster.admin(survivor)
                .withInterceptors(bearer(adminToken)).withDeadlineAfter(30, TimeUnit.SECONDS)
                .createAcls(CreateAclsRequest.newBuilder().setTimeoutMs(1_000).addCreations(acl("User:alice",
                        AclResourceType.ACL_RESOURCE_TYPE_GROUP, otherGroup, AclPatternType.ACL_PATTERN_TYPE_LITERAL,
                        AclOperation.ACL_OPERATION_DESCRIBE)).build()), r -> r.getErrorCode() == ErrorCode.NONE);
        assertThat(whileDown.getPropagatedToAllNodes()).isFalse();
        cluster.start(partition0Leader);
        awaitEnforced(cluster, aliceToken, appGroup, otherGroup, true);

        for (int id : new ArrayList<>(cluster.runningNodeIds())) {
            cluster.kill(id);
        }
        for (int id = 1; id <= NODES; id++) {
            cluster.start(id);
        }
        cluster.awaitStableLeaders(SETTLE);
        awaitEnforced(cluster, aliceToken, appGroup, otherGroup, true);
    }

    /** On every running node: alice may find the app- group; the other group only if {@code otherAllowed}. */
    private static void awaitEnforced(ProcessCluster cluster, String aliceToken, String appGroup, String otherGroup,
                                      boolean otherAllowed) {
        for (int id : cluster.runningNodeIds()) {
            await().atMost(SETTLE).untilAsserted(() -> {
                FindCoordinatorResponse found = alice(cluster, id, aliceToken).findCoordinator(FindCoordinatorRequest
                        .newBuilder().addGroupIds(appGroup).addGroupIds(otherGroup).build());
                assertThat(found.getCoordinators(0).getErrorCode()).isNotEqualTo(ErrorCode.GROUP_AUTHORIZATION_FAILED);
                assertThat(found.getCoordinators(1).getErrorCode() == ErrorCode.GROUP_AUTHORIZATION_FAILED)
                        .isEqualTo(!otherAllowed);
            });
        }
    }

    private static void assertDenied(ProcessCluster cluster, String aliceToken, String groupId) {
        for (int id : cluster.runningNodeIds()) {
            assertThat(alice(cluster, id, aliceToken).findCoordinator(FindCoordinatorRequest.newBuilder()
                    .addGroupIds(groupId).build()).getCoordinators(0).getErrorCode())
                    .isEqualTo(ErrorCode.GROUP_AUTHORIZATION_FAILED);
        }
    }

    private static GroupCoordinatorGrpc.GroupCoordinatorBlockingStub alice(ProcessCluster cluster, int id,
                                                                         String token) {
        return cluster.coordinator(id).withInterceptors(bearer(token)).withDeadlineAfter(5, TimeUnit.SECONDS);
    }

    private static ClientInterceptor bearer(String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return MetadataUtils.newAttachHeadersInterceptor(headers);
    }

    private static AclBinding acl(String principal, AclResourceType type, String name, AclPatternType pattern,
                                  AclOperation operation) {
        return AclBinding.newBuilder().setPrincipal(principal).setHost("*").setResourceType(type).setResourceName(name)
                .setPatternType(pattern).setOperation(operation).setPermission(AclPermission.ACL_PERMISSION_ALLOW)
                .build();
    }

    private static String groupIn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            if (PartitionFunction.partitionFor(prefix + i, PARTITIONS) == partition) {
                return prefix + i;
            }
        }
    }

    /** Runs the packaged jar's {@code tokens create NAME}: three lines, the token in the second. */
    private static List<String> createToken(String name) throws IOException, InterruptedException {
        String jar = System.getProperty(ProcessCluster.SERVER_JAR_PROPERTY,
                Path.of("..", "coordinator-server", "target", "cohort-server.jar").toAbsolutePath().normalize()
                        .toString());
        Process process = new ProcessBuilder(ProcessCluster.java(),
                "-jar", jar, "tokens", "create", name).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .toList();
        assertThat(process.waitFor()).isZero();
        assertThat(lines).hasSize(3);
        return lines;
    }
}
