package io.cohort.cluster;

import static io.cohort.cluster.CoordinatorCalls.firstError;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.core.PartitionFunction;
import io.cohort.core.placement.ReplicaPlacement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, deliverable 3: with {@code offsets.replication.factor} below the node count, each node
 * holds only the partitions the placement gives it (its data dir has only those Raft groups), yet
 * every node routes every group: FindCoordinator asked of any node names the partition's leader,
 * commits and fetches work for groups of every partition, a SIGKILL stalls only the partitions the
 * killed node led, and nothing acknowledged is lost. A 3-node cluster with the defaults keeps
 * every partition on every node, as before.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ReplicaPlacementIT {
    private static final int NODES = 5;
    private static final int PARTITIONS = 6;
    private static final int REPLICATION_FACTOR = 3;
    private static final String TOPIC = "events";
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    /** Acknowledged offsets: group -> topic partition -> offset. */
    private final Map<String, Map<Integer, Long>> acknowledged = new TreeMap<>();

    @Test
    void fiveNodesAtReplicationFactorThreeHoldThreeReplicasEachAndRouteFromEveryNode() {
        ProcessCluster cluster = run.start(ProcessCluster.builder()
                .nodes(NODES)
                .partitions(PARTITIONS)
                .set("offsets.replication.factor", REPLICATION_FACTOR)
                .jvmArgs("-Xmx320m"));
        History history = new History(cluster.runDir().resolve("history.log"));
        CoordinatorCalls calls = new CoordinatorCalls(cluster, history, Duration.ofSeconds(30));

        // The placement every node reports is the pure function's (partition 0 on every node: ACLs).
        List<List<Integer>> placement = ReplicaPlacement.place(PARTITIONS,
                IntStream.rangeClosed(1, NODES).mapToObj(ReplicaPlacement.Node::of).toList(), REPLICATION_FACTOR);
        Map<Integer, Integer> leaders = cluster.awaitPreferredLeaders(SETTLE);
        history.record("leaders " + leaders);
        for (int node = 1; node <= NODES; node++) {
            ClusterStatusResponse status = cluster.status(node);
            assertThat(status.getReplicationFactor()).isEqualTo(REPLICATION_FACTOR);
            assertThat(status.getPartitionsList()).hasSize(PARTITIONS);
            for (PartitionStatus p : status.getPartitionsList()) {
                List<Integer> expected = p.getPartitionIndex() == 0 ? partitionZero(placement.get(0))
                        : placement.get(p.getPartitionIndex());
                assertThat(p.getReplicaNodeIdsList()).as("replicas of p%d", p.getPartitionIndex())
                        .isEqualTo(expected);
                assertThat(p.getRaftGroupId()).isEqualTo(RaftGroupDirs.raftGroupUuid(p.getPartitionIndex()));
                assertThat(p.getHosted()).as("node %d hosts p%d", node, p.getPartitionIndex())
                        .isEqualTo(expected.contains(node));
                assertThat(leaders.get(p.getPartitionIndex())).isEqualTo(expected.get(0));
            }
        }
        // Each node's data dir holds the Raft groups of its partitions, and no other.
        for (int node = 1; node <= NODES; node++) {
            Set<String> expectedGroups = new TreeSet<>();
            for (int p = 0; p < PARTITIONS; p++) {
                if (p == 0 || placement.get(p).contains(node)) {
                    expectedGroups.add(RaftGroupDirs.raftGroupUuid(p));
                }
            }
            assertThat(RaftGroupDirs.raftGroupDirs(cluster.dataDir(node))).as("Raft groups in node %d's data dir", node)
                    .isEqualTo(expectedGroups);
            assertThat(expectedGroups.size()).isLessThan(PARTITIONS);
        }

        // One group per partition; FindCoordinator asked of every node names the partition's leader.
        Map<Integer, String> groups = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            groups.put(p, groupOn(p));
        }
        for (String group : groups.values()) {
            int leader = leaders.get(PartitionFunction.partitionFor(group, PARTITIONS));
            for (int asked = 1; asked <= NODES; asked++) {
                FindCoordinatorResponse.Coordinator found = calls.findOn(asked, group);
                assertThat(found.getErrorCode()).as("FindCoordinator(%s) on node %d: %s", group, asked,
                        found.getErrorMessage()).isEqualTo(ErrorCode.NONE);
                assertThat(found.getNodeId()).as("FindCoordinator(%s) on node %d", group, asked).isEqualTo(leader);
            }
            // A node that does not lead the partition refuses with the leader as its hint.
            int other = leader % NODES + 1;
            OffsetCommitResponse refused = cluster.coordinator(other).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .offsetCommit(commitRequest(group, 0, 1));
            assertThat(commitError(refused)).isEqualTo(ErrorCode.NOT_COORDINATOR);
            assertThat(refused.getLeaderHint().getNodeId()).as("hint of node %d for %s", other, group)
                    .isEqualTo(leader);
        }
        // Commits on every partition, each sent to the coordinator a different bootstrap node named.
        int round = 0;
        for (String group : groups.values()) {
            int asked = round++ % NODES + 1;
            int coordinator = calls.findOn(asked, group).getNodeId();
            OffsetCommitResponse response = cluster.coordinator(coordinator).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .offsetCommit(commitRequest(group, 0, 100));
            assertThat(commitError(response)).as("commit of %s on node %d", group, coordinator)
                    .isEqualTo(ErrorCode.NONE);
            acknowledged.computeIfAbsent(group, g -> new TreeMap<>()).put(0, 100L);
        }

        // SIGKILL a node that leads a partition and follows others; it holds some partitions, not all.
        int victim = leaders.get(1);
        Set<Integer> hostedByVictim = new TreeSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            if (p == 0 || placement.get(p).contains(victim)) {
                hostedByVictim.add(p);
            }
        }
        history.record("killing node " + victim + ", which holds partitions " + hostedByVictim);
        cluster.kill(victim);
        // Partitions the victim did not lead carry on at once on the same leader: one attempt each.
        for (Map.Entry<Integer, String> group : groups.entrySet()) {
            int leader = leaders.get(group.getKey());
            if (leader == victim) {
                continue;
            }
            OffsetCommitResponse response = cluster.coordinator(leader).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .offsetCommit(commitRequest(group.getValue(), 1, 200));
            assertThat(commitError(response)).as("commit of %s (p%d) on its leader %d right after node %d died",
                    group.getValue(), group.getKey(), leader, victim).isEqualTo(ErrorCode.NONE);
            acknowledged.get(group.getValue()).put(1, 200L);
        }
        // The partitions the victim led recover on another replica, and every survivor names it.
        for (Map.Entry<Integer, String> group : groups.entrySet()) {
            if (leaders.get(group.getKey()) != victim) {
                continue;
            }
            OffsetCommitResponse response = calls.call(group.getValue(), "OffsetCommit after kill", CALL_TIMEOUT,
                    stub -> stub.offsetCommit(commitRequest(group.getValue(), 1, 300)),
                    ReplicaPlacementIT::commitError).response();
            assertThat(commitError(response)).isEqualTo(ErrorCode.NONE);
            acknowledged.get(group.getValue()).put(1, 300L);
        }
        Map<Integer, Integer> afterKill = cluster.awaitStableLeaders(SETTLE);
        assertThat(afterKill.values()).doesNotContain(victim);
        for (Map.Entry<Integer, String> group : groups.entrySet()) {
            int newLeader = afterKill.get(group.getKey());
            assertThat(placement.get(group.getKey()).contains(newLeader) || group.getKey() == 0).isTrue();
            for (int asked : cluster.runningNodeIds()) {
                cluster.awaitCondition(SETTLE, "node " + asked + " names node " + newLeader + " for p" + group.getKey(),
                        () -> calls.findOn(asked, group.getValue()).getNodeId() == newLeader, () -> "");
            }
        }
        assertFetchesEverythingAcknowledged(calls);

        // The victim comes back, catches up, and leadership returns to the placement's preferred nodes.
        cluster.start(victim);
        assertThat(cluster.awaitPreferredLeaders(SETTLE)).isEqualTo(leaders);
        assertFetchesEverythingAcknowledged(calls);
    }

    /** The defaults on three nodes: replication factor 3 = N, every partition everywhere, leaders p mod 3. */
    @Test
    void threeNodesWithTheDefaultsKeepEveryPartitionOnEveryNode() {
        int partitions = 4;
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3).partitions(partitions));
        Map<Integer, Integer> leaders = cluster.awaitPreferredLeaders(SETTLE);
        for (int p = 0; p < partitions; p++) {
            assertThat(leaders.get(p)).isEqualTo(p % 3 + 1);
        }
        Set<String> allGroups = IntStream.range(0, partitions).mapToObj(RaftGroupDirs::raftGroupUuid)
                .collect(Collectors.toCollection(TreeSet::new));
        for (int node = 1; node <= 3; node++) {
            ClusterStatusResponse status = cluster.status(node);
            assertThat(status.getReplicationFactor()).isEqualTo(3);
            assertThat(status.getPartitionsList()).allSatisfy(p -> {
                assertThat(p.getHosted()).isTrue();
                assertThat(p.getReplicaNodeIdsList()).containsExactlyInAnyOrder(1, 2, 3);
            });
            assertThat(RaftGroupDirs.raftGroupDirs(cluster.dataDir(node))).isEqualTo(allGroups);
            assertThat(Files.exists(cluster.dataDir(node).resolve("cluster.properties"))).isTrue();
            assertThat(readString(cluster.dataDir(node).resolve("cluster.properties")))
                    .contains("offsets.replication.factor=3\n");
        }
    }

    private void assertFetchesEverythingAcknowledged(CoordinatorCalls calls) {
        for (Map.Entry<String, Map<Integer, Long>> group : acknowledged.entrySet()) {
            OffsetFetchRequest request = OffsetFetchRequest.newBuilder()
                    .addGroups(OffsetFetchRequest.Group.newBuilder().setGroupId(group.getKey())).build();
            OffsetFetchResponse.Group fetched = calls.call(group.getKey(), "OffsetFetch", CALL_TIMEOUT,
                    stub -> stub.offsetFetch(request), r -> r.getGroups(0).getErrorCode()).response().getGroups(0);
            Map<Integer, Long> offsets = new TreeMap<>();
            for (OffsetFetchResponse.Topic topic : fetched.getTopicsList()) {
                for (OffsetFetchResponse.Partition partition : topic.getPartitionsList()) {
                    offsets.put(partition.getPartitionIndex(), partition.getCommittedOffset());
                }
            }
            assertThat(offsets).as("offsets of %s", group.getKey()).isEqualTo(group.getValue());
        }
    }

    private static List<Integer> partitionZero(List<Integer> placed) {
        List<Integer> all = new ArrayList<>(placed);
        for (int node = 1; node <= NODES; node++) {
            if (!all.contains(node)) {
                all.add(node);
            }
        }
        return all;
    }

    private static String groupOn(int partition) {
        for (int i = 0; ; i++) {
            String group = "placed-" + i;
            if (PartitionFunction.partitionFor(group, PARTITIONS) == partition) {
                return group;
            }
        }
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A simple (memberless) commit of one topic partition, as a consumer without a group would. */
    private static OffsetCommitRequest commitRequest(String group, int topicPartition, long offset) {
        return OffsetCommitRequest.newBuilder().setGroupId(group).setGenerationIdOrMemberEpoch(-1)
                .addTopics(OffsetCommitRequest.Topic.newBuilder().setName(TOPIC)
                        .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(topicPartition)
                                .setCommittedOffset(offset)))
                .build();
    }

    private static ErrorCode commitError(OffsetCommitResponse response) {
        return firstError(response.getTopicsList().stream().flatMap(t -> t.getPartitionsList().stream()).toList(),
                OffsetCommitResponse.Partition::getErrorCode);
    }
}
