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
 *
 * <p>{@code --protocol consumer} (or {@code both}, after classic on the same cluster): KIP-848 members
 * ({@code group.protocol=consumer}, server assignor "uniform", each side's default heartbeat interval
 * 5 s and session 45 s); the topic is created in the system's topic registry. "Done" is
 * {@link GenerationTracker}'s consumer condition, the same for both systems: every partition owned by
 * exactly one member as the members report it (listener callbacks and after every poll), every
 * member in the group, non-empty for the initial join, and for join-one-more the new member holding
 * its first assignment of the group's new epoch (with N partitions it may hold none: the others keep
 * theirs and need not stop). {@code all_members_new_epoch_ms}: until every member also reports that
 * epoch (bound by the heartbeat interval, as the others learn it at their next heartbeat).
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
                 Map<String, Object> raftCounts, Map<String, Object> consumerFacts) {
        Round(double initialJoinMs, double joinOneMoreMs, int generation, int generationAfter, String detail) {
            this(initialJoinMs, joinOneMoreMs, generation, generationAfter, detail, Map.of(), Map.of());
        }
    }

    static void run(Target target, BenchOptions o, Results results) throws Exception {
        for (String protocol : o.protocols()) {
            run(target, o, results, protocol);
        }
    }

    private static void run(Target target, BenchOptions o, Results results, String protocol) throws Exception {
        boolean consumer = protocol.equals(Target.CONSUMER);
        String warmTopic = "bench-rb-warm";
        target.prepareTopic(warmTopic, WARM_N);
        long warmEnd = System.nanoTime() + o.warmupS() * 1_000_000_000L;
        int warmRounds = 0;
        Machine.log(target.system() + " rebalance, " + protocol + " protocol: JIT warm-up, rounds of N=" + WARM_N + " for " + o.warmupS() + " s");
        do {
            Round r = round(target, o, "bench-rb-warm-" + protocol + "-" + BenchMain.RUN_ID + "-" + warmRounds, warmTopic,
                    WARM_N, protocol);
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
            line.put("protocol", protocol);
            line.put("n", n);
            Round r = round(target, o, "bench-rb-" + protocol + "-" + n + "-" + BenchMain.RUN_ID + "-" + k, topic, n,
                    protocol);
            facts.finish(line);
            line.put("initial_join_ms", r.initialJoinMs() < 0 ? null : r.initialJoinMs());
            line.put("join_one_more_ms", r.joinOneMoreMs() < 0 ? null : r.joinOneMoreMs());
            line.put("generation", r.generation());
            line.put("generation_after", r.generationAfter());
            line.putAll(r.consumerFacts());
            line.putAll(r.raftCounts());
            line.put("warmup_s", o.warmupS());
            line.put("warmup_rounds", warmRounds);
            line.put("measure_s", null);
            line.put("settle_ms", o.rebalanceSettleMs());
            line.put("member_poll_ms", o.memberPollMs());
            line.put("session_timeout_ms", 45000);
            line.put("heartbeat_interval_ms", consumer ? 5000 : 3000);
            line.put("assignor", consumer ? "uniform (server)" : "range");
            if (consumer) {
                line.put("done", "every partition owned by exactly one member, every member in the group (initial: "
                        + "non-empty), the new member holding its first assignment of the new group epoch");
            }
            line.put("cluster", target.describe());
            results.emit(line);
            if (r.initialJoinMs() < 0 || r.joinOneMoreMs() < 0) {
                results.fail(target.system(), NAME, protocol + " N=" + n + " did not complete within " + o.rebalanceTimeoutS()
                        + " s: " + r.detail());
            }
        }
    }

    static Round round(Target target, BenchOptions o, String group, String topic, int n, String protocol)
            throws Exception {
        boolean consumer = protocol.equals(Target.CONSUMER);
        long timeoutMs = o.rebalanceTimeoutS() * 1000L;
        GenerationTracker tracker = new GenerationTracker(n + 1);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Target.Member member = target.member(group, topic, n, i, tracker, protocol);
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
            if (consumer) {
                tracker.armConsumer(n, n, -1, 0, true);
            } else {
                tracker.arm(n, -1, true);
            }
            double[] appliedBefore = target instanceof CohortTarget cohort ? NodeMetrics.applyCounters(cohort) : null;
            long t0 = System.nanoTime();
            go.countDown();
            long done = tracker.await(timeoutMs);
            if (done < 0) {
                return new Round(-1, -1, -1, -1, "initial join: " + tracker.describe());
            }
            double initialMs = Json.round((done - t0) / 1e6, 1);
            int generation = tracker.doneGeneration();
            Map<String, Object> facts = new java.util.LinkedHashMap<>();
            if (consumer) {
                int[] range = tracker.epochRange();
                facts.put("initial_epochs", range[0] + ".." + range[1]);
                facts.put("initial_done_by", tracker.doneBy());
            }

            Machine.sleep(o.rebalanceSettleMs());
            Target.Member extra = target.member(group, topic, n, n, tracker, protocol);
            Thread t = new Thread(() -> extra.run(stop), "member-" + n);
            t.setDaemon(true);
            threads.add(t);
            if (consumer) {
                tracker.armConsumer(n + 1, n, n, generation, false);
            } else {
                tracker.arm(n + 1, generation, false);
            }
            long t1 = System.nanoTime();
            t.start();
            long done2 = tracker.await(timeoutMs);
            if (done2 < 0) {
                return new Round(initialMs, -1, generation, -1, "one more member: " + tracker.describe());
            }
            Map<String, Object> raftCounts = target instanceof CohortTarget cohort
                    ? NodeMetrics.commandsPerEntry(appliedBefore, NodeMetrics.applyCounters(cohort)) : Map.of();
            if (consumer) {
                // The others learn the new epoch at their next heartbeat (interval 5 s on both sides).
                long allDeadline = System.nanoTime() + 15_000_000_000L;
                while (tracker.allAtEpochNanos() == 0 && System.nanoTime() < allDeadline) {
                    Machine.sleep(50);
                }
                facts.put("join_one_more_done_by", tracker.doneBy());
                long all = tracker.allAtEpochNanos();
                facts.put("all_members_new_epoch_ms", all == 0 ? null : Json.round((all - t1) / 1e6, 1));
            }
            return new Round(initialMs, Json.round((done2 - t1) / 1e6, 1), generation, tracker.doneGeneration(), "",
                    raftCounts, facts);
        } finally {
            stop.set(true);
            go.countDown();
            for (Thread th : threads) {
                th.join(30_000);
            }
        }
    }
}
