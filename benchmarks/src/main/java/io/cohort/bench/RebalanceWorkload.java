package io.cohort.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Workload 2 of docs/BENCHMARKS.md: N members of one group (protocol type "consumer", range
 * assignment, initial rebalance delay 0) subscribed to one topic of N partitions, each polling on its
 * own thread every {@code member_poll_ms}, with Kafka's consumer defaults (session 45 s, heartbeat
 * 3 s) on both systems.
 * <ul>
 *   <li>{@code initial_join_ms}: all N members start polling at once (their first poll finds the
 *       coordinator and sends JoinGroup) until every member holds a non-empty assignment of one
 *       generation, as their rebalance listeners report it.
 *   <li>{@code join_one_more_ms}: {@code settle_ms} later, member N+1 starts polling, until all N+1
 *       hold an assignment of one newer generation (with N partitions, range assignment leaves one
 *       member without a partition, so empty assignments count here).
 * </ul>
 * Before measuring, rounds of N=10 run for {@code warmup_s} to warm the JITs of both sides.
 */
final class RebalanceWorkload {
    static final String NAME = "rebalance";
    private static final int WARM_N = 10;

    private RebalanceWorkload() {
    }

    /**
     * One round's figures; -1 where the condition was not met in time. {@code raftCounts}: Cohort's
     * {@code raft_entries} and {@code commands_per_entry} from the start until the one more member
     * holds its assignment (both rebalances; heartbeats write nothing), empty for Kafka.
     */
    record Round(double initialJoinMs, double joinOneMoreMs, int generation, int generationAfter, String detail,
                 Map<String, Object> raftCounts) {
        Round(double initialJoinMs, double joinOneMoreMs, int generation, int generationAfter, String detail) {
            this(initialJoinMs, joinOneMoreMs, generation, generationAfter, detail, Map.of());
        }
    }

    static void run(Target target, BenchOptions o, Results results) throws Exception {
        String warmTopic = "bench-rb-warm";
        target.prepareTopic(warmTopic, WARM_N);
        long warmEnd = System.nanoTime() + o.warmupS() * 1_000_000_000L;
        int warmRounds = 0;
        Machine.log(target.system() + " rebalance: JIT warm-up, rounds of N=" + WARM_N + " for " + o.warmupS() + " s");
        do {
            Round r = round(target, o, "bench-rb-warm-" + BenchMain.RUN_ID + "-" + warmRounds, warmTopic, WARM_N);
            warmRounds++;
            if (r.initialJoinMs() < 0 || r.joinOneMoreMs() < 0) {
                results.fail(target.system(), NAME, "warm-up round " + warmRounds + " did not complete: " + r.detail());
                return;
            }
        } while (System.nanoTime() < warmEnd);
        Machine.log(target.system() + " rebalance: " + warmRounds + " warm-up rounds done");
        for (int k = 0; k < o.ns().size(); k++) {
            int n = o.ns().get(k);
            String topic = "bench-rb-" + n;
            target.prepareTopic(topic, n);
            Facts facts = Facts.start(target);
            Map<String, Object> line = results.line(target.system(), NAME);
            line.put("n", n);
            Round r = round(target, o, "bench-rb-" + n + "-" + BenchMain.RUN_ID + "-" + k, topic, n);
            facts.finish(line);
            line.put("initial_join_ms", r.initialJoinMs() < 0 ? null : r.initialJoinMs());
            line.put("join_one_more_ms", r.joinOneMoreMs() < 0 ? null : r.joinOneMoreMs());
            line.put("generation", r.generation());
            line.put("generation_after", r.generationAfter());
            line.putAll(r.raftCounts());
            line.put("warmup_s", o.warmupS());
            line.put("warmup_rounds", warmRounds);
            line.put("measure_s", null);
            line.put("settle_ms", o.rebalanceSettleMs());
            line.put("member_poll_ms", o.memberPollMs());
            line.put("session_timeout_ms", 45000);
            line.put("heartbeat_interval_ms", 3000);
            line.put("assignor", "range");
            line.put("cluster", target.describe());
            results.emit(line);
            if (r.initialJoinMs() < 0 || r.joinOneMoreMs() < 0) {
                results.fail(target.system(), NAME, "N=" + n + " did not complete within " + o.rebalanceTimeoutS()
                        + " s: " + r.detail());
            }
        }
    }

    static Round round(Target target, BenchOptions o, String group, String topic, int n) throws Exception {
        long timeoutMs = o.rebalanceTimeoutS() * 1000L;
        GenerationTracker tracker = new GenerationTracker(n + 1);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Target.Member member = target.member(group, topic, n, i, tracker);
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    member.run(stop);
                }, "member-" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
            tracker.arm(n, -1, true);
            double[] appliedBefore = target instanceof CohortTarget cohort ? NodeMetrics.applyCounters(cohort) : null;
            long t0 = System.nanoTime();
            go.countDown();
            long done = tracker.await(timeoutMs);
            if (done < 0) {
                return new Round(-1, -1, -1, -1, "initial join: " + tracker.describe());
            }
            double initialMs = Json.round((done - t0) / 1e6, 1);
            int generation = tracker.doneGeneration();

            Machine.sleep(o.rebalanceSettleMs());
            Target.Member extra = target.member(group, topic, n, n, tracker);
            Thread t = new Thread(() -> extra.run(stop), "member-" + n);
            t.setDaemon(true);
            threads.add(t);
            tracker.arm(n + 1, generation, false);
            long t1 = System.nanoTime();
            t.start();
            long done2 = tracker.await(timeoutMs);
            if (done2 < 0) {
                return new Round(initialMs, -1, generation, -1, "one more member: " + tracker.describe());
            }
            Map<String, Object> raftCounts = target instanceof CohortTarget cohort
                    ? NodeMetrics.commandsPerEntry(appliedBefore, NodeMetrics.applyCounters(cohort)) : Map.of();
            return new Round(initialMs, Json.round((done2 - t1) / 1e6, 1), generation, tracker.doneGeneration(), "",
                    raftCounts);
        } finally {
            stop.set(true);
            go.countDown();
            for (Thread th : threads) {
                th.join(30_000);
            }
        }
    }
}
