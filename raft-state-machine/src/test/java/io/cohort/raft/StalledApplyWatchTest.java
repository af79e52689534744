package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.core.GroupConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that applies nothing while entries are committed beyond it is reported once per stall
 * (the decision, with time as an argument), and on real nodes: a follower whose apply thread is
 * held is reported while its partition goes on; a leader whose apply thread is held hands its
 * partition to another replica, which then serves it.
 */
class StalledApplyWatchTest {
    private static final long STALL_MS = 1_000;
    /** The pure tests' check interval: a gap over 3 x 500 ms is a pause of the watch itself. */
    private static final long CHECK_MS = 500;

    @TempDir
    Path dir;

    @Test
    void testAReplicaBehindThatAppliesNothingForTheWholeWindowIsReportedOncePerStall() {
        StalledApplyWatch watch = new StalledApplyWatch(2, STALL_MS, CHECK_MS);
        assertThat(watch.observe(0, 100, 40, 0)).isFalse();
        assertThat(watch.observe(0, 110, 40, 500)).isFalse();
        assertThat(watch.observe(0, 120, 40, 999)).as("still for less than the window").isFalse();
        assertThat(watch.observe(0, 130, 40, 1_000)).as("still for the window while behind").isTrue();
        assertThat(watch.stillSinceMs(0)).isZero();
        assertThat(watch.observe(0, 130, 40, 1_500)).as("reported once per stall").isFalse();
        assertThat(watch.observe(0, 130, 40, 2_000)).isFalse();
        assertThat(watch.stallsReported()).isOne();

        assertThat(watch.observe(0, 130, 41, 2_500)).as("it applied again").isFalse();
        assertThat(watch.observe(0, 140, 41, 3_000)).isFalse();
        assertThat(watch.observe(0, 140, 41, 3_499)).isFalse();
        assertThat(watch.observe(0, 140, 41, 3_500)).as("a new stall").isTrue();
        assertThat(watch.stallsReported()).isEqualTo(2);
        assertThat(watch.observe(1, 10, 5, 7_000)).as("partitions are watched apart").isFalse();
    }

    @Test
    void testAPauseOfTheWholeProcessIsNotTakenForAStall() {
        StalledApplyWatch watch = new StalledApplyWatch(1, STALL_MS, CHECK_MS);
        assertThat(watch.observe(0, 100, 40, 0)).isFalse();
        assertThat(watch.observe(0, 100, 40, 400)).isFalse();
        // The process was stopped for 5 s (SIGSTOP, a long GC pause): the watch did not run either.
        assertThat(watch.observe(0, 100, 40, 5_400)).as("first look after the pause").isFalse();
        assertThat(watch.observe(0, 100, 40, 5_900)).isFalse();
        assertThat(watch.observe(0, 100, 40, 6_400)).as("a whole window observed after the pause").isTrue();
    }

    @Test
    void testAReplicaThatKeepsApplyingOrHasNothingToApplyIsNeverReported() {
        StalledApplyWatch watch = new StalledApplyWatch(1, STALL_MS, CHECK_MS);
        long applied = 0;
        for (long nowMs = 0; nowMs <= 60_000; nowMs += 500) {
            applied += 1;
            assertThat(watch.observe(0, applied + 10_000, applied, nowMs)).as("a slow replay at %d ms", nowMs)
                    .isFalse();
        }
        for (long nowMs = 60_000; nowMs <= 120_000; nowMs += 500) {
            assertThat(watch.observe(0, applied, applied, nowMs)).as("caught up and idle").isFalse();
        }
        assertThat(watch.observe(0, -1, -1, 121_000)).as("unknown: the replica is closed").isFalse();
        assertThat(watch.observe(0, applied + 5, applied, 121_400)).isFalse();
        assertThat(watch.observe(0, applied + 5, applied, 121_800)).isFalse();
        assertThat(watch.observe(0, applied + 5, applied, 122_200)).as("the window starts again after unknown")
                .isFalse();
        assertThat(watch.stallsReported()).isZero();
        assertThatThrownBy(() -> new StalledApplyWatch(1, 0, CHECK_MS)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testAFollowerWhoseApplyThreadIsHeldIsReportedWhileItsPartitionGoesOn() throws Exception {
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().applyStallMs(STALL_MS).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(dir, 3, 1, GroupConfig.defaults(), tuning)) {
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
            CohortRaftNode leader = cluster.leaderOf(0);
            CohortRaftNode follower = cluster.runningNodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
            Runnable release = cluster.holdApplies(follower.nodeId());
            try {
                for (long offset = 2; offset <= 5; offset++) {
                    cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, offset));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> follower.stalledAppliesReported() == 1);
                cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 6));
                assertThat(leader.isLeaderReady(0)).as("the follower's stall moved no leadership").isTrue();
                assertThat(leader.stalledAppliesReported()).isZero();
            } finally {
                release.run();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> follower.status(0).appliedIndex()
                    >= leader.status(0).appliedIndex());
            assertThat(follower.stalledAppliesReported()).as("reported once").isOne();
        }
    }

    @Test
    void testALeaderWhoseApplyThreadIsHeldHandsItsPartitionToAnotherReplica() throws Exception {
        // One command per entry and two entries in flight: the second commit is committed while the
        // leader's apply thread is held at the first, so the leader is behind what it committed.
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().applyStallMs(STALL_MS)
                .leaderRebalanceEnabled(false).batching(1, 2).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(dir, 3, 1, GroupConfig.defaults(), tuning)) {
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
            CohortRaftNode stuck = cluster.leaderOf(0);
            Runnable release = cluster.holdApplies(stuck.nodeId());
            try {
                // Their answers never come while the apply is held: they only make the leader commit
                // beyond what it applied.
                stuck.submit(0, Commands.simpleCommit("g", "t", 0, 2));
                stuck.submit(0, Commands.simpleCommit("g", "t", 0, 3));
                await().atMost(Duration.ofSeconds(20)).until(() -> stuck.stalledAppliesReported() == 1);
                await().atMost(Duration.ofSeconds(20)).until(() -> cluster.runningNodes().stream()
                        .anyMatch(n -> n != stuck && n.isLeaderReady(0)));
                CohortRaftNode next = cluster.runningNodes().stream().filter(n -> n != stuck && n.isLeaderReady(0))
                        .findFirst().orElseThrow();
                next.submit(0, Commands.simpleCommit("g", "t", 0, 4)).get(20, TimeUnit.SECONDS);
                assertThat(next.shard(0).fetchOffsets("g", java.util.Map.of("t", java.util.List.of(0)))
                        .topics().get(0).partitions().get(0).offset()).isEqualTo(4);
            } finally {
                release.run();
            }
        }
    }
}
