package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListGroups on real nodes: each node answers for the partitions it leads (Kafka's broker-local
 * list), reading them all at once, and a node that leads a partition it is still loading answers
 * COORDINATOR_LOAD_IN_PROGRESS at once instead of waiting for the load.
 */
class ListGroupsTest {
    private static final int NODES = 3;
    /** Two partitions per node, so a loading partition has a ready neighbour on the same node. */
    private static final int PARTITIONS = 6;

    @TempDir
    Path tmp;
    private CoordinatorTestCluster cluster;
    private final Map<Integer, ApplyGate> gates = new TreeMap<>();

    @AfterEach
    void stop() {
        gates.values().forEach(ApplyGate::open);
        if (cluster != null) {
            cluster.close();
        }
    }

    private void startCluster() {
        cluster = CoordinatorTestCluster.startWithListeners(tmp, NODES, PARTITIONS, (id, parked) -> {
            ApplyGate gate = new ApplyGate(parked);
            gates.put(id, gate);
            return gate;
        });
    }

    @Test
    void testEachNodeListsThePartitionsItLeadsAndTogetherTheyListEveryGroup() {
        startCluster();
        List<String> groups = groupPerPartition("listed");
        List<String> listedByAll = new ArrayList<>();
        List<Integer> coveredByAll = new ArrayList<>();
        for (int id = 1; id <= NODES; id++) {
            CoordinatorTestCluster.Node node = cluster.node(id);
            ListGroupsResponse listed = node.blocking().listGroups(ListGroupsRequest.getDefaultInstance());
            assertThat(listed.getErrorCode()).as(listed.getErrorMessage()).isEqualTo(ErrorCode.NONE);
            List<Integer> led = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                if (node.raft.isLeaderReady(p)) {
                    led.add(p);
                }
            }
            assertThat(listed.getPartitionIndexesList()).as("node %d", id).isEqualTo(led).isNotEmpty();
            assertThat(listed.getGroupsList()).extracting(ListGroupsResponse.Group::getGroupId)
                    .as("node %d lists the groups of its partitions %s", id, led)
                    .containsExactlyInAnyOrderElementsOf(led.stream().map(groups::get).toList());
            listed.getGroupsList().forEach(g -> listedByAll.add(g.getGroupId()));
            coveredByAll.addAll(listed.getPartitionIndexesList());
        }
        assertThat(coveredByAll).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        assertThat(listedByAll).containsExactlyInAnyOrderElementsOf(groups);

        // The filters apply on every node: no group of the cluster is Stable or of type "consumer".
        for (int id = 1; id <= NODES; id++) {
            CoordinatorTestCluster.Node node = cluster.node(id);
            assertThat(node.blocking().listGroups(ListGroupsRequest.newBuilder().addStatesFilter("stable").build())
                    .getGroupsList()).isEmpty();
            assertThat(node.blocking().listGroups(ListGroupsRequest.newBuilder().addTypesFilter("consumer").build())
                    .getGroupsList()).isEmpty();
            assertThat(node.blocking().listGroups(ListGroupsRequest.newBuilder().addStatesFilter("EMPTY")
                    .addTypesFilter("Classic").build()).getGroupsList()).isNotEmpty();
        }
    }

    /**
     * A node elected for a partition whose earlier entries it has not applied yet is loading it (its
     * apply thread is held here, as a long replay would hold it). Its ListGroups is answered
     * COORDINATOR_LOAD_IN_PROGRESS while the partition is still loading, not after the load (the
     * old code waited for a read of every partition in turn); the other nodes answer for theirs.
     */
    @Test
    void testANodeLoadingAPartitionAnswersLoadInProgressWhileItLoads() throws Exception {
        startCluster();
        List<String> groups = groupPerPartition("loading");
        int partition = 0;
        int loader = cluster.spec.preferredLeader(partition);
        CoordinatorTestCluster.Node loading = cluster.node(loader);
        int other = loader % NODES + 1;
        // Hold the loader's apply thread of the partition at its next entry, move the partition
        // away, write (the loader stores the entry but cannot apply it), then hand it back: the
        // loader is elected with an entry of an earlier term still to apply.
        gates.get(loader).close(partition);
        assertThat(loading.raft.transferLeadership(partition, other, 10_000).get(30, TimeUnit.SECONDS).isSuccess())
                .isTrue();
        CoordinatorTestCluster.Node interim = cluster.leaderOf(partition);
        assertThat(interim.blocking().offsetCommit(commit(groups.get(partition), "", -1, "t", 0, 2L))
                .getTopics(0).getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
        await().atMost(Duration.ofSeconds(30)).until(() -> gates.get(loader).holding());
        // The leader balancer hands the partition back to its preferred node anyway; this is quicker.
        interim.raft.transferLeadership(partition, loader, 10_000);
        await().atMost(Duration.ofSeconds(60)).until(() -> loading.raft.isLeader(partition));
        assertThat(loading.raft.isLeaderReady(partition)).isFalse();

        ListGroupsResponse answer = loading.blocking().listGroups(ListGroupsRequest.getDefaultInstance());

        assertThat(answer.getErrorCode()).as(answer.getErrorMessage()).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(answer.getErrorMessage()).contains("partition " + partition);
        assertThat(answer.getGroupsList()).isEmpty();
        assertThat(answer.getPartitionIndexesList()).isEmpty();
        // Answered while the partition is still loading: the apply thread is still held.
        assertThat(gates.get(loader).holding()).isTrue();
        assertThat(loading.raft.isLeader(partition) && !loading.raft.isLeaderReady(partition)).isTrue();
        // The other nodes are not held up by it.
        for (int id = 1; id <= NODES; id++) {
            if (id != loader) {
                ListGroupsResponse listed = cluster.node(id).blocking().listGroups(ListGroupsRequest.getDefaultInstance());
                assertThat(listed.getErrorCode()).as(listed.getErrorMessage()).isEqualTo(ErrorCode.NONE);
                assertThat(listed.getPartitionIndexesList()).doesNotContain(partition);
            }
        }

        gates.get(loader).open();
        await().atMost(Duration.ofSeconds(30)).until(() -> loading.raft.isLeaderReady(partition));
        ListGroupsResponse loaded = loading.blocking().listGroups(ListGroupsRequest.getDefaultInstance());
        assertThat(loaded.getErrorCode()).as(loaded.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(loaded.getPartitionIndexesList()).contains(partition);
        assertThat(loaded.getGroupsList()).extracting(ListGroupsResponse.Group::getGroupId)
                .contains(groups.get(partition));
    }

    /** One Empty group per partition, created by an admin commit on the partition's leader; index = partition. */
    private List<String> groupPerPartition(String prefix) {
        List<String> groups = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            String group = cluster.groupIn(p, prefix);
            assertThat(cluster.leaderOf(p).blocking().offsetCommit(commit(group, "", -1, "t", 0, 1L)).getTopics(0)
                    .getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
            groups.add(group);
        }
        return groups;
    }
}
