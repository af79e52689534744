package io.cohort.bench;

import io.cohort.core.PartitionFunction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;

/**
 * Workload 1 of docs/BENCHMARKS.md, and the fetch and heartbeat workloads beside it ({@link Op#FETCH},
 * {@link Op#HEARTBEAT}): C concurrent committers with no membership (generation -1),
 * committing partition 0's offset +1 synchronously, their groups spread evenly over the offsets
 * partitions ({@link #spreadGroups}). One JIT warm-up of {@code warmup_s} at the largest C, then per
 * C: {@code c_warmup_s} with fresh committers, then {@code measure_s} measured. Each line carries
 * {@code probe_ms}, the machine's speed just before the window ({@link Machine#speedProbeMs}).
 */
final class CommitWorkload {
    static final String NAME = "commit";
    /** The fetch workload: the same clients and groups, reading back one acknowledged commit each. */
    static final String FETCH = "fetch";
    /**
     * The heartbeat workload (Cohort only): the same clients and groups, each client the one member
     * of its group, heartbeating synchronously: Heartbeat in a classic group, or with {@code --protocol
     * consumer} ConsumerGroupHeartbeat in a consumer-protocol group (a member with nothing to change).
     */
    static final String HEARTBEAT = "heartbeat";

    /** What the workload's clients do, and the names of its figures (plural and singular). */
    enum Op {
        COMMIT(NAME, "commits", "commit", "committer-"),
        FETCH(CommitWorkload.FETCH, "fetches", "fetch", "fetcher-"),
        HEARTBEAT(CommitWorkload.HEARTBEAT, "heartbeats", "heartbeat", "heartbeater-");

        final String workload;
        final String rateKey;
        final String failedKey;
        final String countKey;
        final String threadName;
        private final String singular;

        Op(String workload, String plural, String singular, String threadName) {
            this.workload = workload;
            this.rateKey = plural + "_per_s";
            this.failedKey = "failed_" + plural;
            this.countKey = plural;
            this.singular = singular;
            this.threadName = threadName;
        }

        static Op of(String workload) {
            for (Op op : values()) {
                if (op.workload.equals(workload)) {
                    return op;
                }
            }
            throw new IllegalArgumentException("not a commit-like workload: " + workload);
        }

        /** Whether {@code workload} is one of these (commit, fetch, heartbeat). */
        static boolean isOne(String workload) {
            for (Op op : values()) {
                if (op.workload.equals(workload)) {
                    return true;
                }
            }
            return false;
        }

        /** A cost figure's key ({@code cpu_s_per_1k_commits}, {@code wakeups_per_commit}) for this op. */
        String costKey(String commitKey) {
            return commitKey.replace("_commits", "_" + countKey).replace("_commit", "_" + singular);
        }

        CommitterPool pool(Target target, List<List<String>> groups, int gapMs) {
            return switch (this) {
                case COMMIT -> new CommitterPool(target, groups, gapMs);
                case FETCH -> CommitterPool.fetchers(target, groups, gapMs);
                case HEARTBEAT -> CommitterPool.heartbeaters(target, groups, gapMs);
            };
        }
    }

    private CommitWorkload() {
    }

    /**
     * Runs the workload; {@code partitions} is the target's offsets partition count (1 for Kafka,
     * whose groups need no spreading: its 50 partitions take the groups as they hash).
     */
    static void run(Target target, BenchOptions o, int partitions, Results results) {
        run(target, o, partitions, results, Op.COMMIT);
    }

    /** {@link #run}, or with {@link Op#FETCH} the fetch workload: C fetchers reading back their groups' commits. */
    static void run(Target target, BenchOptions o, int partitions, Results results, Op op) {
        if (o.idleS() > 0 && op == Op.COMMIT) {
            measureIdle(target, o, partitions, results);
        }
        warmUp(target, o, partitions, op);
        for (int c : o.cs()) {
            measure(target, o, partitions, c, results, false, op);
        }
    }

