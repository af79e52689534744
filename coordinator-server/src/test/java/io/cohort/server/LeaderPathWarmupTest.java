package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader-path warm-up on real in-process nodes: what it runs, that it cleans up and can be cut short. */
class LeaderPathWarmupTest {
    @TempDir
    Path root;

    @Test
    void testWarmupRunsTheCommitPathUnderTwoLeadersAndDeletesItsData() throws Exception {
        Path dir = root.resolve("warmup");
        // A leftover of a node killed during its warm-up is emptied first.
        Files.createDirectories(dir.resolve("node-1/raft/stale"));

        LeaderPathWarmup.Outcome outcome = LeaderPathWarmup.run(dir, () -> false);

        // Every OffsetCommit of both rounds answered NONE (anything else throws), plus one member's commit per round.
        assertThat(outcome.commits()).isEqualTo(LeaderPathWarmup.ROUNDS
                * (LeaderPathWarmup.GROUPS * LeaderPathWarmup.COMMITS_PER_GROUP + 1));
        assertThat(dir).doesNotExist();
    }

    @Test
    void testAWarmupHeldForTheNodesReplayMakesNoCallUntilTheReplayIsDone() throws Exception {
        Path dir = root.resolve("warmup");
        CompletableFuture<Void> replay = new CompletableFuture<>();
        ExecutorService warmup = Executors.newSingleThreadExecutor();
        try {
            AtomicBoolean asked = new AtomicBoolean();
            Future<LeaderPathWarmup.Outcome> outcome = warmup.submit(() -> LeaderPathWarmup.run(dir, () -> false,
                    () -> {
                        asked.set(true);
                        return replay;
                    }));
            // Its throwaway nodes start beside the replay; before its first call it asks, and waits.
            await().atMost(Duration.ofSeconds(60)).untilTrue(asked);
            assertThat(LeaderPathWarmup.NODE_IDS).allSatisfy(id -> assertThat(dir.resolve("node-" + id)).exists());
            assertThatThrownBy(() -> outcome.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            replay.complete(null);

            LeaderPathWarmup.Outcome done = outcome.get(120, TimeUnit.SECONDS);
            assertThat(done.commits()).isEqualTo(LeaderPathWarmup.ROUNDS
                    * (LeaderPathWarmup.GROUPS * LeaderPathWarmup.COMMITS_PER_GROUP + 1));
            assertThat(done.heldMs()).isPositive();
            assertThat(dir).doesNotExist();
        } finally {
            warmup.shutdownNow();
        }
    }

    @Test
    void testAHoldEndsWhenTheReplayFailsOrTheNodeStops() throws Exception {
        assertThat(LeaderPathWarmup.hold(null, () -> false)).isZero();
        assertThat(LeaderPathWarmup.hold(CompletableFuture.completedFuture(null), () -> false)).isZero();
        // The node stopped before its replay ended: the replay's future fails, the hold ends.
        assertThat(LeaderPathWarmup.hold(CompletableFuture.failedFuture(new IllegalStateException("node 1 stopped")),
                () -> false)).isZero();
        // A replay still running while the node stops: the hold ends too.
        AtomicInteger checks = new AtomicInteger();
        assertThat(LeaderPathWarmup.hold(new CompletableFuture<Void>(), () -> checks.incrementAndGet() > 2))
                .isPositive();
        assertThat(checks).hasValue(3);
    }

    @Test
    void testAStoppingNodeCutsTheWarmupShortAndStillDeletesItsData() throws Exception {
        Path dir = root.resolve("warmup");
        Files.createDirectories(dir.resolve("node-2/raft/stale"));
        // The node starts stopping once the throwaway nodes are up: the first check passes, the next ones fail.
        AtomicInteger checks = new AtomicInteger();

        assertThatThrownBy(() -> LeaderPathWarmup.run(dir, () -> checks.incrementAndGet() > 1))
                .isInstanceOf(TimeoutException.class);

        assertThat(dir).doesNotExist();
    }

    @Test
    void testAWarmupWaitsWhileAnotherHoldsThePortPickLockAndStartsNoNode() throws Exception {
        Path dir = root.resolve("warmup");
        // Another warm-up on this machine is between picking its ports and binding them.
        try (FileChannel other = FileChannel.open(root.resolve("cohort-warmup.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock held = other.lock()) {
            AtomicInteger checks = new AtomicInteger();
            AtomicBoolean sawANode = new AtomicBoolean();

            assertThatThrownBy(() -> LeaderPathWarmup.run(dir, () -> {
                sawANode.compareAndSet(false, Files.exists(dir.resolve("node-" + LeaderPathWarmup.NODE_IDS.get(0))));
                return checks.incrementAndGet() > 3;
            })).isInstanceOf(TimeoutException.class);

            // It gave up while waiting for the lock: at no check had a throwaway node been started.
            assertThat(sawANode).isFalse();
            assertThat(held.isValid()).isTrue();
            assertThat(dir).doesNotExist();
        }
    }

    @Test
    void testTheDirectoriesOfKilledWarmupsAreDeletedAndLiveOnesKept() throws Exception {
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        Path dead = Files.createDirectories(root.resolve(LeaderPathWarmup.DIR_PREFIX + exited.pid() + "/node-1/raft"))
                .getParent().getParent();
        Path live = Files.createDirectories(root.resolve(LeaderPathWarmup.DIR_PREFIX + ProcessHandle.current().pid()));
        Path other = Files.createDirectories(root.resolve(LeaderPathWarmup.DIR_PREFIX + "not-a-pid"));

        LeaderPathWarmup.deleteLeftovers(root);

        assertThat(dead).doesNotExist();
        assertThat(live).exists();
        assertThat(other).exists();
    }

    @Test
    void testANodeWarmsUpInTheBackgroundOnlyWhenEnabled() throws Exception {
        String peers = TestNodes.peers(1);
        Map<String, String> settings = TestNodes.settings(root, 1, peers, 1);
        settings.put(ServerConfig.LEADER_WARMUP_ENABLED, "false");
        try (CohortServer server = CohortServer.start(ServerConfig.of(settings))) {
            assertThat(server.warmupThread()).isNull();
            assertThat(server.config().describe()).containsEntry(ServerConfig.LEADER_WARMUP_ENABLED, "false");
        }
        assertThat(ServerConfig.of(Map.of(ServerConfig.NODE_ID, "1")).leaderWarmupEnabled()).isTrue();
    }
}
