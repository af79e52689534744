package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.shard.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new cluster's replicas start from one identical empty snapshot at index 0 ({@link NewReplicas}),
 * so no leader of the first elections writes an index 0 of its own; data dirs whose replicas Ratis
 * created with an empty log (every earlier build) keep working.
 */
class NewReplicasTest {
    private static final int PARTITIONS = 2;

    @TempDir
    Path tmp;

    @Test
    void everyReplicaOfANewClusterStartsFromTheSameSnapshotAtIndexZeroAndKeepsItsCommitsAcrossARestart()
            throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, PARTITIONS, GroupConfig.defaults())) {
            for (int node = 0; node < 3; node++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    Path snapshot = ReplicaStorage.groupDir(cluster.dataDir(node), cluster.spec, p)
                            .resolve("sm").resolve("snapshot.0_0");
                    assertThat(snapshot).as("node %d partition %d", node, p).isRegularFile();
                    // Ratis numbers the first entry 1: index 0 is the snapshot, the same on every replica.
                    assertThat(cluster.node(node).logStartIndex(p)).as("node %d partition %d", node, p).isEqualTo(1);
                    assertThat(cluster.node(node).status(p).snapshotIndex()).isZero();
                }
            }
            Map<String, Long> committed = commitEverywhere(cluster, 5);
            for (int node = 0; node < 3; node++) {
                cluster.stopNode(node);
            }
            for (int node = 0; node < 3; node++) {
                cluster.startNode(node);
            }
            cluster.awaitAllLeadersReady();
            assertCommittedOnEveryReplica(cluster, committed);
            commitEverywhere(cluster, 6);
        }
    }

    /**
     * The layout of every data dir made before this change: cluster.properties written, the replicas
     * created by Ratis with an empty log (the first leader's entry at index 0). Such a node must
     * start, serve and restart as before; no snapshot is written into it.
     */
    @Test
    void aClusterWhoseReplicasRatisCreatedWithAnEmptyLogStartsServesAndRestarts() throws Exception {
        try (RaftTestCluster cluster = new RaftTestCluster(tmp, 3, PARTITIONS, GroupConfig.defaults(),
                RaftTestCluster.TEST_TUNING)) {
            for (int node = 0; node < 3; node++) {
                ClusterMetadata.writeOrVerify(cluster.dataDir(node), node, cluster.spec);
                cluster.startNode(node);
            }
            cluster.awaitAllLeadersReady();
            for (int node = 0; node < 3; node++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    assertThat(cluster.node(node).status(p).snapshotIndex()).isEqualTo(-1);
                }
            }
            Map<String, Long> committed = commitEverywhere(cluster, 7);
            for (int p = 0; p < PARTITIONS; p++) {
                cluster.awaitReplicasConverged(p);
                for (int node = 0; node < 3; node++) {
                    assertThat(cluster.node(node).logStartIndex(p)).isZero();
                }
            }
            cluster.stopNode(1);
            cluster.startNode(1);
            cluster.awaitAllLeadersReady();
            assertCommittedOnEveryReplica(cluster, committed);
        }
    }

    @Test
    void aReplicaDirLeftByAnInterruptedFirstStartIsWrittenAgainButOneHoldingALogIsRefused() throws Exception {
        ClusterSpec spec = new ClusterSpec("c", 1, List.of(new NodeAddress(0, "127.0.0.1", 1, 2)),
                GroupConfig.defaults(), 1, Map.of());
        Path dataDir = tmp.resolve("node-0");
        assertThat(NewReplicas.create(dataDir, 0, spec)).containsExactly(0);
        Path groupDir = ReplicaStorage.groupDir(dataDir, spec, 0);
        Files.writeString(groupDir.resolve("sm").resolve("leftover"), "x");

        assertThat(NewReplicas.create(dataDir, 0, spec)).containsExactly(0);
        assertThat(groupDir.resolve("sm").resolve("leftover")).doesNotExist();
        assertThat(groupDir.resolve("sm").resolve("snapshot.0_0")).isRegularFile();

        Files.writeString(groupDir.resolve("current").resolve("log_inprogress_1"), "entries");
        assertThatThrownBy(() -> NewReplicas.create(dataDir, 0, spec))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("holds Raft log segments");
        assertThat(groupDir.resolve("current").resolve("log_inprogress_1")).exists();
    }

    /** Commits offset {@code offset} for one group per partition; returns group to offset. */
    private static Map<String, Long> commitEverywhere(RaftTestCluster cluster, long offset) throws Exception {
        Map<String, Long> committed = new java.util.TreeMap<>();
        for (int i = 0; committed.size() < PARTITIONS; i++) {
            String group = "g" + i;
            int partition = cluster.node(0).partitionFor(group);
            if (committed.keySet().stream().anyMatch(g -> cluster.node(0).partitionFor(g) == partition)) {
                continue;
            }
            Result result = cluster.submitToLeader(partition, Commands.simpleCommit(group, "t", 0, offset));
            OffsetCommitResponse response = (OffsetCommitResponse) result.immediateResponse();
            assertThat(response.topics().get(0).partitions().get(0).error()).isEqualTo(ErrorCode.NONE);
            committed.put(group, offset);
        }
        return committed;
    }

    private static void assertCommittedOnEveryReplica(RaftTestCluster cluster, Map<String, Long> committed) {
        for (Map.Entry<String, Long> entry : committed.entrySet()) {
            int partition = cluster.node(0).partitionFor(entry.getKey());
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(node.shard(partition).fetchOffsets(entry.getKey(), null).topics().get(0)
                                .partitions().get(0).offset()).isEqualTo(entry.getValue()));
            }
        }
    }
}
