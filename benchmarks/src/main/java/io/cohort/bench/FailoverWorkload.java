package io.cohort.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Workload 3 of docs/BENCHMARKS.md: {@code committers} (8) committers as in the commit workload
 * run; after the warm-up, per kill: find the coordinator of the watched group ({@code bench-g-0}),
 * SIGKILL that node's JVM and watch every committer until all commit again; then restart the node,
 * wait until it caught up, check that no acknowledged commit was lost, settle, repeat.
 *
 * <p>Per kill: {@code gap_ms} = the kill (just before the signal) until the watched group's first
 * commit acknowledged after the process was gone; {@code max_stall_any_committer_ms} = the longest
 * time any committer went without an acknowledgement across the kill; {@code max_stall_unaffected_ms}
 * the same over committers whose group was coordinated elsewhere; {@code lost_acked_commits} = over
 * every committer, how far the fetched committed offset is below the last offset acknowledged
 * before the fetch; a timeline of acknowledgements/s in 100 ms buckets. The summary line: p50/p99 of
 * the gaps (nearest rank), the largest stalls, and the lost commits of a final check after the
 * committers stopped.
 */
final class FailoverWorkload {
    static final String NAME = "failover";
    static final String WATCHED = "bench-g-0";
    private static final long BUCKET_MS = 100;

    private FailoverWorkload() {
    }

