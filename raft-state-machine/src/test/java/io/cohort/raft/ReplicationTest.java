package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.response.Response;
import io.cohort.core.response.SyncGroupResponse;
import io.cohort.core.shard.ParkKey;
import io.cohort.core.shard.Result;
import io.cohort.raft.log.SnapshotCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.util.LifeCycle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication layer on a 3-node cluster of real Ratis servers with on-disk logs on loopback:
 * commands replicate and results come back, replicas stay byte-identical, failover keeps every
 * group and offset, restarts recover from snapshot + log, and a lagging follower is caught up by
 * snapshot install once the leader purged its log.
 */
class ReplicationTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults().withInitialRebalanceDelayMs(100);

    @TempDir
    Path tmp;

    private static Result done(CompletableFuture<Result> future) throws Exception {
        return future.get(20, TimeUnit.SECONDS);
    }

    private static int anotherNode(RaftTestCluster cluster, CohortRaftNode node) {
        return cluster.spec.peers().stream().mapToInt(NodeAddress::nodeId)
                .filter(id -> id != node.nodeId()).findFirst().orElseThrow();
    }

    private static ErrorCode commitError(Result result) {
        return ((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0).error();
    }

    private static long fetched(CohortRaftNode node, int partition, String group, String topic, int p) throws Exception {
        OffsetFetchResponse response = node.read(partition, true,
                shard -> shard.fetchOffsets(group, Map.of(topic, List.of(p)))).get(20, TimeUnit.SECONDS);
        return response.topics().get(0).partitions().get(0).offset();
    }

    /** Joins one dynamic member (MEMBER_ID_REQUIRED round trip) and waits out the initial delay. */
    private static String joinOneMember(RaftTestCluster cluster, String group) throws Exception {
        int partition = cluster.node(0).partitionFor(group);
        CohortRaftNode leader = cluster.leaderOf(partition);
        Result first = done(leader.submit(partition, Commands.join(group, "", "s1")));
        String memberId = ((JoinGroupResponse) first.immediateResponse()).memberId();
        assertThat(((JoinGroupResponse) first.immediateResponse()).error()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        Result second = done(leader.submit(partition, Commands.join(group, memberId, "s2")));
        assertThat(second.reply()).isInstanceOf(Result.Reply.Parked.class);
        Map<ParkKey, Response> delivered = cluster.delivered.get(leader.nodeId());
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.containsKey(ParkKey.join(group, memberId)));
        JoinGroupResponse joined = (JoinGroupResponse) delivered.get(ParkKey.join(group, memberId));
        assertThat(joined.error()).isEqualTo(ErrorCode.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        return memberId;
    }

    /**
     * Every replica's state digest of {@code partition}, taken while all replicas stood at the same
     * applied index. The workload's joins arm timers whose expiry the leader proposes later, so the
     * log can grow while the digests are read; a reading during which any index moved is retried.
     */
    private static List<String> digestsAtOneIndex(RaftTestCluster cluster, int partition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            cluster.awaitReplicasConverged(partition);
            List<Long> before = new ArrayList<>();
            List<String> digests = new ArrayList<>();
            List<Long> after = new ArrayList<>();
            for (CohortRaftNode node : cluster.runningNodes()) {
                before.add(node.stateMachine(partition).lastAppliedIndex());
                digests.add(SnapshotCodec.digest(node.shard(partition).snapshot()));
                after.add(node.stateMachine(partition).lastAppliedIndex());
            }
            if (before.equals(after) && before.stream().distinct().count() == 1) {
                return digests;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("replicas of partition " + partition + " never stood still at one index: "
                        + before + " / " + after);
            }
            Thread.sleep(50);
        }
    }

        @Test
    void concurrentCommandsAreGroupedIntoFewerEntries() throws Exception {
        // Its own cluster: the counts are the leader's since it started, and on the shared cluster
        // other tests' members expire (a proposal the leader makes itself) while it runs.
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            List<CompletableFuture<Result>> pending = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                pending.add(leader.submit(0, Commands.simpleCommit("g" + (i % 50), "t", 0, i)));
            }
            for (CompletableFuture<Result> future : pending) {
                assertThat(commitError(done(future))).isEqualTo(ErrorCode.NONE);
            }
            CohortRaftNode.ProposalCounts counts = leader.proposalCounts(0);
            assertThat(counts.commands()).isEqualTo(2_000);
            assertThat(counts.entries()).as("entries for 2,000 concurrent commands").isLessThan(2_000);
        }
    }

    /**
     * Synchronous clients come back in a burst after their entry is applied. Without the linger the
     * first of them went out alone and the rest a whole round later (entries of 1 and 7 commands);
     * with it, each round is one entry. The linger here is long, so that a slow CI machine cannot
     * make it run out; the node's default is 2 ms.
     */
    @Test
    void synchronousClientsInLockstepShareOneEntryPerRoundAndALoneClientNeverWaits() throws Exception {
        int clients = 8;
        int rounds = 40;
        RaftTuning longLinger = RaftTestCluster.TEST_TUNING.toBuilder().batchLingerMaxMicros(2_000_000).build();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, longLinger)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            CohortRaftNode.ProposalCounts before = leader.proposalCounts(0);
            List<CompletableFuture<Void>> committers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String group = "lockstep-" + c;
                committers.add(CompletableFuture.runAsync(() -> {
                    for (int offset = 0; offset < rounds; offset++) {
                        try {
                            assertThat(commitError(done(leader.submit(0, Commands.simpleCommit(group, "t", 0, offset)))))
                                    .isEqualTo(ErrorCode.NONE);
                        } catch (Exception e) {
                            throw new AssertionError(e);
                        }
                    }
                }, threads));
            }
            CompletableFuture.allOf(committers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            CohortRaftNode.ProposalCounts lockstep = leader.proposalCounts(0);
            assertThat(lockstep.commands() - before.commands()).isEqualTo((long) clients * rounds);
            // One entry per round, plus a few while the clients' first commands trickle in (without
            // the linger: about two per round).
            assertThat(lockstep.entries() - before.entries()).as("entries for %d rounds of %d clients", rounds, clients)
                    .isLessThanOrEqualTo(rounds + clients);

            // The load drops to one client: at most one entry waits out the linger, then none.
            for (int offset = 0; offset < 20; offset++) {
                assertThat(commitError(done(leader.submit(0, Commands.simpleCommit("alone", "t", 0, offset)))))
                        .isEqualTo(ErrorCode.NONE);
            }
            CohortRaftNode.ProposalCounts alone = leader.proposalCounts(0);
            assertThat(alone.entries() - lockstep.entries()).isEqualTo(20);
            assertThat(alone.lingerExpiries() - lockstep.lingerExpiries()).as("linger expiries with one client").isLessThanOrEqualTo(1);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aNewLeaderServesTheSameGroupsAndOffsetsAndFinishesAnInFlightRebalance() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS.withInitialRebalanceDelayMs(100))) {
            String group = "payments";
            String first = joinOneMember(cluster, group);
            CohortRaftNode leader = cluster.leaderOf(0);
            done(leader.submit(0, Commands.sync(group, first, 1,
                    List.of(new Command.MemberAssignment(first, Bytes.copyOf(new byte[] {1}))))));
            assertThat(commitError(done(leader.submit(0, Commands.commit(group, first, 1, "t", 0, 99)))))
                    .isEqualTo(ErrorCode.NONE);
            // A second member joins: the group is PreparingRebalance, waiting for the first to rejoin.
            Result pendingId = done(leader.submit(0, Commands.join(group, "", "s3")));
            String second = ((JoinGroupResponse) pendingId.immediateResponse()).memberId();
            assertThat(done(leader.submit(0, Commands.join(group, second, "s4"))).reply())
                    .isInstanceOf(Result.Reply.Parked.class);
            cluster.awaitReplicasConverged(0);

            cluster.stopNode(leader.nodeId());
            CohortRaftNode newLeader = cluster.leaderOf(0);
            assertThat(newLeader.nodeId()).isNotEqualTo(leader.nodeId());
            // Everything is there at once: no loading phase.
            assertThat(newLeader.shard(0).group(group).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
            assertThat(fetched(newLeader, 0, group, "t", 0)).isEqualTo(99L);

            // Both members resend their JoinGroup with the same ids; the rebalance completes.
            Map<ParkKey, Response> delivered = cluster.delivered.get(newLeader.nodeId());
            done(newLeader.submit(0, Commands.join(group, second, "s5")));
            Result rejoin = done(newLeader.submit(0, Commands.join(group, first, "s6")));
            JoinGroupResponse firstAnswer = rejoin.immediateResponse() != null
                    ? (JoinGroupResponse) rejoin.immediateResponse()
                    : (JoinGroupResponse) delivered.get(ParkKey.join(group, first));
            assertThat(firstAnswer.error()).isEqualTo(ErrorCode.NONE);
            assertThat(firstAnswer.generationId()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(10)).until(() -> delivered.containsKey(ParkKey.join(group, second)));
            assertThat(((JoinGroupResponse) delivered.get(ParkKey.join(group, second))).generationId()).isEqualTo(2);
            assertThat(newLeader.shard(0).group(group).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        }
    }

    @Test
    void theNewLeaderExpiresAMemberThatStoppedHeartbeating() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            String group = "silent";
            CohortRaftNode leader = cluster.leaderOf(0);
            Result first = done(leader.submit(0, new Command.JoinGroup(group, "", null, "consumer",
                    List.of(new io.cohort.core.group.Protocol("range", Bytes.EMPTY)), 6_000, 1_000, "c", "/h", null,
                    (short) 3, "s1")));
            assertThat(first.reply()).isInstanceOf(Result.Reply.Parked.class);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    leader.shard(0).group(group).state() == ClassicGroupState.COMPLETING_REBALANCE);
            cluster.awaitReplicasConverged(0);
            cluster.stopNode(leader.nodeId());
            CohortRaftNode newLeader = cluster.leaderOf(0);
            // Nobody heartbeats: the sync timeout (rebalance timeout 1 s) or session (6 s) empties the group.
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    newLeader.shard(0).group(group).state() == ClassicGroupState.EMPTY);
            assertThat(newLeader.shard(0).group(group).generationId()).isEqualTo(2);
        }
    }

    @Test
    void aRestartedFollowerCatchesUpFromTheLog() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            int followerId = (leader.nodeId() + 1) % 3;
            cluster.stopNode(followerId);
            for (int i = 0; i < 50; i++) {
                done(leader.submit(0, Commands.simpleCommit("lag", "t", i % 5, i)));
            }
            cluster.startNode(followerId);
            cluster.awaitReplicasConverged(0);
            assertThat(SnapshotCodec.digest(cluster.node(followerId).shard(0).snapshot()))
                    .isEqualTo(SnapshotCodec.digest(leader.shard(0).snapshot()));
        }
    }

    @Test
    void aFollowerBehindThePurgedLogIsCaughtUpBySnapshotInstall() throws Exception {
        // Small segments: Ratis purges only closed segments, so 200 entries must span several.
        RaftTuning snapshotOften = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(20).batching(1, 1)
                .segmentSizeMaxBytes(4 << 10).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, snapshotOften)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            int followerId = (leader.nodeId() + 1) % 3;
            cluster.stopNode(followerId);
            for (int i = 0; i < 200; i++) {
                done(leader.submit(0, Commands.simpleCommit("purged", "t" + (i % 7), i % 3, i)));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.status(0).snapshotIndex() > 150);
            long leaderLogStart = leader.stateMachine(0).getLatestSnapshot().getIndex();
            assertThat(leaderLogStart).isGreaterThan(150);

            // The leader purged its log: the follower's next entry is gone, only a snapshot can help.
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.logStartIndex(0) > 100);

            cluster.startNode(followerId);
            cluster.awaitReplicasConverged(0);
            CohortRaftNode follower = cluster.node(followerId);
            assertThat(SnapshotCodec.digest(follower.shard(0).snapshot()))
                    .isEqualTo(SnapshotCodec.digest(leader.shard(0).snapshot()));
            // The follower's state came from an installed snapshot, not from replaying the log.
            assertThat(follower.stateMachine(0).getLatestSnapshot()).isNotNull();
            assertThat(follower.stateMachine(0).getLifeCycleState()).isEqualTo(LifeCycle.State.RUNNING);

            // The follower keeps applying after the install (its updater survived it).
            for (int i = 200; i < 230; i++) {
                done(leader.submit(0, Commands.simpleCommit("purged", "t" + (i % 7), i % 3, i)));
            }
            cluster.awaitReplicasConverged(0);
            assertThat(SnapshotCodec.digest(follower.shard(0).snapshot()))
                    .isEqualTo(SnapshotCodec.digest(leader.shard(0).snapshot()));
        }
    }

    /**
     * Chaos seed 4242 (5 nodes): a follower came back with its next entry exactly at the leader's log
     * start, the entry before it purged and the leader's snapshot further on. Ratis 3.2.2 then had no
     * "previous" for AppendEntries, its appender died with "Previous TermIndex not found" and the
     * follower stayed behind for the rest of the term (RATIS-2487, fixed in 3.3.0: the leader installs
     * its snapshot instead).
     */
    @Test
    void aFollowerWhoseNextEntryIsTheLeadersFirstIsCaughtUp() throws Exception {
        int snapshotEvery = 30;
        // Segments smaller than one entry: each entry gets its own segment, so purging up to the
        // snapshot leaves the log starting exactly at the snapshot's entry. No metadata entries, so
        // that one commit is one log entry.
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(snapshotEvery).batching(1, 1)
                .segmentSizeMaxBytes(16).logMetadataEnabled(false).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, tuning)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            int i = 0;
            // Ratis snapshots once `snapshotEvery` entries were applied past the last snapshot (the
            // first counting from -1). Commit one entry at a time until the next one triggers it.
            long followerLast;
            while (true) {
                var latest = leader.stateMachine(0).getLatestSnapshot();
                long nextSnapshotAt = (latest == null ? -1 : latest.getIndex()) + snapshotEvery;
                long applied = leader.stateMachine(0).lastAppliedIndex();
                if (applied == nextSnapshotAt - 1) {
                    followerLast = applied;
                    break;
                }
                assertThat(i).as("entries committed looking for the snapshot point").isLessThan(10 * snapshotEvery);
                done(leader.submit(0, Commands.simpleCommit("edge", "t", 0, i++)));
            }
            cluster.awaitReplicasConverged(0);
            int followerId = (leader.nodeId() + 1) % 3;
            cluster.stopNode(followerId);

            // The next entry triggers the snapshot, and the purge drops every closed segment, i.e.
            // everything before that entry: the leader's log starts at the follower's next entry, and
            // the entry before it is neither in the log nor the snapshot's.
            done(leader.submit(0, Commands.simpleCommit("edge", "t", 0, i++)));
            long expectedStart = followerLast + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.logStartIndex(0) == expectedStart);
            assertThat(leader.stateMachine(0).getLatestSnapshot().getIndex()).isEqualTo(followerLast + 1);

            cluster.startNode(followerId);
            cluster.awaitReplicasConverged(0);
            CohortRaftNode follower = cluster.node(followerId);
            assertThat(SnapshotCodec.digest(follower.shard(0).snapshot()))
                    .isEqualTo(SnapshotCodec.digest(leader.shard(0).snapshot()));
            // And it keeps up afterwards.
            for (int n = 0; n < 5; n++) {
                done(leader.submit(0, Commands.simpleCommit("edge", "t", 0, i++)));
            }
            cluster.awaitReplicasConverged(0);
            OffsetFetchResponse local = follower.read(0, false,
                    shard -> shard.fetchOffsets("edge", Map.of("t", List.of(0)))).get(20, TimeUnit.SECONDS);
            assertThat(local.topics().get(0).partitions().get(0).offset()).isEqualTo(i - 1);
        }
    }

    @Test
    void restartingEveryNodeRecoversEveryAcknowledgedCommit() throws Exception {
        Map<String, Long> acknowledged = new HashMap<>();
        // Leaders need not return to their preferred nodes here (other tests cover that): without the
        // balancer the test does not wait out its hand-backs after the start and after the restart.
        RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 2, GROUPS,
                RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(40).leaderRebalanceEnabled(false).build());
        try {
            for (int i = 0; i < 120; i++) {
                String group = "g" + (i % 6);
                int partition = cluster.node(0).partitionFor(group);
                Result result = cluster.submitToLeader(partition, Commands.simpleCommit(group, "t", 0, i));
                assertThat(commitError(result)).isEqualTo(ErrorCode.NONE);
                acknowledged.put(group, (long) i);
            }
            for (int i = 0; i < 3; i++) {
                cluster.stopNode(i);
            }
            for (int i = 0; i < 3; i++) {
                cluster.startNode(i);
            }
            cluster.awaitAllLeadersReady();
            for (Map.Entry<String, Long> entry : acknowledged.entrySet()) {
                int partition = cluster.node(0).partitionFor(entry.getKey());
                assertThat(fetched(cluster.leaderOf(partition), partition, entry.getKey(), "t", 0))
                        .as(entry.getKey()).isEqualTo(entry.getValue());
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void aNodeStartedWithAnotherPartitionCountRefusesToStart() throws Exception {
        // One node is enough: the check is each node's own, against the metadata in its data dir.
        RaftTestCluster cluster = RaftTestCluster.start(tmp, 1, 2, GROUPS);
        ClusterSpec spec = cluster.spec;
        cluster.close();
        ClusterSpec other = new ClusterSpec(spec.clusterId(), 3, spec.peers(), spec.groupConfig());
        assertThatThrownBy(() -> CohortRaftNode.start(0, other, cluster.dataDir(0), cluster.tuning,
                new PartitionListener() { }))
                .isInstanceOf(ClusterMetadata.MismatchException.class)
                .hasMessageContaining("offsets.partitions: stored 2, configured 3");
    }

    @Test
    void leadershipReturnsToThePreferredNodeAfterItRestarts() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 3, GROUPS)) {
            int preferred = cluster.spec.preferredLeader(0);
            assertThat(cluster.node(preferred).isLeaderReady(0)).isTrue();
            cluster.stopNode(preferred);
            CohortRaftNode interim = cluster.leaderOf(0);
            assertThat(interim.nodeId()).isNotEqualTo(preferred);
            assertThat(commitError(done(interim.submit(0, Commands.simpleCommit("back", "t", 0, 1)))))
                    .isEqualTo(ErrorCode.NONE);

            cluster.startNode(preferred);
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.node(preferred).isLeaderReady(0));
            assertThat(fetched(cluster.node(preferred), 0, "back", "t", 0)).isEqualTo(1L);
        }
    }

    /**
     * With auto.leader.rebalance.enable=false the node that leads after a failover keeps the
     * partition when the preferred node comes back and has caught up (above, the balancer hands it
     * back within its hold, 1 s here): a return costs no second pause.
     */
    @Test
    void withLeaderRebalanceOffARestartedPreferredNodeTakesNothingBack() throws Exception {
        aRestartedPreferredNodeTakesNothingBack(
                RaftTestCluster.TEST_TUNING.toBuilder().leaderRebalanceEnabled(false).build());
    }

    /**
     * With one partition there is no spread to restore: the balancer hands nothing back although
     * auto.leader.rebalance.enable is on (its default), and a node's return costs no second pause.
     */
    @Test
    void withOnePartitionARestartedPreferredNodeTakesNothingBack() throws Exception {
        assertThat(RaftTestCluster.TEST_TUNING.leaderRebalanceEnabled()).isTrue();
        aRestartedPreferredNodeTakesNothingBack(RaftTestCluster.TEST_TUNING);
    }

    private void aRestartedPreferredNodeTakesNothingBack(RaftTuning tuning) throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS, tuning)) {
            assertThat(cluster.node(0).leaderRebalanceEnabled()).isFalse();
            int preferred = cluster.spec.preferredLeader(0);
            cluster.stopNode(preferred);
            CohortRaftNode interim = cluster.leaderOf(0);
            assertThat(commitError(done(interim.submit(0, Commands.simpleCommit("kept", "t", 0, 1)))))
                    .isEqualTo(ErrorCode.NONE);
            long committed = interim.stateMachine(0).lastAppliedIndex();

            cluster.startNode(preferred);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> cluster.node(preferred).stateMachine(0).lastAppliedIndex() >= committed);
            // Caught up, and for three times the hold after which the balancer would have handed it back:
            await().during(Duration.ofMillis(3 * tuning.leaderBalanceHoldMs())).atMost(Duration.ofSeconds(30))
                    .until(() -> interim.isLeaderReady(0) && !cluster.node(preferred).isLeaderReady(0));
            assertThat(fetched(interim, 0, "kept", "t", 0)).isEqualTo(1L);
        }
    }

    /**
     * While a transfer is pending Ratis refuses writes without appending them; the client is told to
     * wait (COORDINATOR_LOAD_IN_PROGRESS), not that the outcome is unknown (it used to get
     * COORDINATOR_NOT_AVAILABLE and went looking for a coordinator). A transfer to a node that is
     * down stays pending until its timeout; then the partition takes writes again.
     */
    @Test
    void aLeaderHandingOverRefusesWritesAsNotReadyAndTakesThemAgainWhenTheTransferFails() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            int target = anotherNode(cluster, leader);
            cluster.stopNode(target);
            var transfer = leader.transferLeadership(0, target, 5_000);

            CompletableFuture<Result> refused = leader.submit(0, Commands.simpleCommit("handover", "t", 0, 1));
            assertThatThrownBy(() -> done(refused))
                    .hasCauseInstanceOf(ProposalException.class)
                    .cause().satisfies(e -> assertThat(((ProposalException) e).kind())
                            .isEqualTo(ProposalException.Kind.NOT_READY));

            assertThat(transfer.get(20, TimeUnit.SECONDS).isSuccess()).isFalse();
            // Ratis answers the transfer request a moment before it clears its stepping-down state;
            // when the transfer failed at once, Ratis never clears it and the node steps down for real
            // to clear it (StuckStepDownWatch), so the writes resume on whichever node then leads.
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() ->
                    commitError(done(cluster.leaderOf(0).submit(0, Commands.simpleCommit("handover", "t", 0, 2))))
                            == ErrorCode.NONE);
            assertThat(fetched(cluster.leaderOf(0), 0, "handover", "t", 0)).isEqualTo(2L);
        }
    }

    @Test
    void aLeaderHandsAPartitionToAnyCaughtUpPeer() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            int target = anotherNode(cluster, leader);
            cluster.awaitReplicasConverged(0);
            var reply = leader.transferLeadership(0, target, 5_000).get(20, TimeUnit.SECONDS);
            assertThat(reply.isSuccess()).as("%s", reply.getException()).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> cluster.node(target).isLeaderReady(0));
        }
    }

    /**
     * The tests that neither stop a node, nor move a leader, nor need their own tuning, nor count the
     * leader's proposals share one cluster (3 partitions; each test uses its own groups): one start
     * instead of one per test. Nested, so that it runs only while these tests do.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OnOneSharedCluster {
        private RaftTestCluster cluster;

        @BeforeAll
        void startCluster(@TempDir Path sharedRoot) {
            cluster = RaftTestCluster.start(sharedRoot, 3, 3, GROUPS);
        }

        @AfterAll
        void stopCluster() {
            if (cluster != null) {
                cluster.close();
            }
        }

        @Test
        void aRebalanceAndItsCommitsReplicateToEveryReplica() throws Exception {
            String group = "orders";
            int partition = cluster.node(0).partitionFor(group);
            String memberId = joinOneMember(cluster, group);
            CohortRaftNode leader = cluster.leaderOf(partition);
            Result sync = done(leader.submit(partition, Commands.sync(group, memberId, 1,
                    List.of(new Command.MemberAssignment(memberId, Bytes.copyOf(new byte[] {7}))))));
            assertThat(((SyncGroupResponse) sync.immediateResponse()).assignment()).isEqualTo(Bytes.copyOf(new byte[] {7}));
            assertThat(commitError(done(leader.submit(partition, Commands.commit(group, memberId, 1, "t", 0, 10)))))
                    .isEqualTo(ErrorCode.NONE);

            cluster.awaitReplicasConverged(partition);
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.shard(partition).group(group).state()).isEqualTo(ClassicGroupState.STABLE);
                assertThat(node.shard(partition).fetchOffsets(group, Map.of("t", List.of(0))).topics().get(0)
                        .partitions().get(0).offset()).isEqualTo(10L);
            }
        }

        @Test
        void replicasAreByteIdenticalAfterARandomWorkload() throws Exception {
            Random random = new Random(42);
            for (int i = 0; i < 300; i++) {
                String group = "g" + random.nextInt(20);
                int partition = cluster.node(0).partitionFor(group);
                Command command = random.nextInt(5) == 0
                        ? Commands.join(group, "", "s" + i)
                        : Commands.simpleCommit(group, "t" + random.nextInt(3), random.nextInt(4), random.nextInt(1000));
                cluster.submitToLeader(partition, command);
            }
            for (int p = 0; p < cluster.spec.partitions(); p++) {
                List<String> digests = digestsAtOneIndex(cluster, p);
                assertThat(digests).as("partition %d", p).hasSize(3).containsOnly(digests.get(0));
                assertThat(cluster.node(0).shard(p).groupCount()).isPositive();
            }
        }

        @Test
        void linearizableAndLocalReads() throws Exception {
            CohortRaftNode leader = cluster.leaderOf(0);
            for (int i = 1; i <= 20; i++) {
                assertThat(commitError(done(leader.submit(0, Commands.simpleCommit("r", "t", 0, i)))))
                        .isEqualTo(ErrorCode.NONE);
                assertThat(fetched(leader, 0, "r", "t", 0)).isEqualTo((long) i);
            }
            CohortRaftNode follower = cluster.runningNodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
            assertThatThrownBy(() -> follower.read(0, true, s -> s.groupCount()).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ProposalException.class);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    follower.read(0, false, s -> s.fetchOffsets("r", Map.of("t", List.of(0)))).get()
                            .topics().get(0).partitions().get(0).offset() == 20L);
        }

        @Test
        void aFollowerRefusesWritesWithTheLeaderHint() throws Exception {
            CohortRaftNode leader = cluster.leaderOf(0);
            CohortRaftNode follower = cluster.runningNodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> follower.leaderOf(0) == leader.nodeId());
            assertThatThrownBy(() -> follower.submit(0, Commands.simpleCommit("x", "t", 0, 1)).get())
                    .cause()
                    .isInstanceOfSatisfying(ProposalException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ProposalException.Kind.NOT_LEADER);
                        assertThat(e.leaderHint()).isEqualTo(leader.nodeId());
                    });
        }

        @Test
        void aFollowersLinearizableReadSeesEveryCommitAcknowledgedBeforeIt() throws Exception {
            CohortRaftNode leader = cluster.leaderOf(0);
            CohortRaftNode follower = cluster.node((leader.nodeId() + 1) % 3);
            for (int i = 0; i < 100; i++) {
                done(leader.submit(0, Commands.simpleCommit("follower-read", "t", 0, i)));
                OffsetFetchResponse read = follower.readAnyReplica(0,
                        shard -> shard.fetchOffsets("follower-read", Map.of("t", List.of(0)))).get(20, TimeUnit.SECONDS);
                assertThat(read.topics().get(0).partitions().get(0).offset()).as("after commit %d", i).isEqualTo(i);
            }
        }
    }
}
