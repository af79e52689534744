package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leader cut off from its followers by the network (not killed: it keeps running and keeps
 * believing it leads for a while) must lose the partition to the majority side, which then serves
 * the group; after the network heals, the old leader catches up and every replica agrees.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NetworkPartitionIT {
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void testTheHostsFileOfThisJvmNamesEveryNode() throws Exception {
        Path file = Path.of(System.getProperty("jdk.net.hosts.file"));
        assertThat(Files.readString(file)).isEqualTo(RaftLinks.clientHostsFile());
    }

    @Test
    void anIsolatedLeaderLosesItsPartitionAndCatchesUpAfterTheHeal() {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3).partitions(1).faultyNetwork());
        Map<Integer, Integer> leaders = cluster.awaitStableLeaders(SETTLE);
        int oldLeader = leaders.get(0);
        TopicPartition tp = new TopicPartition("t", 0);
        try (CohortClient client = CohortClient.builder().bootstrap(cluster.bootstrap()).clientId("partition-it")
                .build()) {
            client.commitOffsets("g", Map.of(tp, new OffsetAndMetadata(1)));

            cluster.links().isolate(oldLeader);
            // The leader the majority elected, as the answer that ended the wait named it: asking
            // again could reach the isolated node, which names itself until it notices it lost.
            AtomicInteger majorityLeader = new AtomicInteger(-1);
            cluster.awaitCondition(SETTLE, "a leader on the majority side", () -> {
                try {
                    int coordinator = client.findCoordinator("g").nodeId();
                    majorityLeader.set(coordinator);
                    return coordinator != oldLeader;
                } catch (RuntimeException e) {
                    return false;
                }
            }, cluster::describeStatuses);
            int newLeader = majorityLeader.get();
            client.commitOffsets("g", Map.of(tp, new OffsetAndMetadata(2)));
            assertThat(client.fetchOffsets("g")).containsEntry(tp, new OffsetAndMetadata(2));

            cluster.links().heal();
            cluster.awaitCaughtUp(oldLeader, SETTLE);
            assertThat(client.fetchOffsets("g")).containsEntry(tp, new OffsetAndMetadata(2));
            // The traffic really crossed the proxies: the old leader replicated to both followers
            // through its links, and the new leader reached it through its link after the heal.
            // (Not every link: a follower that never campaigns opens no connection of its own.)
            Map<String, Integer> connections = cluster.links().connectionCounts();
            for (int peer : cluster.nodeIds()) {
                if (peer != oldLeader) {
                    assertThat(connections.get(oldLeader + "->" + peer)).as("connections %d->%d in %s", oldLeader, peer,
                            connections).isPositive();
                }
            }
            assertThat(connections.get(newLeader + "->" + oldLeader)).as("connections %d->%d in %s", newLeader,
                    oldLeader, connections).isPositive();
        }
    }
}