    static void run(Target target, BenchOptions o, Results results, int kills) throws Exception {
        List<Double> gaps = new ArrayList<>();
        double maxStall = 0;
        double maxStallUnaffected = 0;
        double maxRejoinStall = 0;
        long lostDuringRun = 0;
        int unrecovered = 0;
        String watchedGroup = WATCHED;
        String system = target.system();
        try (CommitterPool pool = warmCommitters(target, o, NAME)) {
            for (int kill = 1; kill <= kills; kill++) {
                Map<String, Object> line = results.line(system, NAME);
                line.put("kill", kill);
                line.put("kills", kills);
                Map<String, Integer> coordinators = new TreeMap<>();
                for (CommitterPool.Worker w : pool.workers()) {
                    coordinators.put(w.groupId, target.coordinatorOf(w.groupId));
                }
                int victim = coordinators.get(watchedGroup);
                Map<String, Object> before = target.beforeKill(victim);
                pool.startRecordingAcks();
                Machine.sleep(o.preKillS() * 1000L);
                long failuresBefore = pool.totalFailures();
                Facts facts = Facts.start(target);
                Machine.log(system + " failover: kill " + kill + "/" + kills + ": SIGKILL node " + victim
                        + " (coordinator of " + watchedGroup + ")");
                long tKill = System.nanoTime();
                target.kill(victim);
                long tDead = System.nanoTime();
                long tEnd = observe(pool, tKill, tDead, o);
                List<long[]> acks = pool.stopRecordingAcks();
                facts.finish(line);
                long failedInKill = pool.totalFailures() - failuresBefore;

                long firstAfter = firstAfter(acks.get(0), tDead);
                Double gapMs = firstAfter < 0 ? null : Json.round((firstAfter - tKill) / 1e6, 1);
                double stallAll = 0;
                double stallUnaffected = 0;
                int affected = 0;
                boolean allRecovered = true;
                for (int i = 0; i < acks.size(); i++) {
                    double stall = maxStallMs(acks.get(i), tKill, tEnd);
                    stallAll = Math.max(stallAll, stall);
                    boolean wasAffected = coordinators.get(pool.workers().get(i).groupId) == victim;
                    if (wasAffected) {
                        affected++;
                    } else {
                        stallUnaffected = Math.max(stallUnaffected, stall);
                    }
                    if (firstAfter(acks.get(i), tDead) < 0) {
                        allRecovered = false;
                    }
                }
                Machine.log(String.format("%s failover: kill %d: gap %s ms, max stall %.0f ms (unaffected %.0f ms); restarting node %d",
                        system, kill, gapMs, stallAll, stallUnaffected, victim));

                // The node's return is a fault of its own for the committers: leadership may move back
                // to it. Their longest pause from the restart until the cluster settled (and 1 s more,
                // for a committer still in its retry backoff) is the rejoin stall.
                pool.startRecordingAcks();
                long tRestart = System.nanoTime();
                Double restartMs = null;
                Long lost = null;
                Throwable restartFailure = null;
                try {
                    target.restartAndCatchUp(victim);
                    restartMs = Json.round((System.nanoTime() - tRestart) / 1e6, 0);
                    lost = lostAckedCommits(target, pool);
                    lostDuringRun += lost;
                    long tSettle = System.nanoTime();
                    boolean settled = target.settleAfterRestart();
                    line.put("settle_after_restart_ms", Json.round((System.nanoTime() - tSettle) / 1e6, 0));
                    line.put("settled_after_restart", settled);
                    long tSettled = System.nanoTime();
                    Machine.sleep(1_000);
                    long tRejoinEnd = System.nanoTime();
                    List<long[]> rejoinAcks = pool.stopRecordingAcks();
                    line.put("rejoin_timeline_commits_per_s", timeline(rejoinAcks, tRestart, tRejoinEnd));
                    Stall rejoinStall = new Stall(tRestart, 0);
                    for (long[] committerAcks : rejoinAcks) {
                        Stall stall = longestStall(committerAcks, tRestart, tRejoinEnd);
                        if (stall.ms() > rejoinStall.ms()) {
                            rejoinStall = stall;
                        }
                    }
                    line.put("max_stall_on_rejoin_ms", Json.round(rejoinStall.ms(), 1));
                    line.put("max_stall_on_rejoin_start_ms", Json.round((rejoinStall.startNanos() - tRestart) / 1e6, 0));
                    line.put("settled_after_restart_at_ms", Json.round((tSettled - tRestart) / 1e6, 0));
                    maxRejoinStall = Math.max(maxRejoinStall, rejoinStall.ms());
                } catch (Exception | AssertionError e) {
                    restartFailure = e;
                    String what = e.toString().replace('\n', ' ');
                    line.put("restart_error", what.length() > 1000 ? what.substring(0, 1000) + " ..." : what);
                }

                line.put("committers", o.failoverCommitters());
                line.put("watched_group", watchedGroup);
                line.put("killed_node", victim);
                line.putAll(before);
                line.put("gap_ms", gapMs);
                line.put("max_stall_any_committer_ms", Json.round(stallAll, 1));
                line.put("max_stall_unaffected_ms", affected == acks.size() ? null : Json.round(stallUnaffected, 1));
                line.put("affected_committers", affected);
                line.put("process_exit_ms", Json.round((tDead - tKill) / 1e6, 1));
                line.put("all_recovered", allRecovered);
                line.put("lost_acked_commits", lost);
                line.put("failed_commits", failedInKill);
                line.put("restart_to_caught_up_ms", restartMs);
                putWindow(line, o, acks, tKill, tKill, tEnd);
                line.put("cluster", target.describe());
                results.emit(line);
                if (restartFailure != null) {
                    // The figures of this kill are out; the node did not come back, so the run ends here.
                    if (restartFailure instanceof Exception ex) {
                        throw ex;
                    }
                    throw (AssertionError) restartFailure;
                }

                if (gapMs != null) {
                    gaps.add(gapMs);
                } else {
                    unrecovered++;
                }
                maxStall = Math.max(maxStall, stallAll);
                maxStallUnaffected = Math.max(maxStallUnaffected, stallUnaffected);
                if (!allRecovered) {
                    results.fail(system, NAME, "kill " + kill + ": not every committer committed again within "
                            + o.observeS() + " s of the kill");
                }
                if (lost != null && lost > 0) {
                    results.fail(system, NAME, "kill " + kill + ": " + lost + " acknowledged commits lost");
                }
                if (kill < kills) {
                    Machine.sleep(o.killSettleS() * 1000L);
                }
            }
            pool.stop();
            long finalLost = lostAckedCommits(target, pool);
            Map<String, Object> summary = results.line(system, NAME);
            summary.put("summary", true);
            summary.put("kills", kills);
            summary.put("committers", o.failoverCommitters());
            summary.put("gaps_ms", gaps);
            // A kill after which the watched group never committed again (within observe_s) has no gap:
            // it counts as longer than every measured one, so the percentiles it reaches are null.
            summary.put("watched_unrecovered_kills", unrecovered);
            summary.put("gap_p50_ms", percentileWithUnrecovered(gaps, unrecovered, 50));
            summary.put("gap_p99_ms", percentileWithUnrecovered(gaps, unrecovered, 99));
            summary.put("gap_max_ms", gaps.isEmpty() || unrecovered > 0 ? null
                    : gaps.stream().mapToDouble(d -> d).max().getAsDouble());
            summary.put("max_stall_any_committer_ms", Json.round(maxStall, 1));
            summary.put("max_stall_unaffected_ms", Json.round(maxStallUnaffected, 1));
            summary.put("max_stall_on_rejoin_ms", Json.round(maxRejoinStall, 1));
            summary.put("lost_acked_commits", finalLost + lostDuringRun);
            summary.put("lost_acked_commits_final_check", finalLost);
            summary.put("failed_commits", pool.totalFailures());
            summary.put("warmup_s", o.warmupS());
            summary.put("measure_s", null);
            summary.put("cluster", target.describe());
            Map<String, Object> load = new LinkedHashMap<>();
            load.put("end", Machine.loadAvg());
            summary.put("load_avg", load);
            results.emit(summary);
            if (finalLost > 0) {
                results.fail(system, NAME, finalLost + " acknowledged commits lost (final check)");
            }
        }
    }

    /**
     * The figures of one kill's (or restart's) window: the warm-up, {@code measure_s} from
     * {@code tMeasured} to {@code tEnd}, and the acknowledgements per second from {@code pre_kill_s}
     * before {@code tKill} to {@code tEnd}.
     */
    static void putWindow(Map<String, Object> line, BenchOptions o, List<long[]> acks, long tKill, long tMeasured,
                          long tEnd) {
        line.put("warmup_s", o.warmupS());
        line.put("measure_s", Json.round((tEnd - tMeasured) / 1e9, 1));
        line.put("timeline_bucket_ms", BUCKET_MS);
        line.put("timeline_start_ms", -o.preKillS() * 1000L);
        line.put("timeline_commits_per_s", timeline(acks, tKill - o.preKillS() * 1_000_000_000L, tEnd));
    }

