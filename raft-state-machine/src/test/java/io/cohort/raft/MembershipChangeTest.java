package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.shard.Result;
import io.cohort.testsupport.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Online membership change on real Ratis servers in one JVM: a 3-node cluster grows to 5 with
 * nodes started in join mode (listener first, promoted once caught up by snapshot install), shrinks
 * back to 3, and refuses changes that would lose quorum; nothing committed is lost and every node
 * follows the membership (partition 0's configuration) without a restart.
 */
class MembershipChangeTest {
    /** Snapshots (and log purges) every 50 entries, so a joining node is caught up by a snapshot install. */
    private static final RaftTuning TUNING = RaftTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(50).build();
    private static final GroupConfig GROUPS = GroupConfig.defaults().withInitialRebalanceDelayMs(100);

    @TempDir
    Path root;
    private RaftTestCluster cluster;
    private final List<CohortRaftNode> joined = new ArrayList<>();
    private final List<String> progress = new CopyOnWriteArrayList<>();
    private long committed;

    @AfterEach
    void stop() throws Exception {
        for (CohortRaftNode node : joined) {
            if (node != null) {
                node.close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void growsThreeToFiveAndShrinksBackUnderCommits() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 1, GROUPS, TUNING);
        commit(300);

        NodeAddress n3 = new NodeAddress(3, "127.0.0.1", TestPorts.next(), TestPorts.next());
        CohortRaftNode node3 = join(n3);
        add(n3);
        assertVoters(0, 1, 2, 3);
        commit(100);
        NodeAddress n4 = new NodeAddress(4, "127.0.0.1", TestPorts.next(), TestPorts.next());
        CohortRaftNode node4 = join(n4);
        add(n4);
        assertVoters(0, 1, 2, 3, 4);
        assertThat(progress).anyMatch(line -> line.contains("node 4 caught up and promoted to voter"));
        // An added node is a full voter: it can be elected (a promoted Ratis listener could not).
        CohortRaftNode before = leader();
        before.transferLeadership(0, 4, 20_000).get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> node4.isLeaderReady(0));
        commit(100);
        // The joined nodes hold every offset committed before they joined (snapshot install) and after.
        awaitConverged();
        assertThat(lastOffset(node3)).isEqualTo(committed - 1);
        assertThat(lastOffset(node4)).isEqualTo(committed - 1);
        // Every node's view follows partition 0's configuration, without a restart.
        for (CohortRaftNode node : all()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> node.spec().peers().size() == 5);
            assertThat(node.spec().peer(4).clientPort()).isEqualTo(n4.clientPort());
        }
        // Adding again is a no-op (idempotent).
        add(n4);
        assertVoters(0, 1, 2, 3, 4);

        remove(4);
        assertVoters(0, 1, 2, 3);
        await().atMost(Duration.ofSeconds(30)).until(node4::removedFromCluster);
        assertThatThrownBy(() -> node4.submit(0, Commands.simpleCommit("g", "t", 0, 1)).get(5, TimeUnit.SECONDS))
                .hasMessageContaining("was removed from cluster");
        commit(50);
        remove(3);
        assertVoters(0, 1, 2);
        commit(50);
        awaitConverged();
        for (CohortRaftNode node : cluster.runningNodes()) {
            assertThat(lastOffset(node)).isEqualTo(committed - 1);
            assertThat(node.spec().peers()).extracting(NodeAddress::nodeId).containsExactly(0, 1, 2);
        }
        // Removing again is a no-op.
        remove(3);
    }

    /**
     * Three partitions on three nodes, their leaders spread by the balancer: a change runs on
     * partition 0's leader, which has every partition led by another node handed to it first
     * (before, it failed NOT_LEADER for them and pointed at itself). The dead node is removed and a
     * fresh one added under a new id; it gets every partition, since the replication factor is the
     * one the cluster was created with (3), not the 2 the shrink capped it to.
     */
    @Test
    void replacesANodeWhenOtherNodesLeadSomePartitions() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 3, GROUPS, TUNING);
        await().atMost(Duration.ofSeconds(60)).until(() -> java.util.stream.IntStream.range(0, 3)
                .map(p -> cluster.leaderOf(p).nodeId()).distinct().count() == 3);
        commit(20);
        int leader0 = cluster.leaderOf(0).nodeId();
        int dead = (leader0 + 1) % 3;
        cluster.stopNode(dead);
        remove(dead);
        for (int p = 0; p < 3; p++) {
            assertGroupVoters(p, java.util.stream.IntStream.range(0, 3).filter(id -> id != dead).boxed()
                    .toArray(Integer[]::new));
        }
        NodeAddress fresh = new NodeAddress(5, "127.0.0.1", TestPorts.next(), TestPorts.next());
        CohortRaftNode node5 = join(fresh);
        add(fresh);
        Integer[] replaced = java.util.stream.IntStream.of(0, 1, 2, 5).filter(id -> id != dead).boxed()
                .toArray(Integer[]::new);
        for (int p = 0; p < 3; p++) {
            assertGroupVoters(p, replaced);
        }
        assertThat(progress).anyMatch(line -> line.contains("its leader, to hand it to node " + leader0));
        assertThat(node5.hostedPartitions()).containsExactly(0, 1, 2);
        commit(20);
        awaitConverged();
        assertThat(lastOffset(node5)).isEqualTo(committed - 1);
    }

    @Test
    void refusesChangesThatWouldLoseQuorum() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 1, GROUPS, TUNING);
        commit(20);
        CohortRaftNode leader = cluster.leaderOf(0);
        int stopped = leader.nodeId() == 2 ? 1 : 2;
        int other = 3 - leader.nodeId() - stopped;
        cluster.stopNode(stopped);
        // 2 of 3 answer: removing one more leaves {leader, stopped}, of which only 1 answers.
        assertThatThrownBy(() -> leader.membershipChanges().removeNode(other, progress::add).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(MembershipChanges.MembershipException.class)
                .hasMessageContaining("below the quorum");
        assertThat(((MembershipChanges.MembershipException) causeOf(() -> leader.membershipChanges()
                .removeNode(other, progress::add).get(30, TimeUnit.SECONDS))).failure())
                .isEqualTo(MembershipChanges.Failure.QUORUM);
        assertVoters(0, 1, 2);
        // A follower refuses, naming the leader.
        CohortRaftNode follower = cluster.node(other);
        MembershipChanges.MembershipException notLeader = (MembershipChanges.MembershipException) causeOf(() ->
                follower.membershipChanges().removeNode(stopped, progress::add).get(30, TimeUnit.SECONDS));
        assertThat(notLeader.failure()).isEqualTo(MembershipChanges.Failure.NOT_LEADER);
        assertThat(notLeader.leader()).isEqualTo(leader.nodeId());
        // Removing the dead node itself keeps quorum (2 voters, both answer): the way to replace it.
        leader.membershipChanges().removeNode(stopped, progress::add).get(60, TimeUnit.SECONDS);
        assertVoters(java.util.stream.IntStream.of(0, 1, 2).filter(id -> id != stopped).boxed().toArray(Integer[]::new));
        // ... then add a fresh node under a new id, with an empty disk: it catches up and votes.
        NodeAddress replacement = new NodeAddress(5, "127.0.0.1", TestPorts.next(), TestPorts.next());
        CohortRaftNode node5 = join(replacement);
        add(replacement);
        assertVoters(java.util.stream.IntStream.of(0, 1, 2, 5).filter(id -> id != stopped).boxed()
                .toArray(Integer[]::new));
        commit(10);
        awaitConverged();
        assertThat(lastOffset(node5)).isEqualTo(committed - 1);
    }

    /**
     * With several partitions and a replication factor below the node count, adding or removing a
     * node changes the placement of partitions the node never held (replicas would move between
     * existing nodes, which is not built): both are refused as UNSUPPORTED before anything changes,
     * also for partitions the node running the change holds no replica of (it could not change them).
     */
    @Test
    void refusesChangesThatWouldMoveReplicasBetweenExistingNodes() throws Exception {
        cluster = RaftTestCluster.start(root, 4, 4, 3, GROUPS, TUNING);
        commit(10);
        CohortRaftNode leader = leader();
        List<List<Integer>> placement = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            placement.add(cluster.spec.replicas(p));
        }
        int other = leader.nodeId() == 3 ? 2 : 3;
        MembershipChanges.MembershipException removal = (MembershipChanges.MembershipException) causeOf(() ->
                leader.membershipChanges().removeNode(other, progress::add, handover).get(60, TimeUnit.SECONDS));
        assertThat(removal.failure()).isEqualTo(MembershipChanges.Failure.UNSUPPORTED);
        assertThat(removal).hasMessageContaining("not supported by add-node/remove-node yet");
        NodeAddress fifth = new NodeAddress(4, "127.0.0.1", TestPorts.next(), TestPorts.next());
        MembershipChanges.MembershipException addition = (MembershipChanges.MembershipException) causeOf(() ->
                leader.membershipChanges().addNode(fifth, progress::add, handover).get(60, TimeUnit.SECONDS));
        assertThat(addition.failure()).isEqualTo(MembershipChanges.Failure.UNSUPPORTED);
        // Nothing changed: every partition still on the nodes the placement gave it, the members the same.
        assertVoters(0, 1, 2, 3);
        for (int p = 0; p < 4; p++) {
            assertGroupVoters(p, placement.get(p).toArray(Integer[]::new));
        }
        commit(10);
    }

    private interface Call {
        Object call() throws Exception;
    }

    private static Throwable causeOf(Call call) {
        try {
            call.call();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }

    private CohortRaftNode join(NodeAddress address) throws Exception {
        CohortRaftNode leader = leader();
        List<NodeAddress> members = new ArrayList<>(leader.membership().all());
        members.add(address);
        CohortRaftNode node = CohortRaftNode.start(address.nodeId(), cluster.spec.withMembers(members),
                root.resolve("joined-" + address.nodeId()), TUNING, RaftPortOptions.UNBOUNDED_PLAINTEXT,
                new PartitionListener() { }, true);
        joined.add(node);
        return node;
    }

    /** As the server's: asks the node leading the partition to hand it over. */
    private final MembershipChanges.LeaderHandover handover = (partition, target) -> {
        for (CohortRaftNode node : all()) {
            if (!node.removedFromCluster() && node.isLeaderReady(partition)) {
                return node.transferLeadership(partition, target, 10_000);
            }
        }
        return java.util.concurrent.CompletableFuture.failedFuture(
                new IllegalStateException("no leader of partition " + partition));
    };

    private void add(NodeAddress address) throws Exception {
        CohortRaftNode leader = leader();
        leader.membershipChanges().addNode(address, progress::add, handover).get(120, TimeUnit.SECONDS);
        // The node that ran the change lists the new voter at once: membershipNow() reads the
        // configuration again, where membership() may be up to 500 ms behind.
        assertThat(leader.membershipNow().voters()).extracting(NodeAddress::nodeId).contains(address.nodeId());
    }

    private void remove(int nodeId) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                leader().membershipChanges().removeNode(nodeId, progress::add, handover).get(120, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (attempt > 3 || !(e.getCause() instanceof MembershipChanges.MembershipException m)
                        || m.failure() != MembershipChanges.Failure.LEADERSHIP_MOVED) {
                    throw e;
                }
            }
        }
    }

    /** Partition 0's configuration, as every live member sees it, lists exactly these voters. */
    private void assertVoters(Integer... ids) {
        for (CohortRaftNode node : all()) {
            if (node.removedFromCluster() || !List.of(ids).contains(node.nodeId())) {
                continue;
            }
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(node.membership().voters())
                    .extracting(NodeAddress::nodeId).containsExactly(ids));
            assertThat(node.membership().listeners()).isEmpty();
        }
    }

    /** Partition {@code p}'s configuration, as each live replica of it sees it, lists exactly these voters. */
    private void assertGroupVoters(int p, Integer... ids) {
        for (CohortRaftNode node : all()) {
            if (node.removedFromCluster() || !List.of(ids).contains(node.nodeId())) {
                continue;
            }
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(node.groupMembership(p)
                    .orElseThrow().voters()).as("partition %d on node %d", p, node.nodeId())
                    .extracting(NodeAddress::nodeId).containsExactlyInAnyOrder(ids));
        }
    }

    private List<CohortRaftNode> all() {
        List<CohortRaftNode> all = new ArrayList<>(cluster.runningNodes());
        all.addAll(joined);
        return all;
    }

    private CohortRaftNode leader() {
        CohortRaftNode[] found = new CohortRaftNode[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (CohortRaftNode node : all()) {
                if (!node.removedFromCluster() && node.isLeaderReady(0)) {
                    found[0] = node;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Commits {@code count} more offsets of one group, each acknowledged before the next. */
    private void commit(int count) throws Exception {
        for (int i = 0; i < count; i++) {
            long offset = committed;
            Result result = null;
            for (int attempt = 0; result == null; attempt++) {
                try {
                    result = leader().submit(0, Commands.simpleCommit("g", "t", 0, offset)).get(20, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (attempt > 20 || !(e.getCause() instanceof ProposalException)) {
                        throw e;
                    }
                }
            }
            assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0).error())
                    .isEqualTo(ErrorCode.NONE);
            committed++;
        }
    }

    private void awaitConverged() {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            long[] applied = all().stream().filter(n -> !n.removedFromCluster())
                    .mapToLong(n -> n.stateMachine(0).lastAppliedIndex()).toArray();
            return java.util.Arrays.stream(applied).allMatch(a -> a == applied[0]);
        });
    }

    private static long lastOffset(CohortRaftNode node) {
        return node.shard(0).fetchOffsets("g", Map.of("t", List.of(0))).topics().get(0).partitions().get(0).offset();
    }
}
