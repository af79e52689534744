package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
            assertThat(Files.readString(cluster.logDir(id).resolve("node-" + id + ".log")))
                    .as("node %d runs with the setting", id).contains("raft.log.fsync.before.ack=false");
        }
        List<Committer> committers = new ArrayList<>();
        try {
            for (int i = 0; i < COMMITTERS; i++) {
                committers.add(new Committer("unsynced-" + i, cluster.bootstrap()));
            }
            awaitAcks(cluster, committers, 100);

            for (int id : cluster.nodeIds()) {
                cluster.kill(id);
            }
            // No node runs: nothing can be acknowledged any more until they are back.
            Map<Committer, Long> ackedBeforeKills = new HashMap<>();
            committers.forEach(c -> ackedBeforeKills.put(c, c.lastAcked));

            cluster.startAll();
            cluster.awaitStableLeaders(BOUND);
            awaitAcks(cluster, committers, 50);
            for (Committer c : committers) {
                c.stop();
            }

            List<String> lost = new ArrayList<>();
            try (CohortClient admin = CohortClient.builder().bootstrap(cluster.bootstrap())
                    .clientId("unsynced-check").build()) {
                for (Committer c : committers) {
                    OffsetAndMetadata fetched = admin.fetchOffsets(c.group, List.of(TP)).get(TP);
                    long acked = Math.max(c.lastAcked, ackedBeforeKills.get(c));
                    if (fetched == null || fetched.offset() < acked) {
                        lost.add(c.group + ": acknowledged " + acked + " (" + ackedBeforeKills.get(c)
                                + " before the kills), fetched " + fetched);
                    }
                }
            }
            System.out.printf("UnsyncedLogIT: acknowledged before killing every node: %s; lost: %d%n",
                    ackedBeforeKills.values(), lost.size());
            assertThat(lost).as("acknowledged commits not fetched back after every node was SIGKILLed").isEmpty();
        } finally {
            for (Committer c : committers) {
                c.stop();
            }
        }
    }

    /** Every committer has at least {@code more} acknowledgements more than now. */
    private static void awaitAcks(ProcessCluster cluster, List<Committer> committers, long more) {
        Map<Committer, Long> target = new HashMap<>();
        committers.forEach(c -> target.put(c, c.acks.get() + more));
        cluster.awaitCondition(BOUND, "every committer acknowledged " + more + " more commits",
                () -> committers.stream().allMatch(c -> c.acks.get() >= target.get(c)),
                () -> committers.stream().map(c -> "\n  " + c.group + ": " + c.acks.get() + " acks, last error "
                        + c.lastError).reduce("", String::concat));
    }

    /** Commits offsets 1, 2, 3, ... of its own group synchronously, without pause. */
    private static final class Committer {
        final String group;
        final CohortClient client;
        final Thread thread;
        final AtomicLong acks = new AtomicLong();
        volatile boolean running = true;
        volatile long lastAcked;
        volatile String lastError;

        Committer(String group, String bootstrap) {
            this.group = group;
            this.client = CohortClient.builder().bootstrap(bootstrap).clientId(group).build();
            this.thread = new Thread(this::loop, "committer-" + group);
            this.thread.setDaemon(true);
            this.thread.start();
        }

        private void loop() {
            long offset = 0;
            while (running) {
                offset++;
                try {
                    client.commitOffsets(group, Map.of(TP, new OffsetAndMetadata(offset)));
                    lastAcked = offset;
                    acks.incrementAndGet();
                } catch (CohortException e) {
                    // Unknown outcome (the nodes were killed): a later offset supersedes it.
                    lastError = e.getMessage();
                }
            }
        }

        void stop() throws InterruptedException {
            if (!running) {
                return;
            }
            running = false;
            thread.join(60_000);
            client.close();
        }
    }
}
