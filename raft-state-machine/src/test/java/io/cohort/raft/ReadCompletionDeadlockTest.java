package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.cohort.core.GroupConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A linearizable read's future completes on a Cohort thread, never on the Ratis thread that
 * completed the read index while holding Ratis's locks, so a caller's continuation may wait for
 * Ratis without deadlocking the replica.
 *
 * <p>The deadlock this guards against (seen once in {@code SnapshotRestoreIT}, 2026-12-06, and
 * reproduced by the second test without the fix): a backup's continuation of the read barrier asked
 * Ratis for a snapshot, which waits for the division's lock; it ran on the gRPC thread handling a
 * heartbeat reply, inside the monitor of Ratis's read-index listeners. A leader hand-over's vote
 * request held the division's lock while stepping down and failing those listeners, so it waited for
 * that monitor: neither moved again, and the replica took no more entries.
 */
class ReadCompletionDeadlockTest {
    @TempDir
    Path dir;

    @Test
    void testLinearizableReadsCompleteOnACohortThreadOnLeaderAndFollower() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(dir, 3, 1, GroupConfig.defaults())) {
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
            String testThread = Thread.currentThread().getName();
            Set<String> continuationThreads = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 20; i++) {
                for (CohortRaftNode node : cluster.runningNodes()) {
                    // Attached at once: runs where the future completes (or here, if it already has).
                    node.readAnyReplica(0, shard -> shard.offsetCount())
                            .whenComplete((count, error) -> continuationThreads.add(Thread.currentThread().getName()))
                            .get(30, TimeUnit.SECONDS);
                }
            }
            assertThat(continuationThreads).allSatisfy(name -> assertThat(
                    name.startsWith(PartitionRequests.READ_COMPLETION_THREAD_PREFIX) || name.equals(testThread))
                    .as("a read continuation ran on %s", name).isTrue());
        }
    }

    /**
     * Backup-style: the continuation of the read barrier requests a snapshot (waiting for the
     * division's lock) while the leader hands over, again and again under load. Every request must
     * finish and every replica keep applying.
     */
    @Test
    void testAContinuationOfAReadThatWaitsForRatisSurvivesLeaderHandOvers() throws Exception {
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(10)
                .leaderRebalanceEnabled(false).build();
        RaftTestCluster cluster = RaftTestCluster.start(dir, 3, 1, GroupConfig.defaults(), tuning);
        try {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong committed = new AtomicLong();
            Thread committer = new Thread(() -> {
                for (long offset = 0; !stop.get(); offset++) {
                    try {
                        cluster.submitToLeader(0, Commands.simpleCommit("g" + (offset % 5), "t", 0, offset));
                        committed.incrementAndGet();
                    } catch (Exception leadershipMoving) {
                        // the next leader takes the next commit
                    }
                }
            }, "test-committer");
            committer.start();
            try {
                for (int i = 0; i < 100; i++) {
                    CohortRaftNode leader = cluster.leaderOf(0);
                    int target = cluster.runningNodes().stream().mapToInt(CohortRaftNode::nodeId)
                            .filter(id -> id != leader.nodeId()).toArray()[i % 2];
                    // Spread the hand-over over the read's and the snapshot's lifetimes.
                    long delayMs = (i * 7L) % 40;
                    CompletableFuture<RaftClientReply> snapshot;
                    if (i % 2 == 0) {
                        snapshot = snapshotAfterReadBarrier(leader);
                        Thread.sleep(delayMs);
                        leader.transferLeadership(0, target, 3_000);
                    } else {
                        leader.transferLeadership(0, target, 3_000);
                        Thread.sleep(delayMs);
                        snapshot = snapshotAfterReadBarrier(leader);
                    }
                    try {
                        snapshot.get(15, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        fail("hand-over " + i + ": the snapshot request hung; " + deadlockedThreads());
                    } catch (Exception leadershipMoved) {
                        // failing is fine (the read lost its leader); hanging is not
                    }
                    long appliedSomewhere = cluster.runningNodes().stream()
                            .mapToLong(n -> n.stateMachine(0).lastAppliedIndex()).max().orElseThrow();
                    try {
                        await().atMost(Duration.ofSeconds(15)).until(() -> cluster.runningNodes().stream()
                                .allMatch(n -> n.stateMachine(0).lastAppliedIndex() >= appliedSomewhere));
                    } catch (ConditionTimeoutException e) {
                        fail("hand-over " + i + ": a replica stopped applying at " + List.of(cluster.runningNodes()
                                .stream().map(n -> n.stateMachine(0).lastAppliedIndex()).toArray())
                                + "; " + deadlockedThreads());
                    }
                }
                assertThat(committed.get()).as("commits went on through the hand-overs").isPositive();
            } finally {
                stop.set(true);
                committer.join(30_000);
            }
        } finally {
            closeWithin(cluster, 60_000);
        }
    }

    /**
     * A deadlocked replica never closes (Ratis's close waits for the division's lock): the test then
     * leaves it behind rather than hang the build, and its failure is reported.
     */
    private static void closeWithin(RaftTestCluster cluster, long timeoutMs) throws InterruptedException {
        Thread closing = new Thread(cluster::close, "test-cluster-close");
        closing.setDaemon(true);
        closing.start();
        closing.join(timeoutMs);
        if (closing.isAlive()) {
            System.err.println("ReadCompletionDeadlockTest: the cluster did not close within " + timeoutMs
                    + " ms (a deadlocked replica); its threads are left behind");
        }
    }

    /** The pattern that deadlocked: the snapshot requested in a synchronous continuation of the read. */
    private static CompletableFuture<RaftClientReply> snapshotAfterReadBarrier(CohortRaftNode node) {
        PartitionStateMachine stateMachine = node.stateMachine(0);
        return node.readAnyReplica(0, shard -> stateMachine.getLastAppliedTermIndex())
                .thenCompose(barrier -> node.raftServer().snapshotManagementAsync(SnapshotManagementRequest.newCreate(
                        ClientId.randomId(), RaftPeerId.valueOf(node.spec().peer(node.nodeId()).peerId()),
                        node.spec().raftGroupId(0), 1, 5_000, 1)));
    }

    /** The threads blocked on monitors, with the monitors they hold: what a hang report needs. */
    private static String deadlockedThreads() {
        StringBuilder out = new StringBuilder("blocked threads:");
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, false)) {
            if (info.getThreadState() != Thread.State.BLOCKED) {
                continue;
            }
            out.append("\n  ").append(info.getThreadName()).append(" on ").append(info.getLockName())
                    .append(" owned by ").append(info.getLockOwnerName()).append(", holding");
            for (MonitorInfo monitor : info.getLockedMonitors()) {
                out.append(' ').append(monitor);
            }
        }
        return out.toString();
    }
}
