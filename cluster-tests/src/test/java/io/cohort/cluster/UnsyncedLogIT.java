package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code raft.log.fsync.before.ack=false} (Ratis's unsafe flush; Kafka's durability): a replica
 * acknowledges an entry once it has written it to the operating system, and its fsync follows in
 * the background. What the setting still promises (docs/OPERATIONS.md, "Durability") is that the
 * crash of node processes loses nothing acknowledged, since what a process wrote is in the
 * kernel's page cache. Tested the hard way: committers commit without pause on three real node
 * JVMs, every node is SIGKILLed (one after the other, within milliseconds, so commits are in
 * flight on all of them), all three are started again, and every offset acknowledged before the
 * kills, and after, is fetched back. A machine crash, which the setting does risk, cannot be made
 * on one machine.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class UnsyncedLogIT {
    private static final TopicPartition TP = new TopicPartition("unsynced-topic", 0);
    private static final int COMMITTERS = 4;
    private static final Duration BOUND = Duration.ofSeconds(90);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void everyNodeKilledAtOnceLosesNoAcknowledgedCommitWithoutFsyncBeforeAck() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3)
                .set("raft.log.fsync.before.ack", false));
        cluster.awaitStableLeaders(BOUND);
        for (int id : cluster.nodeIds()) {
            assertThat(Files.readString(cluster.logFile(id)))
                    .as("node %d runs with the setting", id).contains("raft.log.fsync.before.ack=false");
        }
        List<SequentialCommitter> committers = new ArrayList<>();
        try {
            for (int i = 0; i < COMMITTERS; i++) {
                committers.add(new SequentialCommitter("unsynced-" + i, TP, cluster.bootstrap()));
            }
            SequentialCommitter.awaitAcks(cluster, committers, 100, BOUND);

            for (int id : cluster.nodeIds()) {
                cluster.kill(id);
            }
            // No node runs: nothing can be acknowledged any more until they are back.
            Map<SequentialCommitter, Long> ackedBeforeKills = new HashMap<>();
            committers.forEach(c -> ackedBeforeKills.put(c, c.lastAcked));

            cluster.startAll();
            cluster.awaitStableLeaders(BOUND);
            SequentialCommitter.awaitAcks(cluster, committers, 50, BOUND);
            for (SequentialCommitter c : committers) {
                c.stop();
            }

            List<String> lost = new ArrayList<>();
            try (CohortClient admin = CohortClient.builder().bootstrap(cluster.bootstrap())
                    .clientId("unsynced-check").build()) {
                for (SequentialCommitter c : committers) {
                    OffsetAndMetadata fetched = admin.fetchOffsets(c.group, List.of(TP)).get(TP);
                    // lastAcked only grows, so it covers the acknowledgements from before the kills too.
                    if (fetched == null || fetched.offset() < c.lastAcked) {
                        lost.add(c.group + ": acknowledged " + c.lastAcked + " (" + ackedBeforeKills.get(c)
                                + " before the kills), fetched " + fetched);
                    }
                }
            }
            System.out.printf("UnsyncedLogIT: acknowledged before killing every node: %s; lost: %d%n",
                    ackedBeforeKills.values(), lost.size());
            assertThat(lost).as("acknowledged commits not fetched back after every node was SIGKILLed").isEmpty();
        } finally {
            for (SequentialCommitter c : committers) {
                c.stop();
            }
        }
    }
}
