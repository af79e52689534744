package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.client.internal.Partitioner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CohortClient.listGroups against nodes that stop: a stopped node does not fail the listing once
 * the others answered for its partitions; partitions no node can answer for fail it, saying which.
 */
class ListGroupsAcrossNodesTest {
    private static final int PARTITIONS = 3;

    @TempDir
    Path root;

    @Test
    void testAStoppedNodeDoesNotFailTheListingAndPartitionsWithoutALeaderAreNamed() {
        try (LocalCluster cluster = LocalCluster.start(root, 3, PARTITIONS);
             CohortClient client = CohortClient.builder().bootstrap(cluster.bootstrap()).clientId("lister")
                     .requestTimeout(Duration.ofSeconds(2)).apiTimeout(Duration.ofSeconds(30)).build()) {
            List<String> groups = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                String group = groupIn(p);
                client.commitOffsets(group, Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1)));
                groups.add(group);
            }
            assertThat(client.nodes()).hasSize(3);

            // Node 3 stops (handing its partitions over): nodes 1 and 2 answer for every partition.
            cluster.stopNode(3);
            assertThat(client.listGroups(List.of())).extracting(ListGroupsResponse.Group::getGroupId)
                    .containsAll(groups);

            // Node 2 stops too: no partition has a majority, so none can be listed; the error says
            // which partitions are missing and what each node answered last.
            cluster.stopNode(2);
            try (CohortClient impatient = CohortClient.builder().bootstrap(cluster.endpoint(1)).clientId("impatient")
                    .requestTimeout(Duration.ofSeconds(2)).apiTimeout(Duration.ofSeconds(4)).build()) {
                assertThatThrownBy(() -> impatient.listGroups(List.of()))
                        .isInstanceOfSatisfying(CohortException.class, e -> {
                            assertThat(e.retriable()).isTrue();
                            assertThat(e.getMessage()).contains("no node answered for partitions [")
                                    .contains("node 2 (").contains("node 3 (");
                        });
            }
        }
    }

    private static String groupIn(int partition) {
        for (int i = 0; ; i++) {
            String group = "across-" + i;
            if (Partitioner.partitionFor(group, PARTITIONS) == partition) {
                return group;
            }
        }
    }
}