    /**
     * {@code --interleave}: the systems' clusters all up at once, each warmed up in turn, then
     * {@code rounds} rounds of one measured window per system and C, the order reversed every other
     * round (A B, B A, A B, ...). A shared machine's speed moves by up to 1.8x from one second to the
     * next (docs/BENCHMARKS.md, "Interleaved windows"); windows minutes apart on separate clusters
     * then compare the machine's moods more than the systems. Adjacent windows on clusters that stay up see the same
     * machine, and the ABBA order cancels a steady drift. The cluster not measured idles meanwhile
     * (its few percent of CPU count in {@code cpu_others_pct} of the other's windows). A cluster that
     * idled through the other's window recompiles when the load comes back (its leader's C2 threads
     * at ~20% of a core for 20 s, run 20261202-144200: that window 0.74 of its neighbour, the next
     * 1.34), so each window also waits until the nodes' JIT is idle again ({@code jit_settle_s}, at most 30 s).
     */
    static void runInterleaved(List<Target> targets, BenchOptions o, int partitions, Results results, Op op) {
        for (Target target : targets) {
            warmUp(target, o, partitions, op);
        }
        for (int round = 1; round <= o.rounds(); round++) {
            results.round(o.rounds() > 1 ? round : 0);
            List<Target> order = new ArrayList<>(targets);
            if (round % 2 == 0) {
                Collections.reverse(order);
            }
            for (Target target : order) {
                for (int c : o.cs()) {
                    measure(target, o, partitions, c, results, true, op);
                }
            }
        }
        results.round(0);
    }

    /** One JIT warm-up at the largest C: {@code warmup_s}, then until the nodes' compilers are idle. */
    private static void warmUp(Target target, BenchOptions o, int partitions, Op op) {
        int maxC = Collections.max(o.cs());
        Machine.log(target.system() + " " + op.workload + ": JIT warm-up, " + o.warmupS() + " s at C=" + maxC
                + ", then until the JIT compilers are idle (at most " + o.jitSettleMaxS() + " s more)");
        try (CommitterPool warm = op.pool(target, spreadGroups(maxC, partitions), 0)) {
            warm.beginWindow();
            Machine.sleep(o.warmupS() * 1000L);
            long settleS = JitSettle.await(target, o.jitSettleMaxS());
            CommitterPool.Window w = warm.endWindow();
            Machine.log(String.format("%s %s: warm-up done (JIT idle after %d s more), %.0f %s/s in it, "
                    + "%d failed", target.system(), op.workload, settleS, w.latencyUs().getTotalCount() / w.seconds(),
                    op.countKey, w.failures()));
        }
    }

    /**
     * One window at C committers: {@code c_warmup_s} with fresh committers (then, with
     * {@code settleJit}, until the nodes' JIT is idle), then {@code measure_s} measured.
     */
    private static void measure(Target target, BenchOptions o, int partitions, int c, Results results, boolean settleJit,
                                Op op) {
        List<List<String>> groups = spreadGroups(c, partitions);
        double probeMs = Machine.speedProbeMs();
        try (CommitterPool pool = op.pool(target, groups, o.commitGapMs())) {
            Machine.sleep(o.cWarmupS() * 1000L);
            long jitSettleS = settleJit ? JitSettle.await(target, Math.min(30, o.jitSettleMaxS())) : -1;
            Facts facts = Facts.start(target);
            Map<String, Object> line = results.line(target.system(), op.workload);
            line.put("c", c);
            if (o.commitGapMs() > 0) {
                line.put("commit_gap_ms", o.commitGapMs());
            }
            if (op == Op.HEARTBEAT) {
                line.put("protocol", o.protocols().get(0));
                if (o.registryTopics() > 0) {
                    line.put("registry_topics", o.registryTopics());
                }
            }
            if (target instanceof CohortTarget) {
                line.put("partitions", partitions);
                line.put("groups_per_committer", groups.get(0).size());
            }
            double[] applied = target instanceof CohortTarget cohort ? NodeMetrics.applyCounters(cohort) : null;
            NodeCost.Snapshot costStart = NodeCost.take(target);
            pool.beginWindow();
            Machine.sleep(o.measureS() * 1000L);
            CommitterPool.Window w = pool.endWindow();
            NodeCost.Snapshot costEnd = NodeCost.take(target);
            facts.finish(line);
            line.put("probe_ms", Json.round(probeMs, 1));
            if (jitSettleS >= 0) {
                line.put("jit_settle_s", jitSettleS);
            }
            Histogram h = w.latencyUs();
            line.put(op.rateKey, Json.round(h.getTotalCount() / w.seconds(), 1));
            line.put("p50_ms", ms(h.getValueAtPercentile(50)));
            line.put("p99_ms", ms(h.getValueAtPercentile(99)));
            line.put("p999_ms", ms(h.getValueAtPercentile(99.9)));
            line.put("max_ms", ms(h.getMaxValue()));
            line.put(op.failedKey, w.failures());
            line.put(op.countKey, h.getTotalCount());
            line.put("warmup_s", o.warmupS());
            line.put("c_warmup_s", o.cWarmupS());
            line.put("measure_s", Json.round(w.seconds(), 2));
            if (target instanceof CohortTarget cohort) {
                line.putAll(NodeMetrics.commandsPerEntry(applied, NodeMetrics.applyCounters(cohort)));
            }
            NodeCost.between(costStart, costEnd, h.getTotalCount()).forEach((key, value) -> line.put(
                    op.costKey(key), value));
            line.put("cluster", target.describe());
            results.emit(line);
            if (w.failures() > 0) {
                String example = pool.workers().stream().map(x -> x.lastError).filter(e -> e != null)
                        .findFirst().orElse("?");
                results.fail(target.system(), op.workload, w.failures() + " failed " + op.countKey + " at C=" + c
                        + " (no fault was injected), e.g. " + example);
            }
        }
    }

