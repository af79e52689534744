package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPatternType;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;
import io.cohort.core.command.Command;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
     * A node started to be added holds partition 0's cluster-wide state (here the ACLs, which its
     * authorizer enforces) only once it has applied up to the configuration that added it: before,
     * its replica is empty (then a snapshot install, then the entries after), and a node that said
     * "loaded" then would deny everyone. Until this was fixed it said so from the start (it had no log
     * of its own to replay). Polled the whole time the add runs: whenever it says loaded, both ACLs,
     * the one in the snapshot it is sent and the one created last, are there.
     */
    @Test
    void aJoiningNodeHoldsTheClusterStateOnlyOnceItsAddIsApplied() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 1, GROUPS, TUNING);
        AclBinding early = new AclBinding("User:early", "*", AclResourceType.GROUP, "g", AclPatternType.LITERAL,
                AclOperation.READ, AclPermission.ALLOW);
        AclBinding late = new AclBinding("User:late", "*", AclResourceType.GROUP, "g", AclPatternType.LITERAL,
                AclOperation.READ, AclPermission.ALLOW);
        leader().submit(0, new Command.CreateAcls(List.of(early))).get(20, TimeUnit.SECONDS);
        commit(120); // past two snapshots (every 50 entries): the new node is sent one
        leader().submit(0, new Command.CreateAcls(List.of(late))).get(20, TimeUnit.SECONDS);

        NodeAddress n3 = new NodeAddress(3, "127.0.0.1", TestPorts.next(), TestPorts.next());
        CohortRaftNode node3 = join(n3);
        assertThat(node3.clusterStateLoaded()).as("not added yet: nothing of partition 0").isFalse();
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicBoolean watching = new AtomicBoolean(true);
        AtomicLong polls = new AtomicLong();
        Thread watcher = new Thread(() -> {
            while (watching.get()) {
                polls.incrementAndGet();
                if (node3.clusterStateLoaded()) {
                    java.util.Set<AclBinding> acls = node3.shard(0).acls().bindings();
                    if (!acls.contains(early) || !acls.contains(late)) {
                        violations.add("loaded with ACLs " + acls);
                    }
                    return;
                }
                Thread.onSpinWait();
            }
        }, "cluster-state-watcher");
        watcher.start();
        add(n3);
        await().atMost(Duration.ofSeconds(30)).until(node3::clusterStateLoaded);
        watching.set(false);
        watcher.join(10_000);
        assertThat(violations).isEmpty();
        assertThat(polls.get()).isPositive();
        assertThat(node3.shard(0).acls().bindings()).contains(early, late);
        assertThat(progress).anyMatch(line -> line.contains("node 3 caught up and promoted to voter"));
        // Loaded stays loaded, and the other nodes never waited: they replayed their logs at start.
        for (CohortRaftNode node : all()) {
            assertThat(node.clusterStateLoaded()).as("node " + node.nodeId()).isTrue();
        }
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
                .hasCauseInstanceOf(MembershipException.class)
                .hasMessageContaining("below the quorum");
        assertThat(((MembershipException) causeOf(() -> leader.membershipChanges()
                .removeNode(other, progress::add).get(30, TimeUnit.SECONDS))).failure())
                .isEqualTo(MembershipException.Failure.QUORUM);
        assertVoters(0, 1, 2);
        // A follower refuses, naming the leader.
        CohortRaftNode follower = cluster.node(other);
        MembershipException notLeader = (MembershipException) causeOf(() ->
                follower.membershipChanges().removeNode(stopped, progress::add).get(30, TimeUnit.SECONDS));
        assertThat(notLeader.failure()).isEqualTo(MembershipException.Failure.NOT_LEADER);
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
     * node moves replicas between nodes, existing ones included: 4 nodes, 4 partitions, factor 2.
     * Node 4 is added (every partition goes where the placement over 5 nodes puts it), then node 1
     * is removed (placement over the other 4). After each change every partition's group is exactly
     * its placement, every node holds exactly the replicas the placement gives it (the others
     * released, their data deleted), and every offset committed before is on every replica.
     */
    @Test
    void movesReplicasBetweenExistingNodesWhenNodesComeAndGo() throws Exception {
        cluster = RaftTestCluster.start(root, 4, 4, 2, GROUPS, TUNING);
        commitToEveryPartition(20);
        NodeAddress fifth = new NodeAddress(4, "127.0.0.1", TestPorts.next(), TestPorts.next());
        join(fifth);
        add(fifth);
        assertVoters(0, 1, 2, 3, 4);
        assertPlacedAsSpecified();
        assertThat(progress).anyMatch(line -> line.contains("created an empty replica")
                || line.contains("asking node"));
        commitToEveryPartition(10);

        remove(1);
        assertVoters(0, 2, 3, 4);
        assertPlacedAsSpecified();
        commitToEveryPartition(10);
        assertPlacedAsSpecified();
    }

    /**
     * A replica created for a move (empty, waiting to be added) whose node restarts before the
     * move added it held nothing: it is deleted at the start (Ratis does not open one that was
     * half-written when its node was killed, and the storage watch must not take it for a failed
     * disk). The move, run again, creates it again, adds it and catches it up.
     */
    @Test
    void aReplicaCreatedForAMoveIsCreatedAgainWhenItsNodeRestartsBeforeItIsAdded() throws Exception {
        cluster = RaftTestCluster.start(root, 3, 2, 2, GROUPS, TUNING);
        commitToEveryPartition(10);
        int outsider = java.util.stream.IntStream.range(0, 3).filter(id -> !cluster.spec.hosts(id, 1)).findFirst()
                .orElseThrow();
        assertThat(cluster.node(outsider).hostReplica(1)).isTrue();
        cluster.stopNode(outsider);
        cluster.startNode(outsider);
        CohortRaftNode restarted = cluster.node(outsider);
        assertThat(restarted.hosts(1)).isFalse();
        assertThat(ReplicaStorage.groupDir(root.resolve("node-" + outsider), cluster.spec, 1)).doesNotExist();
        // What the move does when run again: the replica first, then the group change.
        assertThat(restarted.hostReplica(1)).isTrue();
        List<NodeAddress> wanted = new ArrayList<>();
        for (int id : cluster.spec.replicas(1)) {
            wanted.add(cluster.spec.peer(id));
        }
        wanted.add(cluster.spec.peer(outsider));
        CohortRaftNode voter = cluster.node(cluster.spec.replicas(1).get(0));
        voter.membershipChanges().movePartitionHere(1, wanted, progress::add, handover).get(60, TimeUnit.SECONDS);
        assertGroupVoters(1, wanted.stream().map(NodeAddress::nodeId).toArray(Integer[]::new));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(offsetOf(restarted, 1))
                .isEqualTo(committedTo[1] - 1));
        assertThat(restarted.storageFailure()).isEmpty();
    }

    /**
     * Every live member's replicas are exactly those the placement over the current members gives
     * it, each group's voters are its placement, and every replica holds every committed offset.
     */
    private void assertPlacedAsSpecified() {
        CohortRaftNode leader = leader();
        ClusterSpec spec = leader.specWithMembers(leader.membershipNow().voters());
        List<CohortRaftNode> members = all().stream().filter(n -> spec.hasPeer(n.nodeId())).toList();
        for (int p = 0; p < spec.partitions(); p++) {
            assertGroupVoters(p, spec.replicas(p).toArray(Integer[]::new));
        }
        for (CohortRaftNode node : members) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(node.hostedPartitions())
                    .as("partitions held by node %d", node.nodeId())
                    .containsExactlyElementsOf(spec.partitionsOf(node.nodeId())));
        }
        for (int p = 0; p < spec.partitions(); p++) {
            int partition = p;
            long expected = committedTo[p] - 1;
            for (CohortRaftNode node : members) {
                if (node.hosts(partition)) {
                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(offsetOf(node, partition))
                            .as("partition %d on node %d", partition, node.nodeId()).isEqualTo(expected));
                }
            }
        }
    }

    private final long[] committedTo = new long[8];

    /** Commits {@code count} more offsets of group "g-p" to each partition p, through its leader. */
    private void commitToEveryPartition(int count) throws Exception {
        for (int p = 0; p < cluster.spec.partitions(); p++) {
            for (int i = 0; i < count; i++) {
                long offset = committedTo[p];
                int partition = p;
                Result result = null;
                for (int attempt = 0; result == null; attempt++) {
                    CohortRaftNode[] leader = new CohortRaftNode[1];
                    await().atMost(Duration.ofSeconds(30)).until(() -> {
                        for (CohortRaftNode node : all()) {
                            if (!node.removedFromCluster() && node.hosts(partition) && node.isLeaderReady(partition)) {
                                leader[0] = node;
                                return true;
                            }
                        }
                        return false;
                    });
                    try {
                        result = leader[0].submit(p, Commands.simpleCommit("g-" + p, "t", 0, offset))
                                .get(20, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (attempt > 20 || !(e.getCause() instanceof ProposalException)) {
                            throw e;
                        }
                    }
                }
                assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0)
                        .error()).isEqualTo(ErrorCode.NONE);
                committedTo[p]++;
            }
        }
    }

    private static long offsetOf(CohortRaftNode node, int partition) {
        return node.shard(partition).fetchOffsets("g-" + partition, Map.of("t", List.of(0))).topics().get(0)
                .partitions().get(0).offset();
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
    private final LeaderHandover handover = (partition, target) -> {
        for (CohortRaftNode node : all()) {
            if (!node.removedFromCluster() && node.isLeaderReady(partition)) {
                return node.transferLeadership(partition, target, 10_000);
            }
        }
        return java.util.concurrent.CompletableFuture.failedFuture(
                new IllegalStateException("no leader of partition " + partition));
    };

    /** As the server's: the other node's own calls, made directly. */
    private final ReplicaPeers peers = new ReplicaPeers() {
        @Override
        public java.util.concurrent.CompletableFuture<?> hostReplica(int nodeId, int partition) {
            try {
                return java.util.concurrent.CompletableFuture.completedFuture(node(nodeId).hostReplica(partition));
            } catch (java.io.IOException e) {
                return java.util.concurrent.CompletableFuture.failedFuture(e);
            }
        }

        @Override
        public java.util.concurrent.CompletableFuture<List<String>> movePartition(int nodeId, int partition,
                                                                                  List<NodeAddress> replicas) {
            return node(nodeId).membershipChanges().movePartitionHere(partition, replicas, progress::add, handover);
        }
    };

    private CohortRaftNode node(int nodeId) {
        return all().stream().filter(n -> n.nodeId() == nodeId).findFirst()
                .orElseThrow(() -> new IllegalStateException("node " + nodeId + " is not running"));
    }

    private void add(NodeAddress address) throws Exception {
        CohortRaftNode leader = leader();
        leader.membershipChanges().addNode(address, progress::add, handover, peers).get(120, TimeUnit.SECONDS);
        // The node that ran the change lists the new voter at once: membershipNow() reads the
        // configuration again, where membership() may be up to 500 ms behind.
        assertThat(leader.membershipNow().voters()).extracting(NodeAddress::nodeId).contains(address.nodeId());
    }

    private void remove(int nodeId) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                leader().membershipChanges().removeNode(nodeId, progress::add, handover, peers)
                        .get(120, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (attempt > 3 || !(e.getCause() instanceof MembershipException m)
                        || m.failure() != MembershipException.Failure.LEADERSHIP_MOVED) {
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
