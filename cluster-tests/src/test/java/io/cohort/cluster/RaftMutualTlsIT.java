package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.cluster.tls.Certificates;
import io.cohort.core.PartitionFunction;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Mutual TLS on the Raft port with real node JVMs: with node 3 killed, a process started with
 * node 3's identity (its id, ports, peers and cluster id) and a peer certificate signed by another
 * CA (while trusting the real peer CA, so it could talk if it were let in) cannot join, vote or
 * append: it never learns a leader or receives an entry, the other two keep committing with the
 * same leaders and terms, and both count the certificates they refused. The same with a process
 * that speaks no TLS. Then the real node 3, with its peer certificate, rejoins and catches up:
 * the refusals were the certificates' doing.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class RaftMutualTlsIT {
    private static final int PARTITIONS = 3;
    private static final Duration SETTLE = Duration.ofSeconds(90);
    /** Many election timeouts of the impostor (1-2 s here) and many leader retries to reach it. */
    private static final Duration UNDISTURBED_FOR = Duration.ofSeconds(12);
    private static final String REFUSED_METRIC = "cohort_raft_tls_refused_certificates_total";

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void anImpostorWithAnotherCasCertificateOrNoTlsCannotJoinOrDisruptTheCluster() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3).partitions(PARTITIONS).raftTls()
                // Patient elections: a loaded test machine must not pass for a disruption.
                .set("raft.election.timeout.min.ms", 1_000).set("raft.election.timeout.max.ms", 2_000));
        cluster.awaitPreferredLeaders(SETTLE);
        cluster.kill(3);
        Map<Integer, Integer> leaders = cluster.awaitStableLeaders(SETTLE);
        Map<Integer, Long> terms = terms(cluster, leaders);

        try (Committers committers = new Committers(cluster)) {
            committers.awaitMoreAcknowledged(cluster, 10);

            Certificates.Ca rogueCa = Certificates.ca("rogue CA");
            Outsider impostor = cluster.startOutsider("impostor-other-ca", 3,
                    cluster.raftTlsSettings(rogueCa, 3, "impostor-3", cluster.peerCaFile()));
            // Its votes to them (its certificate as a caller) and their appends to it (as the called peer).
            cluster.awaitCondition(SETTLE, "nodes 1 and 2 refused the impostor's certificate as caller and as peer",
                    () -> refusedCertificates(cluster, 1, "caller") > 0 && refusedCertificates(cluster, 1, "peer") > 0
                            && refusedCertificates(cluster, 2, "caller") > 0
                            && refusedCertificates(cluster, 2, "peer") > 0,
                    () -> " (refused caller/peer: node 1 " + refusedCertificates(cluster, 1, "caller") + "/"
                            + refusedCertificates(cluster, 1, "peer") + ", node 2 "
                            + refusedCertificates(cluster, 2, "caller") + "/" + refusedCertificates(cluster, 2, "peer")
                            + ")");
            assertUndisturbed(cluster, impostor, committers, leaders, terms);
            for (int id = 1; id <= 2; id++) {
                assertThat(Files.readString(cluster.logFile(id)))
                        .as("node %d's log names the refused certificate", id)
                        .contains("raft.tls: refused the ").contains("CN=n3 issued by CN=rogue CA");
            }
            impostor.kill();

            Outsider plaintext = cluster.startOutsider("impostor-plaintext", 3, Map.of());
            assertUndisturbed(cluster, plaintext, committers, leaders, terms);
            plaintext.kill();

            // The real node 3, with its peer certificate and its data, rejoins and catches up.
            cluster.start(3);
            cluster.awaitCaughtUp(3, SETTLE);
            committers.awaitMoreAcknowledged(cluster, 10);
            committers.stop();
            assertThat(committers.failures).as("commits that failed").isEmpty();
            committers.assertEveryAcknowledgedOffsetReadBack();
        }
    }

    /**
     * For {@link #UNDISTURBED_FOR} without a break: the outsider knows no leader and has applied
     * nothing past what it started with, every partition keeps its leader and term, and the
     * committers' commits keep being acknowledged.
     */
    private static void assertUndisturbed(ProcessCluster cluster, Outsider outsider,
                                          Committers committers, Map<Integer, Integer> leaders,
                                          Map<Integer, Long> terms) {
        Map<Integer, Long> appliedAtStart = new TreeMap<>();
        for (PartitionStatus p : outsider.status().getPartitionsList()) {
            appliedAtStart.put(p.getPartitionIndex(), p.getAppliedIndex());
        }
        long acknowledgedAtStart = committers.acknowledged.get();
        await().during(UNDISTURBED_FOR).atMost(UNDISTURBED_FOR.multipliedBy(4)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    assertThat(outsider.isRunning()).as("the outsider runs").isTrue();
                    for (PartitionStatus p : outsider.status().getPartitionsList()) {
                        assertThat(p.getLeaderNodeId()).as("the outsider's leader of p%d", p.getPartitionIndex())
                                .isEqualTo(-1);
                        assertThat(p.getAppliedIndex()).as("the outsider's applied index of p%d", p.getPartitionIndex())
                                .isEqualTo(appliedAtStart.get(p.getPartitionIndex()));
                    }
                    assertThat(terms(cluster, leaders)).as("leaders' terms").isEqualTo(terms);
                    assertThat(committers.failures).as("failed commits").isEmpty();
                });
        assertThat(committers.acknowledged.get()).as("commits acknowledged while the outsider ran")
                .isGreaterThan(acknowledgedAtStart);
        for (Map.Entry<Integer, Long> p : appliedAtStart.entrySet()) {
            long leaderCommit = cluster.status(leaders.get(p.getKey())).getPartitionsList().stream()
                    .filter(s -> s.getPartitionIndex() == p.getKey()).findFirst().orElseThrow().getCommitIndex();
            assertThat(leaderCommit).as("p%d's commit index beyond the outsider's", p.getKey())
                    .isGreaterThan(p.getValue());
        }
    }

    /** The term of each partition as its leader reports it; fails if that node no longer leads it. */
    private static Map<Integer, Long> terms(ProcessCluster cluster, Map<Integer, Integer> leaders) {
        Map<Integer, Long> terms = new TreeMap<>();
        leaders.forEach((partition, leader) -> {
            PartitionStatus status = cluster.status(leader).getPartitionsList().stream()
                    .filter(s -> s.getPartitionIndex() == partition).findFirst().orElseThrow();
            assertThat(status.getLeaderNodeId()).as("leader of p%d", partition).isEqualTo(leader);
            assertThat(status.getLeaderReady()).as("node %d ready for p%d", leader, partition).isTrue();
            terms.put(partition, status.getTerm());
        });
        return terms;
    }

    /** {@value #REFUSED_METRIC}{side="..."} of node {@code nodeId}, from its /metrics; -1 if unreachable. */
    private static long refusedCertificates(ProcessCluster cluster, int nodeId, String side) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.metricsPort(nodeId) + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            String series = REFUSED_METRIC + "{side=\"" + side + "\"} ";
            return response.body().lines().filter(line -> line.startsWith(series))
                    .mapToLong(line -> (long) Double.parseDouble(line.substring(series.length()).trim()))
                    .findFirst().orElseThrow(() -> new AssertionError("node " + nodeId + " has no " + series));
        } catch (java.io.IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** One thread per partition committing ever higher offsets through nodes 1 and 2. */
    private static final class Committers implements AutoCloseable {
        final AtomicLong acknowledged = new AtomicLong();
        final List<String> failures = new CopyOnWriteArrayList<>();
        final Map<String, Long> lastAcknowledged = new ConcurrentHashMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final CohortClient client;
        private static final TopicPartition TP = new TopicPartition("t", 0);

        Committers(ProcessCluster cluster) {
            // Not node 3's client port: an impostor answers there.
            this.client = CohortClient.builder()
                    .bootstrap("127.0.0.1:" + cluster.clientPort(1), "127.0.0.1:" + cluster.clientPort(2))
                    .clientId("raft-mtls-it").build();
            for (int p = 0; p < PARTITIONS; p++) {
                String group = groupOn(p);
                Thread thread = new Thread(() -> commitUntilStopped(group), "committer-" + group);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        private void commitUntilStopped(String group) {
            for (long offset = 1; running.get(); offset++) {
                try {
                    client.commitOffsets(group, Map.of(TP, new OffsetAndMetadata(offset)));
                    lastAcknowledged.put(group, offset);
                    acknowledged.incrementAndGet();
                } catch (RuntimeException e) {
                    if (running.get()) {
                        failures.add(group + " offset " + offset + ": " + e);
                    }
                }
            }
        }

        void awaitMoreAcknowledged(ProcessCluster cluster, long more) {
            long target = acknowledged.get() + more;
            cluster.awaitCondition(SETTLE, more + " more commits acknowledged", () -> acknowledged.get() >= target,
                    () -> " (acknowledged " + acknowledged.get() + ", failures " + failures + ")");
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
        }

        void assertEveryAcknowledgedOffsetReadBack() {
            assertThat(lastAcknowledged).hasSize(PARTITIONS);
            lastAcknowledged.forEach((group, offset) ->
                    assertThat(client.fetchOffsets(group)).as(group).containsEntry(TP, new OffsetAndMetadata(offset)));
        }

        private static String groupOn(int partition) {
            for (int i = 0; ; i++) {
                if (PartitionFunction.partitionFor("tls-group-" + i, PARTITIONS) == partition) {
                    return "tls-group-" + i;
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop();
            client.close();
        }
    }
}