    /**
     * The nodes without a client, for {@code idle_s}: CPU (% of one core) and threads per node, and
     * leader changes: what a partition costs before any load.
     */
    private static void measureIdle(Target target, BenchOptions o, int partitions, Results results) {
        Machine.log(target.system() + " commit: idle for " + o.idleS() + " s");
        NodeCost.Snapshot start = NodeCost.take(target);
        Machine.sleep(o.idleS() * 1000L);
        NodeCost.Snapshot end = NodeCost.take(target);
        Map<String, Object> line = results.line(target.system(), NAME);
        line.put("idle", true);
        if (target instanceof CohortTarget) {
            line.put("partitions", partitions);
        }
        line.put("idle_s", o.idleS());
        line.putAll(NodeCost.idleBetween(start, end));
        line.put("cluster", target.describe());
        results.emit(line);
    }

    /**
     * The groups of {@code committers} committers over {@code partitions} offsets partitions: committer
     * i commits in turn to K = ceil(P / C) groups, its k-th group in partition (i + k C) mod P, so every
     * partition carries load and no partition carries more than ceil(K C / P) committers' groups.
     * Group names are {@code bench-g-<i>} (k = 0) or {@code bench-g-<i>-<k>}, with a {@code .<n>} suffix
     * found by trying n = 1, 2, ... where the plain name hashes elsewhere ({@link PartitionFunction},
     * Kafka's mapping). With P = 1 every name is plain: the groups of earlier runs.
     */
    static List<List<String>> spreadGroups(int committers, int partitions) {
        int perCommitter = Math.max(1, (partitions + committers - 1) / committers);
        List<List<String>> out = new ArrayList<>();
        Set<Integer> loaded = new HashSet<>();
        for (int i = 0; i < committers; i++) {
            List<String> groups = new ArrayList<>();
            for (int k = 0; k < perCommitter; k++) {
                int target = (i + k * committers) % partitions;
                String base = "bench-g-" + i + (k == 0 ? "" : "-" + k);
                String name = base;
                for (int n = 1; PartitionFunction.partitionFor(name, partitions) != target; n++) {
                    name = base + "." + n;
                }
                groups.add(name);
                loaded.add(target);
            }
            out.add(List.copyOf(groups));
        }
        if (loaded.size() != Math.min(partitions, committers * perCommitter)) {
            throw new IllegalStateException("the groups load " + loaded.size() + " of " + partitions + " partitions");
        }
        return out;
    }

    static double ms(long us) {
        return Json.round(us / 1000.0, 3);
    }
}
