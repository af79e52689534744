package io.cohort.cluster;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.client.RollReadiness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What {@code scripts/cluster.sh roll} does, on a {@link ProcessCluster}: each node in turn is
 * stopped with SIGTERM (it hands the partitions it leads to caught-up peers), started again, and
 * the next waits until {@link RollReadiness} (the check behind {@code cohort cluster wait-ready})
 * finds every replica caught up and every partition led by its preferred leader.
 */
public final class RollingRestart {
    /** How long a node may take to exit after SIGTERM (the hand-off is bounded well below). */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    /** One node's restart: how long each step took, in ms. */
    public record NodeRestart(int nodeId, long stopMs, long startMs, long readyMs) {
        @Override
        public String toString() {
            return String.format("node %d: stop %d ms, start to SERVING %d ms, caught up and balanced %d ms",
                    nodeId, stopMs, startMs, readyMs);
        }
    }

    private RollingRestart() {
    }

    /**
     * Restarts every node in id order; before the first and after each, waits (at most
     * {@code readyTimeout}) until the cluster is caught up and balanced. {@code jar}: the jar the
     * restarted nodes run from then on (a rolling upgrade), or null to keep theirs.
     */
    public static List<NodeRestart> roll(ProcessCluster cluster, Path jar, Duration readyTimeout) {
        awaitReady(cluster, readyTimeout);
        List<NodeRestart> restarts = new ArrayList<>();
        for (int id : cluster.nodeIds()) {
            restarts.add(restart(cluster, id, jar, readyTimeout));
        }
        return restarts;
    }

    /** Restarts node {@code nodeId} (from {@code jar} if not null) and waits until the cluster is ready again. */
    public static NodeRestart restart(ProcessCluster cluster, int nodeId, Path jar, Duration readyTimeout) {
        long t0 = System.nanoTime();
        int exit = cluster.stop(nodeId, STOP_TIMEOUT);
        if (exit != 143 && exit != 0) {
            throw new IllegalStateException("node " + nodeId + " exited with " + exit + " after SIGTERM, not 143 (an "
                    + "orderly stop); see its logs in " + cluster.logDir(nodeId));
        }
        long t1 = System.nanoTime();
        if (jar != null) {
            cluster.useServerJar(nodeId, jar);
        }
        cluster.start(nodeId);
        long t2 = System.nanoTime();
        awaitReady(cluster, readyTimeout);
        long t3 = System.nanoTime();
        return new NodeRestart(nodeId, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000);
    }

    /**
     * Waits until every node answers, every replica applied what its leader had committed and every
     * partition is led by its preferred leader; fails after {@code timeout} with what it still waited for.
     */
    public static void awaitReady(ProcessCluster cluster, Duration timeout) {
        AtomicReference<List<String>> waiting = new AtomicReference<>(List.of());
        cluster.awaitCondition(timeout, "every replica caught up and every partition led by its preferred leader",
                () -> {
                    Map<Integer, ClusterStatusResponse> earlier = ask(cluster);
                    Map<Integer, ClusterStatusResponse> later = ask(cluster);
                    waiting.set(RollReadiness.waitingFor(cluster.nodeIds(), earlier, later, true));
                    return waiting.get().isEmpty();
                }, () -> "\nstill waiting for: " + waiting.get() + cluster.describeStatuses());
    }

    /** Every running node's ClusterStatus; a node that does not answer (yet) is left out, and RollReadiness says so. */
    private static Map<Integer, ClusterStatusResponse> ask(ProcessCluster cluster) {
        return ClusterStatuses.answers(cluster, cluster.runningNodeIds());
    }
}
