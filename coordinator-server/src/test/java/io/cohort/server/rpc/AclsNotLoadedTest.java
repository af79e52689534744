package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.DescribeMembershipRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.server.auth.TokenFile;
import io.cohort.server.auth.TokenHash;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose ACLs are not loaded yet (its start, or its add, still applying partition 0's log)
 * answers calls that need a decision with gRPC UNAVAILABLE, which clients retry, or, where the answer
 * carries Kafka errors, COORDINATOR_LOAD_IN_PROGRESS; super users are answered at once. One real
 * node (Ratis, gRPC in process, bearer tokens). Until ThrownStatus, the calls whose check throws on
 * the handler's stack (ClusterStatus, DescribeMembership, the ACL and topic calls, HostReplica)
 * reached the caller as UNKNOWN "Application error processing RPC", which clients do not retry.
 */
class AclsNotLoadedTest {
    private CoordinatorTestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void callsAreRefusedRetriablyUntilTheAclsAreLoadedThenDecided(@TempDir Path root) throws Exception {
        String adminSecret = TokenHash.newSecret();
        String bobSecret = TokenHash.newSecret();
        Path tokens = root.resolve("tokens");
        Files.write(tokens, List.of(TokenFile.entry("User:admin", TokenHash.hash(adminSecret, 1_000)),
                TokenFile.entry("User:bob", TokenHash.hash(bobSecret, 1_000))));
        AtomicBoolean loaded = new AtomicBoolean();
        cluster = CoordinatorTestCluster.startSecured(root.resolve("cluster"), 1, 1,
                new CoordinatorTestCluster.Security(Set.of("User:admin"), TokenFile.load(tokens)),
                CoordinatorTestCluster.TEST_TUNING, loaded::get);
        CoordinatorTestCluster.Node node = cluster.node(1);
        ClusterAdminGrpc.ClusterAdminBlockingStub bob = node.admin()
                .withInterceptors(AuthorizationTest.bearer("bob." + bobSecret)).withDeadlineAfter(30, TimeUnit.SECONDS);
        ClusterAdminGrpc.ClusterAdminBlockingStub admin = node.admin()
                .withInterceptors(AuthorizationTest.bearer("admin." + adminSecret))
                .withDeadlineAfter(30, TimeUnit.SECONDS);

        for (Runnable call : List.<Runnable>of(
                () -> bob.describeMembership(DescribeMembershipRequest.getDefaultInstance()),
                () -> bob.clusterStatus(ClusterStatusRequest.getDefaultInstance()))) {
            assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription()).contains("still applying partition 0's log");
                // What another node's HostReplica tells from other UNAVAILABLEs, and asks again (UntilLoaded).
                assertThat(io.cohort.server.auth.AclsNotLoadedException.isNotLoaded(e.getStatus())).isTrue();
            });
        }
        // Where the answer carries Kafka errors, a retriable one: FindCoordinator answers a key it cannot
        // serve COORDINATOR_NOT_AVAILABLE (the client asks another node), the group calls
        // COORDINATOR_LOAD_IN_PROGRESS.
        FindCoordinatorResponse.Coordinator found = node.blocking()
                .withInterceptors(AuthorizationTest.bearer("bob." + bobSecret))
                .findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds("g").build()).getCoordinators(0);
        assertThat(found.getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(found.getErrorMessage()).contains("still applying partition 0's log");
        assertThat(node.blocking().withInterceptors(AuthorizationTest.bearer("bob." + bobSecret))
                .describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds("g").build()).getGroups(0)
                .getErrorCode()).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        // A super user is decided by the configuration, at once.
        assertThat(admin.describeMembership(DescribeMembershipRequest.getDefaultInstance()).getErrorCode())
                .isEqualTo(ErrorCode.NONE);

        loaded.set(true);
        assertThat(bob.describeMembership(DescribeMembershipRequest.getDefaultInstance()).getErrorCode())
                .isEqualTo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
}
