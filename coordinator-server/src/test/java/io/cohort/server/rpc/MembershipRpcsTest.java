package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.AddNodeRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.MembershipChangeResponse;
import io.cohort.api.v1.MembershipFailure;
import io.cohort.raft.NodeAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The membership RPCs' calls to other nodes on a real 3-node cluster (real Ratis, real gRPC on
 * loopback): a change sent to a node that does not lead partition 0 is forwarded to the one that
 * does and answered with its outcome, without a thread of the common ForkJoinPool, which Ratis also
 * runs work on (two threads on a 2-core machine: a forwarded change used to hold one for as long as
 * the change ran, minutes for a catch-up).
 */
class MembershipRpcsTest {
    @TempDir
    static Path root;
    static CoordinatorTestCluster cluster;

    @BeforeAll
    static void start() {
        cluster = CoordinatorTestCluster.start(root, 3, 1);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aChangeSentToAFollowerIsForwardedAndAnsweredWhileTheCommonPoolIsBusy() throws Exception {
        CoordinatorTestCluster.Node follower = cluster.followerOf(0);
        NodeAddress member = cluster.spec.peers().get(0);
        // Node 1 again at another Raft address: partition 0's leader refuses it as a conflict.
        AddNodeRequest conflicting = AddNodeRequest.newBuilder().setNodeId(member.nodeId())
                .setRaftAddress("127.0.0.1:1").setClientAddress("127.0.0.1:2").build();

        int threads = ForkJoinPool.getCommonPoolParallelism();
        assertThat(threads).as("the tests' JVM runs the common pool with threads (pom.xml's argLine)")
                .isGreaterThanOrEqualTo(2);
        CountDownLatch busy = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Void>> blockers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            blockers.add(CompletableFuture.runAsync(() -> {
                busy.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        try {
            assertThat(busy.await(10, TimeUnit.SECONDS)).as("every common-pool thread taken").isTrue();
            MembershipChangeResponse answer = follower.admin().withDeadlineAfter(20, TimeUnit.SECONDS)
                    .addNode(conflicting);
            assertThat(answer.getErrorCode()).as(answer.toString()).isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(answer.getFailure()).isEqualTo(MembershipFailure.MEMBERSHIP_FAILURE_CONFLICT);
            assertThat(answer.getErrorMessage()).contains("node " + member.nodeId() + " is already a member");
        } finally {
            release.countDown();
            CompletableFuture.allOf(blockers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        }
    }
}
