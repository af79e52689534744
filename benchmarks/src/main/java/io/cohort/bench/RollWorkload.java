package io.cohort.bench;

import io.cohort.cluster.ProcessCluster;
import io.cohort.cluster.RollingRestart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The rolling restart of {@code scripts/cluster.sh roll} under the commit workload (Cohort only):
 * {@code committers} (8) committers as in the failover workload; after the warm-up every node in
 * turn is stopped with SIGTERM (it hands its leaderships off), started again, and the next waits
 * until every replica caught up and every partition is led by its preferred leader again
 * ({@link RollingRestart}, the check of {@code cohort cluster wait-ready}).
 *
 * <p>One line per node: {@code max_stall_any_committer_ms} = the longest time any committer went
 * without an acknowledgement from that node's SIGTERM until the cluster was ready again (with
 * {@code max_stall_start_ms}, when that pause began after the SIGTERM, and {@code max_stall_group},
 * the committer's group), and the restart's steps. The summary line: the longest stall over the whole roll (the goal: below 1 s),
 * the commit latency p50/p99/p999/max over the roll, the failed (retried) commits, the acknowledged
 * commits lost (a check after the roll and one after the committers stopped), and the load average.
 */
final class RollWorkload {
    static final String NAME = "roll";

    private RollWorkload() {
    }

    static void run(CohortTarget target, BenchOptions o, Results results) throws Exception {
        String system = target.system();
        ProcessCluster cluster = target.cluster();
        Duration readyTimeout = Duration.ofSeconds(o.catchUpTimeoutS());
        try (CommitterPool pool = new CommitterPool(target, o.failoverCommitters(), "bench-roll-")) {
            Machine.log(system + " roll: " + o.failoverCommitters() + " committers, warm-up " + o.warmupS() + " s");
            Machine.sleep(o.warmupS() * 1000L);
            RollingRestart.awaitReady(cluster, readyTimeout);
            List<Double> loadStart = Machine.loadAvg();
            long failuresBefore = pool.totalFailures();
            pool.beginWindow();
            pool.startRecordingAcks();
            long tRollStart = System.nanoTime();
            List<long[]> windows = new ArrayList<>();
            List<RollingRestart.NodeRestart> restarts = new ArrayList<>();
            for (int id : cluster.nodeIds()) {
                Machine.log(system + " roll: restarting node " + id);
                long t0 = System.nanoTime();
                RollingRestart.NodeRestart restart = RollingRestart.restart(cluster, id, null, readyTimeout);
                restarts.add(restart);
                windows.add(new long[] {t0, System.nanoTime()});
                Machine.log(system + " roll: " + restart);
            }
            long tRollEnd = System.nanoTime();
            CommitterPool.Window window = pool.endWindow();
            List<long[]> acks = pool.stopRecordingAcks();
            long lostAfterRoll = FailoverWorkload.lostAckedCommits(target, pool);

            double maxStall = 0;
            for (int i = 0; i < restarts.size(); i++) {
                RollingRestart.NodeRestart restart = restarts.get(i);
                double nodeStall = 0;
                long stallStart = windows.get(i)[0];
                String stallGroup = null;
                for (int w = 0; w < acks.size(); w++) {
                    FailoverWorkload.Stall stall = FailoverWorkload.longestStall(acks.get(w), windows.get(i)[0],
                            windows.get(i)[1]);
                    if (stall.ms() > nodeStall) {
                        nodeStall = stall.ms();
                        stallStart = stall.startNanos();
                        stallGroup = pool.workers().get(w).groupId;
                    }
                }
                maxStall = Math.max(maxStall, nodeStall);
                Map<String, Object> line = results.line(system, NAME);
                line.put("node", restart.nodeId());
                line.put("committers", o.failoverCommitters());
                line.put("max_stall_any_committer_ms", Json.round(nodeStall, 1));
                // When it began, from this node's SIGTERM, and whose it was: to find it in the node logs.
                line.put("max_stall_start_ms", Json.round((stallStart - windows.get(i)[0]) / 1e6, 0));
                line.put("max_stall_group", stallGroup);
                line.put("stop_ms", restart.stopMs());
                line.put("start_to_serving_ms", restart.startMs());
                line.put("serving_to_ready_ms", restart.readyMs());
                line.put("cluster", target.describe());
                results.emit(line);
            }
            pool.stop();
            long finalLost = FailoverWorkload.lostAckedCommits(target, pool);

            Histogram latency = window.latencyUs();
            Map<String, Object> summary = results.line(system, NAME);
            summary.put("summary", true);
            summary.put("nodes_restarted", restarts.size());
            summary.put("committers", o.failoverCommitters());
            summary.put("roll_ms", Json.round((tRollEnd - tRollStart) / 1e6, 0));
            summary.put("max_stall_any_committer_ms", Json.round(maxStall, 1));
            summary.put("commits", latency.getTotalCount());
            summary.put("commit_p50_ms", Json.round(latency.getValueAtPercentile(50) / 1e3, 2));
            summary.put("commit_p99_ms", Json.round(latency.getValueAtPercentile(99) / 1e3, 2));
            summary.put("commit_p999_ms", Json.round(latency.getValueAtPercentile(99.9) / 1e3, 2));
            summary.put("commit_max_ms", Json.round(latency.getMaxValue() / 1e3, 2));
            summary.put("failed_commits", pool.totalFailures() - failuresBefore);
            summary.put("lost_acked_commits", lostAfterRoll + finalLost);
            summary.put("lost_acked_commits_final_check", finalLost);
            summary.put("warmup_s", o.warmupS());
            Map<String, Object> load = new LinkedHashMap<>();
            load.put("start", loadStart);
            load.put("end", Machine.loadAvg());
            summary.put("load_avg", load);
            summary.put("cluster", target.describe());
            results.emit(summary);
            Machine.log(String.format("%s roll: %d nodes in %.1f s: max stall %.0f ms, commit p99 %.1f ms, "
                            + "lost %d, load %s", system, restarts.size(), (tRollEnd - tRollStart) / 1e9, maxStall,
                    latency.getValueAtPercentile(99) / 1e3, lostAfterRoll + finalLost, Machine.loadAvg()));
            if (lostAfterRoll + finalLost > 0) {
                results.fail(system, NAME, (lostAfterRoll + finalLost) + " acknowledged commits lost");
            }
        }
    }
}