    /** The {@code failover_committers} committers of {@code workload}, started, after the warm-up of {@code warmup_s}. */
    static CommitterPool warmCommitters(Target target, BenchOptions o, String workload) {
        CommitterPool pool = new CommitterPool(target, o.failoverCommitters(), "bench-g-");
        Machine.log(target.system() + " " + workload + ": " + o.failoverCommitters() + " committers, warm-up "
                + o.warmupS() + " s");
        Machine.sleep(o.warmupS() * 1000L);
        return pool;
    }

    /**
     * Waits until every committer has an acknowledgement after {@code tDead}, then 2 s more, at
     * least 5 s after the kill and at most {@code observe_s}. Returns the end of the observation.
     */
    static long observe(CommitterPool pool, long tKill, long tDead, BenchOptions o) {
        long min = tKill + 5_000_000_000L;
        long max = tKill + o.observeS() * 1_000_000_000L;
        long recoveredAt = -1;
        while (true) {
            long now = System.nanoTime();
            if (recoveredAt < 0 && pool.workers().stream().allMatch(w -> w.lastAckNanos > tDead)) {
                recoveredAt = now;
            }
            if (now >= max || (recoveredAt > 0 && now >= Math.max(min, recoveredAt + 2_000_000_000L))) {
                return now;
            }
            Machine.sleep(20);
        }
    }

    static long firstAfter(long[] acks, long t) {
        for (long a : acks) {
            if (a > t) {
                return a;
            }
        }
        return -1;
    }

    /** A committer's longest pause: where it began (nanoTime) and how long it was. */
    record Stall(long startNanos, double ms) {
    }

    /** The longest gap between consecutive acknowledgements (and to tEnd) among those that span or follow tKill, up to tEnd. */
    static Stall longestStall(long[] acks, long tKill, long tEnd) {
        long[] sorted = acks.clone();
        Arrays.sort(sorted);
        long max = -1;
        long start = tKill;
        long prev = -1;
        for (long a : sorted) {
            if (a > tEnd) {
                break; // after the window (a roll records one list for every node's window): the tail below
            }
            if (prev >= 0 && a >= tKill && a - prev > max) {
                max = a - prev;
                start = prev;
            }
            prev = a;
        }
        long last = prev >= 0 ? Math.max(prev, tKill) : tKill;
        if (tEnd - last > max) {
            max = tEnd - last;
            start = last;
        }
        return new Stall(start, max / 1e6);
    }

    static double maxStallMs(long[] acks, long tKill, long tEnd) {
        return longestStall(acks, tKill, tEnd).ms();
    }

    /** Acknowledgements per second of every committer together, in 100 ms buckets from {@code from} to {@code to}. */
    static long[] timeline(List<long[]> acks, long from, long to) {
        int buckets = (int) Math.max(1, (to - from) / (BUCKET_MS * 1_000_000L) + 1);
        long[] counts = new long[buckets];
        for (long[] list : acks) {
            for (long a : list) {
                if (a >= from && a < to) {
                    counts[(int) ((a - from) / (BUCKET_MS * 1_000_000L))]++;
                }
            }
        }
        for (int i = 0; i < buckets; i++) {
            counts[i] = counts[i] * (1000 / BUCKET_MS);
        }
        return counts;
    }

    /** Over every committer: how far the committed offset is below the last acknowledged one. */
    static long lostAckedCommits(Target target, CommitterPool pool) throws Exception {
        long lost = 0;
        Map<String, String> detail = new HashMap<>();
        for (CommitterPool.Worker w : pool.workers()) {
            long acked = w.lastAcked; // read before the fetch: the committed offset must be at least this
            long fetched = target.fetchCommitted(w.groupId);
            if (fetched < acked) {
                lost += acked - fetched;
                detail.put(w.groupId, "acked " + acked + ", fetched " + fetched);
            }
        }
        if (lost > 0) {
            Machine.log(target.system() + ": LOST acknowledged commits: " + detail);
        }
        return lost;
    }

    /** {@link #percentile} over the gaps plus {@code unrecovered} infinite ones; null if it lands on one of those. */
    static Double percentileWithUnrecovered(List<Double> gaps, int unrecovered, double pct) {
        List<Double> all = new ArrayList<>(gaps);
        for (int i = 0; i < unrecovered; i++) {
            all.add(Double.POSITIVE_INFINITY);
        }
        Double p = percentile(all, pct);
        return p == null || p.isInfinite() ? null : p;
    }

    /** Nearest-rank percentile (with 5 values, p99 is the largest). */
    static Double percentile(List<Double> values, double pct) {
        if (values.isEmpty()) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int rank = (int) Math.ceil(pct / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
