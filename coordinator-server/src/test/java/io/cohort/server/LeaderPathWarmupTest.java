package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
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
                sawANode.compareAndSet(false, Files.exists(dir.resolve("node-1")));
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
