package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.core.PartitionFunction;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13's connection flood: 20,000 idle TCP connections to one node of a three-node cluster of
 * real JVMs, half to its client port and half to its Raft port; on every other connection the
 * HTTP/2 preface and SETTINGS (a completed handshake that then idles), on the others nothing. The
 * node must keep serving while the flood holds its connections: a commit through it succeeds, it
 * wins an election (a leadership transfer to it, which needs it to write its vote and term), and
 * the flood's connections are closed by the node (over the limit at once, the rest at the
 * handshake or idle timeout).
 *
 * <p>Before connection limits, the node's 20,000 file descriptors went to the flood: it could not
 * write its Raft metadata and lost its elections until the connections closed (never, when idle).
 *
 * <p>The flood comes from two attacker JVMs ({@link IdleConnectionFlood}), one per port: the test
 * JVM's file descriptor limit is 20,000, as the nodes' (they inherit it), so one process cannot
 * hold the whole flood. {@code -Dcohort.flood.per.port=N} changes its size (default 10,000 per
 * port; to starve a node on the old code it must exceed the node's {@code ulimit -n} together).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ConnectionFloodIT {
    private static final int FLOOD_PER_PORT = Integer.getInteger("cohort.flood.per.port", 10_000);
    /** Short idle timeouts so the test sees the flood's idle connections closed within a minute. */
    private static final long IDLE_TIMEOUT_MS = 20_000;
    private static final int PARTITIONS = 3;
    private static final int TARGET = 2;
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static final Pattern REPORT = Pattern.compile("connected=(\\d+) closed=(\\d+) failed=(\\d+)");

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    private final List<Flood> floods = new ArrayList<>();

    @AfterEach
    void stopFloods() {
        floods.forEach(Flood::stop);
    }

    @Test
    void testTwentyThousandIdleConnectionsDoNotStarveANode() {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3).partitions(PARTITIONS)
                .set("client.connection.idle.timeout.ms", IDLE_TIMEOUT_MS)
                .set("raft.connection.idle.timeout.ms", IDLE_TIMEOUT_MS));
        Map<Integer, Integer> leaders = cluster.awaitPreferredLeaders(SETTLE);
        int ledByTarget = partitionLedBy(leaders, TARGET, true);
        int ledByOther = partitionLedBy(leaders, TARGET, false);
        String targetGroup = groupOf(ledByTarget);
        String otherGroup = groupOf(ledByOther);
        TopicPartition tp = new TopicPartition("t", 0);
        try (CohortClient client = CohortClient.builder().bootstrap(cluster.bootstrap()).clientId("flood-it").build()) {
            // Connects the client to the target before the flood (a new connection may wait for a free slot).
            client.commitOffsets(targetGroup, Map.of(tp, new OffsetAndMetadata(1)));

            Flood clientFlood = flood(cluster.clientPort(TARGET), "client");
            Flood raftFlood = flood(cluster.raftPort(TARGET), "raft");
            await("the flood's connections are made").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> clientFlood.connected() >= FLOOD_PER_PORT / 2
                            && raftFlood.connected() >= FLOOD_PER_PORT / 2);

            // The node serves through the flood: a commit it coordinates, then an election it must win.
            client.commitOffsets(targetGroup, Map.of(tp, new OffsetAndMetadata(2)));
            client.transferLeadership(ledByOther, TARGET, Duration.ofSeconds(30));
            client.commitOffsets(otherGroup, Map.of(tp, new OffsetAndMetadata(3)));
            assertThat(client.fetchOffsets(targetGroup)).containsEntry(tp, new OffsetAndMetadata(2));
            assertThat(client.fetchOffsets(otherGroup)).containsEntry(tp, new OffsetAndMetadata(3));
            assertThat(client.findCoordinator(otherGroup).nodeId()).isEqualTo(TARGET);

            // Every connection the node accepted is closed by it: over the limit at once, the rest
            // after the handshake timeout (nothing sent) or the idle timeout (preface, then nothing).
            await("the node closes every flood connection").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .untilAsserted(() -> {
                        assertThat(clientFlood.allClosed()).as("%s", clientFlood).isTrue();
                        assertThat(raftFlood.allClosed()).as("%s", raftFlood).isTrue();
                    });
        }
        // New connections are taken again, and the cluster kept its leaders throughout.
        try (CohortClient fresh = CohortClient.builder().bootstrap("127.0.0.1:" + cluster.clientPort(TARGET))
                .clientId("after-flood").build()) {
            fresh.commitOffsets(targetGroup, Map.of(tp, new OffsetAndMetadata(4)));
            assertThat(fresh.fetchOffsets(targetGroup)).containsEntry(tp, new OffsetAndMetadata(4));
        }
        cluster.awaitStableLeaders(SETTLE);
    }

    private static int partitionLedBy(Map<Integer, Integer> leaders, int node, boolean byNode) {
        return leaders.entrySet().stream().filter(e -> (e.getValue() == node) == byNode).mapToInt(Map.Entry::getKey)
                .findFirst().orElseThrow();
    }

    private static String groupOf(int partition) {
        return IntStream.range(0, 10_000).mapToObj(i -> "flood-group-" + i)
                .filter(g -> PartitionFunction.partitionFor(g, PARTITIONS) == partition).findFirst().orElseThrow();
    }

    private Flood flood(int port, String name) {
        Flood flood = Flood.start(port, FLOOD_PER_PORT, name);
        floods.add(flood);
        return flood;
    }

    /** One attacker JVM and the last counts it reported. */
    private static final class Flood {
        private final String name;
        private final Process process;
        private volatile int connected;
        private volatile int closed;
        private volatile int failed;

        private Flood(String name, Process process) {
            this.name = name;
            this.process = process;
            Thread reader = new Thread(this::readReports, "flood-" + name);
            reader.setDaemon(true);
            reader.start();
        }

        static Flood start(int port, int count, String name) {
            String java = ProcessCluster.java();
            try {
                Process process = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
                        "-cp", System.getProperty("java.class.path"), IdleConnectionFlood.class.getName(),
                        "127.0.0.1", Integer.toString(port), Integer.toString(count))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                return new Flood(name, process);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the " + name + " flood", e);
            }
        }

        private void readReports() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.US_ASCII))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    Matcher m = REPORT.matcher(line);
                    if (m.matches()) {
                        connected = Integer.parseInt(m.group(1));
                        closed = Integer.parseInt(m.group(2));
                        failed = Integer.parseInt(m.group(3));
                    }
                }
            } catch (IOException e) {
                // The process was stopped.
            }
        }

        int connected() {
            return connected;
        }

        /** True once every connection was made and then closed by the node, or failed to connect. */
        boolean allClosed() {
            return connected == closed && connected + failed == FLOOD_PER_PORT;
        }

        void stop() {
            process.destroyForcibly();
        }

        @Override
        public String toString() {
            return name + " flood: " + connected + " connected, " + closed + " closed by the node, " + failed
                    + " failed to connect";
        }
    }
}
