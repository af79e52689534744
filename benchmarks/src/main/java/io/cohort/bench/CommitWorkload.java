package io.cohort.bench;

import java.util.Collections;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Workload 1 of docs/BENCHMARKS.md: C concurrent committers, each with its own group
 * {@code bench-g-<i>} and no membership (generation -1), committing partition 0's offset +1
 * synchronously. One JIT warm-up of {@code warmup_s} at the largest C, then per C: {@code c_warmup_s}
 * with fresh committers, then {@code measure_s} measured.
 */
final class CommitWorkload {
    static final String NAME = "commit";

    private CommitWorkload() {
    }

    static void run(Target target, BenchOptions o, Results results) {
        int maxC = Collections.max(o.cs());
        Machine.log(target.system() + " commit: JIT warm-up, " + o.warmupS() + " s at C=" + maxC);
        try (CommitterPool warm = new CommitterPool(target, maxC, "bench-g-")) {
            warm.beginWindow();
            Machine.sleep(o.warmupS() * 1000L);
            CommitterPool.Window w = warm.endWindow();
            Machine.log(String.format("%s commit: warm-up done, %.0f commits/s in it, %d failed", target.system(),
                    w.latencyUs().getTotalCount() / w.seconds(), w.failures()));
        }
        for (int c : o.cs()) {
            try (CommitterPool pool = new CommitterPool(target, c, "bench-g-")) {
                Machine.sleep(o.cWarmupS() * 1000L);
                Facts facts = Facts.start(target);
                Map<String, Object> line = results.line(target.system(), NAME);
                line.put("c", c);
                double[] applied = target instanceof CohortTarget cohort ? NodeMetrics.applyCounters(cohort) : null;
                pool.beginWindow();
                Machine.sleep(o.measureS() * 1000L);
                CommitterPool.Window w = pool.endWindow();
                facts.finish(line);
                Histogram h = w.latencyUs();
                line.put("commits_per_s", Json.round(h.getTotalCount() / w.seconds(), 1));
                line.put("p50_ms", ms(h.getValueAtPercentile(50)));
                line.put("p99_ms", ms(h.getValueAtPercentile(99)));
                line.put("p999_ms", ms(h.getValueAtPercentile(99.9)));
                line.put("max_ms", ms(h.getMaxValue()));
                line.put("failed_commits", w.failures());
                line.put("commits", h.getTotalCount());
                line.put("warmup_s", o.warmupS());
                line.put("c_warmup_s", o.cWarmupS());
                line.put("measure_s", Json.round(w.seconds(), 2));
                if (target instanceof CohortTarget cohort) {
                    line.putAll(NodeMetrics.commandsPerEntry(applied, NodeMetrics.applyCounters(cohort)));
                }
                line.put("cluster", target.describe());
                results.emit(line);
                if (w.failures() > 0) {
                    String example = pool.workers().stream().map(x -> x.lastError).filter(e -> e != null)
                            .findFirst().orElse("?");
                    results.fail(target.system(), NAME, w.failures() + " failed commits at C=" + c + " (no fault was "
                            + "injected), e.g. " + example);
                }
            }
        }
    }

    static double ms(long us) {
        return Json.round(us / 1000.0, 3);
    }
}
