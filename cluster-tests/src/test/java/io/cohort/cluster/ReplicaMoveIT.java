package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.MembershipChangeResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.core.PartitionFunction;
import io.cohort.core.placement.ReplicaPlacement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16 with issue 15's placement: with a replication factor below the node count, add-node and
 * remove-node move replicas between nodes, existing ones included. Real JVMs, 4 partitions at
 * replication factor 2, one committer per partition the whole time: 3 nodes grow to 4 (partition
 * 2 moves from nodes {2,3} to {1,2}: node 1, an existing node, gains a replica, node 3 loses one),
 * then node 1 is removed while it runs (its replicas move to the others); and, on a cluster of its
 * own, the same add-node with the node running it SIGKILLed halfway and the command re-run. After
 * each change every node holds exactly the partitions the placement over the members gives it, and
 * its data dir only their Raft groups (released replicas' data deleted); no acknowledged commit is
 * lost. The longest gap between two acknowledged commits of any committer during each change is
 * printed.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ReplicaMoveIT {
    private static final int PARTITIONS = 4;
    private static final int REPLICATION_FACTOR = 2;
    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(150);
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> lastAckNanos = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> longestGapNanos = new ConcurrentHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Throwable> committerFailures = java.util.Collections.synchronizedList(new ArrayList<>());

    @Test
    void addAndRemoveNodeMoveReplicasBetweenExistingNodesUnderCommits() throws Exception {
        ProcessCluster cluster = startCluster();
        History history = new History(cluster.runDir().resolve("history.log"));
        // The placements this test relies on: growing to 4 moves partition 2 onto node 1, which exists.
        assertThat(placement(List.of(1, 2, 3)).get(2)).containsExactlyInAnyOrder(2, 3);
        assertThat(placement(List.of(1, 2, 3, 4)).get(2)).containsExactlyInAnyOrder(1, 2);
        assertHoldsAsPlaced(cluster, List.of(1, 2, 3));

        List<Thread> committers = startCommitters(cluster.bootstrap());
        try (CohortClient admin = admin(cluster)) {
            awaitAcks(100);

            cluster.startJoining(4, 1);
            resetGaps();
            MembershipChangeResponse added = admin.addNode(4, cluster.raftAddress(4), cluster.clientAddress(4),
                    CHANGE_TIMEOUT);
            record(history, "add-node 4", added);
            assertThat(added.getStepsList()).anyMatch(s -> s.contains("partition 2") && s.contains("node 1"));
            awaitAcks(100);
            assertHoldsAsPlaced(cluster, List.of(1, 2, 3, 4));
            // Re-running a change that is done moves nothing.
            MembershipChangeResponse again = admin.addNode(4, cluster.raftAddress(4), cluster.clientAddress(4),
                    CHANGE_TIMEOUT);
            assertThat(again.getStepsList()).noneMatch(s -> s.contains("removing node") || s.contains("adding node 4 ("));

            resetGaps();
            MembershipChangeResponse removed = admin.removeNode(1, CHANGE_TIMEOUT);
            record(history, "remove-node 1", removed);
            awaitAcks(100);
            cluster.awaitCondition(Duration.ofSeconds(30), "node 2 no longer lists node 1",
                    () -> cluster.status(2).getNodesList().stream().noneMatch(n -> n.getNodeId() == 1), () -> "");
            assertHoldsAsPlaced(cluster, List.of(2, 3, 4));
        } finally {
            stopCommitters(committers);
        }
        assertThat(committerFailures).isEmpty();
        assertAcknowledgedReadBack(cluster, history);
    }

    private ProcessCluster startCluster() {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3).partitions(PARTITIONS)
                .set("offsets.replication.factor", REPLICATION_FACTOR).jvmArgs("-Xmx256m"));
        cluster.awaitStableLeaders(SETTLE);
        return cluster;
    }

    private static CohortClient admin(ProcessCluster cluster) {
        return CohortClient.builder().bootstrap(cluster.bootstrap()).clientId("replica-move-it")
                .apiTimeout(Duration.ofSeconds(60)).build();
    }

    private void stopCommitters(List<Thread> committers) throws InterruptedException {
        stop.set(true);
        for (Thread committer : committers) {
            committer.join(30_000);
        }
    }

    private void assertAcknowledgedReadBack(ProcessCluster cluster, History history) {
        try (CohortClient reader = CohortClient.builder().bootstrap(cluster.clientAddress(2)).clientId("reader")
                .build()) {
            for (Map.Entry<String, Long> acked : acknowledged.entrySet()) {
                assertThat(reader.fetchOffsets(acked.getKey())).as("group %s", acked.getKey())
                        .containsEntry(TP, new OffsetAndMetadata(acked.getValue()));
            }
        }
        history.record("every acknowledged offset read back: " + acknowledged);
    }

    /**
     * add-node 4 with the node running it (partition 0's leader) SIGKILLed once the move of
     * partition 2 onto node 1 has begun; the node is started again and the command re-run, which
     * finishes the move: every node then holds what the placement gives it, and no acknowledged
     * commit is lost.
     */
    @Test
    void aMoveInterruptedByASigkillOfItsRunnerFinishesWhenReRun() throws Exception {
        ProcessCluster cluster = startCluster();
        History history = new History(cluster.runDir().resolve("history.log"));
        List<Thread> committers = startCommitters(cluster.bootstrap());
        try (CohortClient admin = admin(cluster)) {
            awaitAcks(100);
            cluster.startJoining(4, 1);
            resetGaps();
            CompletableFuture<MembershipChangeResponse> interrupted = CompletableFuture.supplyAsync(
                    () -> admin.addNode(4, cluster.raftAddress(4), cluster.clientAddress(4), CHANGE_TIMEOUT));
            cluster.awaitCondition(CHANGE_TIMEOUT, "node 1 holds a replica of partition 2 (the move began)",
                    () -> interrupted.isDone() || hosted(cluster.status(1)).contains(2), () -> "");
            int runner = cluster.status(2).getPartitionsList().stream().filter(p -> p.getPartitionIndex() == 0)
                    .findFirst().orElseThrow().getLeaderNodeId();
            assertThat(runner).isBetween(1, 3);
            // Else the kill would interrupt nothing and the re-run below would prove nothing.
            assertThat(interrupted).as("add-node 4 still running when its runner is killed").isNotDone();
            cluster.kill(runner);
            history.record("SIGKILL of node " + runner + ", which ran add-node 4, the move of partition 2 begun");
            cluster.start(runner);
            String first;
            try {
                first = "first attempt answered " + interrupted.get(200, TimeUnit.SECONDS).getErrorCode();
            } catch (ExecutionException e) {
                first = "first attempt failed: " + e.getCause().getMessage();
            }
            history.record("add-node 4 after the SIGKILL of node " + runner + ": " + first);
            // Re-run until it is not refused for another change still running (the node that ran the
            // first attempt had asked another node to move partition 2; that node finishes it first).
            MembershipChangeResponse[] rerun = new MembershipChangeResponse[1];
            Awaitility.await().atMost(CHANGE_TIMEOUT).pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptionsMatching(e -> e instanceof CohortException c
                            && c.errorCode() == ErrorCode.REBALANCE_IN_PROGRESS)
                    .until(() -> {
                        rerun[0] = admin.addNode(4, cluster.raftAddress(4), cluster.clientAddress(4), CHANGE_TIMEOUT);
                        return true;
                    });
            record(history, "add-node 4 re-run after the SIGKILL of node " + runner + " (" + first + ")", rerun[0]);
            awaitAcks(100);
            assertHoldsAsPlaced(cluster, List.of(1, 2, 3, 4));
        } finally {
            stopCommitters(committers);
        }
        assertThat(committerFailures).isEmpty();
        assertAcknowledgedReadBack(cluster, history);
    }

    private void record(History history, String change, MembershipChangeResponse response) {
        assertThat(response.getErrorCode()).as("%s: %s", change, response.getErrorMessage())
                .isEqualTo(ErrorCode.NONE);
        String line = change + ": longest commit gap " + longestGapMs() + " ms; " + response.getStepsCount()
                + " steps: " + response.getStepsList();
        history.record(line);
        System.out.println(line);
    }

    /**
     * Every running member reports the partitions {@code members}' placement gives it as hosted,
     * and its data dir holds only their Raft groups.
     */
    private static void assertHoldsAsPlaced(ProcessCluster cluster, List<Integer> members) {
        List<List<Integer>> placement = placement(members);
        for (int node : members) {
            Set<Integer> expected = new TreeSet<>();
            for (int p = 0; p < PARTITIONS; p++) {
                if (p == 0 || placement.get(p).contains(node)) {
                    expected.add(p);
                }
            }
            Set<String> expectedGroups = expected.stream().map(RaftGroupDirs::raftGroupUuid)
                    .collect(Collectors.toCollection(TreeSet::new));
            cluster.awaitCondition(SETTLE, "node " + node + " holds partitions " + expected + " and only their data",
                    () -> hosted(cluster.status(node)).equals(expected)
                            && RaftGroupDirs.raftGroupDirs(cluster.dataDir(node)).equals(expectedGroups),
                    () -> "hosted " + hosted(cluster.status(node)) + ", Raft group dirs "
                            + RaftGroupDirs.raftGroupDirs(cluster.dataDir(node)));
        }
    }

    private static Set<Integer> hosted(ClusterStatusResponse status) {
        return status.getPartitionsList().stream().filter(PartitionStatus::getHosted)
                .map(PartitionStatus::getPartitionIndex).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<List<Integer>> placement(Collection<Integer> members) {
        return ReplicaPlacement.place(PARTITIONS, members.stream().map(ReplicaPlacement.Node::of).toList(),
                REPLICATION_FACTOR);
    }

    /** One committer per partition, each on a group of that partition. */
    private List<Thread> startCommitters(String bootstrap) {
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            String group = groupOn(p);
            lastAckNanos.put(group, new AtomicLong(System.nanoTime()));
            longestGapNanos.put(group, new AtomicLong());
            Thread thread = new Thread(() -> commitLoop(group, bootstrap), "committer-" + group);
            thread.start();
            threads.add(thread);
        }
        return threads;
    }

    private static String groupOn(int partition) {
        for (int i = 0; ; i++) {
            String group = "moved-" + i;
            if (PartitionFunction.partitionFor(group, PARTITIONS) == partition) {
                return group;
            }
        }
    }

    private void commitLoop(String group, String bootstrap) {
        try (CohortClient client = CohortClient.builder().bootstrap(bootstrap).clientId(group)
                .apiTimeout(Duration.ofSeconds(60)).build()) {
            for (long offset = 0; !stop.get(); offset++) {
                client.commitOffsets(group, Map.of(TP, new OffsetAndMetadata(offset)));
                acknowledged.put(group, offset);
                long now = System.nanoTime();
                long gap = now - lastAckNanos.get(group).getAndSet(now);
                longestGapNanos.get(group).accumulateAndGet(gap, Math::max);
            }
        } catch (RuntimeException e) {
            committerFailures.add(e);
        }
    }

    private void resetGaps() {
        longestGapNanos.values().forEach(gap -> gap.set(0));
    }

    private long longestGapMs() {
        return TimeUnit.NANOSECONDS.toMillis(longestGapNanos.values().stream().mapToLong(AtomicLong::get).max()
                .orElse(0));
    }

    /** Waits until every committer has had {@code count} more commits acknowledged. */
    private void awaitAcks(int count) {
        Map<String, Long> start = Map.copyOf(acknowledged);
        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> {
            for (String group : lastAckNanos.keySet()) {
                if (acknowledged.getOrDefault(group, -1L) < start.getOrDefault(group, -1L) + count) {
                    return !committerFailures.isEmpty();
                }
            }
            return true;
        });
        assertThat(committerFailures).isEmpty();
    }
}
