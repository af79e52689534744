package io.cohort.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole-cluster restart (a power loss, or an operator restarting every node at once):
 * {@code failover_committers} (8) committers as in the failover workload; after the warm-up, per
 * restart: SIGKILL every node, leave them down {@value #DOWN_MS} ms, start every node at once (as a
 * supervisor or an orchestrator does), and watch every committer until all commit again; then wait
 * until every node caught up, check that no acknowledged commit was lost, settle, repeat.
 *
 * <p>Per restart: {@code serving_again_ms} = the start of the nodes until the last committer's
 * first acknowledged commit after it (every group working again); {@code first_commit_ms} the same
 * to the first committer's; {@code nodes_started_ms} until every node process reported it serves
 * its port (Cohort: SERVING; Kafka: its "started" line); {@code lost_acked_commits} as in the
 * failover workload. The summary line: p50 and max of {@code serving_again_ms}, lost commits of a
 * final check after the committers stopped. The chaos runs report a "full restart" too
 * (docs/CHAOS.md), from the kill, time down included, to the next acknowledged commit of any group;
 * this one counts from the start of the nodes to every group's, on its own and beside Kafka.
 */
final class RestartWorkload {
    static final String NAME = "restart";
    /** How long every node stays down: as the chaos nemesis's whole-cluster restart holds. */
    static final long DOWN_MS = 1_000;

    private RestartWorkload() {
    }

    static void run(Target target, BenchOptions o, Results results, int restarts) throws Exception {
        String system = target.system();
        List<Double> servingAgain = new ArrayList<>();
        int unrecovered = 0;
        long lostDuringRun = 0;
        try (CommitterPool pool = FailoverWorkload.warmCommitters(target, o, NAME)) {
            for (int restart = 1; restart <= restarts; restart++) {
                Map<String, Object> line = results.line(system, NAME);
                line.put("restart", restart);
                line.put("restarts", restarts);
                pool.startRecordingAcks();
                Machine.sleep(o.preKillS() * 1000L);
                long failuresBefore = pool.totalFailures();
                Machine.log(system + " restart " + restart + "/" + restarts + ": SIGKILL every node");
                long tKill = System.nanoTime();
                target.killAll();
                long tDead = System.nanoTime();
                Machine.sleep(DOWN_MS);
                Machine.log(system + " restart " + restart + ": starting every node");
                long tStart = System.nanoTime();
                target.startAll();
                long tStarted = System.nanoTime();
                // Until every committer commits again, 2 s more, at least 5 s and at most observe_s.
                long tEnd = FailoverWorkload.observe(pool, tStart, tStart, o);
                List<long[]> acks = pool.stopRecordingAcks();
                long failed = pool.totalFailures() - failuresBefore;

                long first = Long.MAX_VALUE;
                long last = Long.MIN_VALUE;
                boolean allRecovered = true;
                for (long[] committerAcks : acks) {
                    long after = FailoverWorkload.firstAfter(committerAcks, tStart);
                    if (after < 0) {
                        allRecovered = false;
                    } else {
                        first = Math.min(first, after);
                        last = Math.max(last, after);
                    }
                }
                Double servingAgainMs = allRecovered ? Json.round((last - tStart) / 1e6, 1) : null;
                Double firstCommitMs = first == Long.MAX_VALUE ? null : Json.round((first - tStart) / 1e6, 1);
                Machine.log(String.format("%s restart %d: nodes started in %.0f ms, first commit %s ms, every group %s ms",
                        system, restart, (tStarted - tStart) / 1e6, firstCommitMs, servingAgainMs));

                target.awaitAllCaughtUp();
                long lost = FailoverWorkload.lostAckedCommits(target, pool);
                lostDuringRun += lost;

                line.put("committers", o.failoverCommitters());
                line.put("serving_again_ms", servingAgainMs);
                line.put("first_commit_ms", firstCommitMs);
                line.put("nodes_started_ms", Json.round((tStarted - tStart) / 1e6, 0));
                line.put("kill_all_ms", Json.round((tDead - tKill) / 1e6, 1));
                line.put("down_ms", DOWN_MS);
                line.put("all_recovered", allRecovered);
                line.put("lost_acked_commits", lost);
                line.put("failed_commits", failed);
                FailoverWorkload.putWindow(line, o, acks, tKill, tStart, tEnd);
                line.put("cluster", target.describe());
                results.emit(line);

                if (servingAgainMs != null) {
                    servingAgain.add(servingAgainMs);
                } else {
                    unrecovered++;
                    results.fail(system, NAME, "restart " + restart + ": not every committer committed again within "
                            + o.observeS() + " s of the start");
                }
                if (lost > 0) {
                    results.fail(system, NAME, "restart " + restart + ": " + lost + " acknowledged commits lost");
                }
                if (restart < restarts) {
                    target.settleAfterRestart();
                    Machine.sleep(o.killSettleS() * 1000L);
                }
            }
            pool.stop();
            long finalLost = FailoverWorkload.lostAckedCommits(target, pool);
            Map<String, Object> summary = results.line(system, NAME);
            summary.put("summary", true);
            summary.put("restarts", restarts);
            summary.put("committers", o.failoverCommitters());
            summary.put("serving_again_ms_all", servingAgain);
            summary.put("unrecovered_restarts", unrecovered);
            summary.put("serving_again_p50_ms", FailoverWorkload.percentileWithUnrecovered(servingAgain, unrecovered, 50));
            summary.put("serving_again_max_ms", FailoverWorkload.percentileWithUnrecovered(servingAgain, unrecovered, 100));
            summary.put("lost_acked_commits", finalLost + lostDuringRun);
            summary.put("lost_acked_commits_final_check", finalLost);
            summary.put("failed_commits", pool.totalFailures());
            summary.put("warmup_s", o.warmupS());
            summary.put("cluster", target.describe());
            results.emit(summary);
            if (finalLost > 0) {
                results.fail(system, NAME, finalLost + " acknowledged commits lost (final check)");
            }
        }
    }
}
