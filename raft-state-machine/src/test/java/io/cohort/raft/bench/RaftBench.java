package io.cohort.raft.bench;

import io.cohort.testsupport.TestPorts;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The driver of the Raft benchmarks: spawns 3 {@link RaftBenchNode} JVMs on loopback (fresh data
 * dirs, {@code -Xmx512m}), drives them through a mode, and prints one JSON line per result, also
 * appended to {@code <out>/raft-<mode>-<timestamp>.jsonl}. Run with scripts/raft-bench.sh. Not a test.
 *
 * <p>Modes (arguments are {@code key=value}; defaults in brackets):
 * <ul>
 *   <li>{@code mode=throughput}: one partition (one Raft group), C total committers on its leader,
 *       grouped commits ({@link io.cohort.raft.RaftTuning#defaults()} batching) and single-command
 *       entries ({@code withBatching(1, singleInflight)}: one command per entry, up to
 *       {@code singleInflight} entries in flight, so every committer has its own entry in flight as
 *       C independent Raft clients would). Per batching: one cluster, {@code warmup} seconds of load
 *       at the largest C [60], then per C in {@code cs} [1,8,32]: {@code settle} [5] s, then
 *       {@code measure} [20] s measured. {@code batchings} [grouped,single], {@code rounds} [1]
 *       repeats the list (alternating order) so ratios are side by side.
 *   <li>{@code mode=failover}: per P in {@code partitions} [3,8,16] and election timeouts in
 *       {@code timeouts} [150/300,500/1000,1000/2000]: {@code committers} [8] per partition on its
 *       leader; {@code warmup} [30] s, then a stability window of {@code stability} [60] s (every
 *       READY/STEPDOWN in it is churn: nothing was killed), then {@code kills} [3] times: SIGKILL the
 *       node leading the most partitions, measure per affected partition kill -> READY and kill ->
 *       first commit on the new leader, the stalls of unaffected partitions and any leader change of
 *       an unaffected partition; restart the node, wait until every leader reports it less than
 *       {@code lagEntries} [200] entries behind, then {@code settle} [10] s (priority moves back).
 *   <li>{@code mode=catchup}: {@code partitions} [1], {@code committers} [32] per partition,
 *       {@code snapshotEvery} [2000]: {@code kills} [3] times SIGKILL a follower, keep it down
 *       {@code down} [30] s (long enough for the leader to snapshot and purge past it), restart it and
 *       time until it caught up (-1 after 120 s: the data dirs are then kept for a post-mortem).
 * </ul>
 * Common: {@code etMin}/{@code etMax} (throughput only), {@code out} [bench-results], {@code workDir}
 * [/tmp/cohort-raft-bench]; {@code quietCpu} [15], {@code quietLoad} [0 = off], {@code quietWait} [30]:
 * before each cluster start, measurement window and kill, wait for a quiet moment (see
 * {@link #waitForQuiet}). Every result carries the load average and the CPU shares of the window:
 * {@code cpu_busy_pct} (machine), {@code cpu_bench_pct} (these JVMs), {@code cpu_others_pct} (everyone
 * else: other engineers' builds skew the figures), 100 = both cores.
 */
public final class RaftBench {
    private static final int NODES = 3;
    private static final String TS = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));

    private final Map<String, String> opts;
    private final Path workDir;
    private final Path outFile;
    private final String mode;
    private final CpuSampler cpu = new CpuSampler();

    private RaftBench(Map<String, String> opts) throws IOException {
        this.opts = opts;
        this.mode = RaftBenchNode.opt(opts, "mode", null);
        this.workDir = Path.of(RaftBenchNode.opt(opts, "workDir", "/tmp/cohort-raft-bench")).resolve(mode + "-" + TS);
        Files.createDirectories(workDir.resolve("logs"));
        Path out = Path.of(RaftBenchNode.opt(opts, "out", "bench-results"));
        Files.createDirectories(out);
        this.outFile = out.resolve("raft-" + mode + "-" + TS + ".jsonl");
    }

    public static void main(String[] args) throws Exception {
        RaftBench bench = new RaftBench(RaftBenchNode.parse(args));
        bench.cpu.start();
        log("results -> " + bench.outFile.toAbsolutePath() + ", logs -> " + bench.workDir.resolve("logs"));
        switch (bench.mode) {
            case "throughput" -> bench.throughput();
            case "failover" -> bench.failover();
            case "catchup" -> bench.catchup();
            default -> throw new IllegalArgumentException("mode must be throughput, failover or catchup");
        }
        log("done: " + bench.outFile.toAbsolutePath());
        System.exit(0);
    }

    private String opt(String key, String defaultValue) {
        return RaftBenchNode.opt(opts, key, defaultValue);
    }

    private int intOpt(String key, int defaultValue) {
        return Integer.parseInt(opt(key, String.valueOf(defaultValue)));
    }

    private static List<Integer> intList(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }

    // ---------------------------------------------------------------- throughput

    private void throughput() throws Exception {
        List<Integer> cs = intList(opt("cs", "1,8,32"));
        List<String> batchings = Arrays.asList(opt("batchings", "grouped,single").split(","));
        int rounds = intOpt("rounds", 1);
        int warmup = intOpt("warmup", 60);
        int settle = intOpt("settle", 5);
        int measure = intOpt("measure", 20);
        int singleInflight = intOpt("singleInflight", 256);
        int maxC = cs.stream().max(Integer::compare).orElseThrow();
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(batchings);
            if (round % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (String batching : order) {
                Map<String, String> nodeArgs = new LinkedHashMap<>();
                nodeArgs.put("partitions", "1");
                nodeArgs.put("committers", String.valueOf(maxC));
                if (opts.containsKey("etMin")) {
                    nodeArgs.put("etMin", opt("etMin", null));
                    nodeArgs.put("etMax", opt("etMax", null));
                }
                switch (batching) {
                    case "grouped" -> { }
                    case "single" -> {
                        nodeArgs.put("batch", "1");
                        nodeArgs.put("inflight", String.valueOf(singleInflight));
                    }
                    default -> throw new IllegalArgumentException("batching must be grouped or single: " + batching);
                }
                String name = "tp-r" + round + "-" + batching;
                waitForQuiet();
                try (Cluster cluster = new Cluster(name, 1, nodeArgs)) {
                    cluster.startAll();
                    cluster.awaitAllLed(120_000);
                    log(name + ": warm-up " + warmup + " s at C=" + maxC);
                    sleepS(warmup);
                    for (int c : cs) {
                        cluster.sendAll("COMMITTERS " + c);
                        sleepS(settle);
                        waitForQuiet();
                        String loadBefore = loadavg();
                        long t0 = System.currentTimeMillis();
                        sleepS(measure);
                        long t1 = System.currentTimeMillis();
                        Window w = cluster.window(t0, t1, e -> true);
                        Map<String, Object> r = new LinkedHashMap<>();
                        r.put("mode", "throughput");
                        r.put("run", TS);
                        r.put("round", round);
                        r.put("batching", batching);
                        r.put("tuning_batch_commands", batching.equals("single") ? 1 : null);
                        r.put("tuning_inflight_entries", batching.equals("single") ? singleInflight : null);
                        r.put("partitions", 1);
                        r.put("committers", c);
                        r.put("warmup_s", warmup);
                        r.put("measure_s", measure);
                        r.putAll(w.summary());
                        r.put("loadavg_before", loadBefore);
                        r.put("loadavg_after", loadavg());
                        r.putAll(cpu.summary(t0, t1));
                        emit(r);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- failover

    private void failover() throws Exception {
        List<Integer> partitionCounts = intList(opt("partitions", "3,8,16"));
        List<String> timeouts = Arrays.asList(opt("timeouts", "150/300,500/1000,1000/2000").split(","));
        int committers = intOpt("committers", 8);
        int warmup = intOpt("warmup", 30);
        int stability = intOpt("stability", 60);
        int kills = intOpt("kills", 3);
        int settle = intOpt("settle", 10);
        long lagEntries = intOpt("lagEntries", 200);
        for (int partitions : partitionCounts) {
            for (String timeout : timeouts) {
                String[] minMax = timeout.split("/");
                Map<String, String> nodeArgs = new LinkedHashMap<>();
                nodeArgs.put("partitions", String.valueOf(partitions));
                nodeArgs.put("committers", String.valueOf(committers));
                nodeArgs.put("etMin", minMax[0]);
                nodeArgs.put("etMax", minMax[1]);
                if (opts.containsKey("batch")) {
                    nodeArgs.put("batch", opt("batch", null));
                    nodeArgs.put("inflight", opt("inflight", null));
                }
                if (opts.containsKey("snapshotEvery")) {
                    nodeArgs.put("snapshotEvery", opt("snapshotEvery", null));
                }
                String name = "fo-p" + partitions + "-et" + minMax[0] + "-" + minMax[1];
                waitForQuiet();
                Cluster[] holder = new Cluster[1];
                try (Cluster cluster = new Cluster(name, partitions, nodeArgs)) {
                    holder[0] = cluster;
                    runFailover(cluster, name, partitions, Integer.parseInt(minMax[0]), Integer.parseInt(minMax[1]),
                            committers, warmup, stability, kills, settle, lagEntries);
                } catch (Exception e) {
                    log(name + ": FAILED " + e);
                    if (holder[0] != null && holder[0].keepData) {
                        log(name + ": data kept in " + holder[0].dataRoot);
                    }
                    Map<String, Object> r = new LinkedHashMap<>();
                    r.put("mode", "failover");
                    r.put("run", TS);
                    r.put("case", name);
                    r.put("error", e.toString());
                    emit(r);
                }
            }
        }
    }

    // ---------------------------------------------------------------- catch-up after a follower's SIGKILL

    private void catchup() throws Exception {
        int partitions = intOpt("partitions", 1);
        int committers = intOpt("committers", 32);
        int warmup = intOpt("warmup", 20);
        int down = intOpt("down", 30);
        int kills = intOpt("kills", 3);
        long lagEntries = intOpt("lagEntries", 200);
        String snapshotEvery = opt("snapshotEvery", "2000");
        Map<String, String> nodeArgs = new LinkedHashMap<>();
        nodeArgs.put("partitions", String.valueOf(partitions));
        nodeArgs.put("committers", String.valueOf(committers));
        nodeArgs.put("snapshotEvery", snapshotEvery);
        if (opts.containsKey("etMin")) {
            nodeArgs.put("etMin", opt("etMin", null));
            nodeArgs.put("etMax", opt("etMax", null));
        }
        String name = "cu-p" + partitions + "-snap" + snapshotEvery;
        waitForQuiet();
        try (Cluster cluster = new Cluster(name, partitions, nodeArgs)) {
            cluster.startAll();
            cluster.awaitAllLed(180_000);
            sleepS(warmup);
            for (int k = 0; k < kills; k++) {
                // The node leading the fewest partitions: with P = 1, a follower.
                int victim = 0;
                for (int i = 1; i < NODES; i++) {
                    if (cluster.ledBy(i).size() < cluster.ledBy(victim).size()) {
                        victim = i;
                    }
                }
                long[] before = cluster.appliedOf((victim + 1) % NODES);
                int exit = cluster.kill(victim);
                long killMs = System.currentTimeMillis();
                log(name + ": kill " + (k + 1) + ": SIGKILLed follower " + victim + " (exit " + exit + "), down " + down
                        + " s");
                sleepS(down);
                long[] after = cluster.appliedOf((victim + 1) % NODES);
                long restartMs = System.currentTimeMillis();
                cluster.start(victim);
                long caughtUp = cluster.awaitCaughtUp(victim, restartMs, lagEntries, 120_000);
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("mode", "catchup");
                r.put("run", TS);
                r.put("case", name);
                r.put("partitions", partitions);
                r.put("snapshot_every_entries", Long.parseLong(snapshotEvery));
                r.put("kill", k + 1);
                r.put("victim", victim);
                r.put("victim_exit_code", exit);
                r.put("down_s", (restartMs - killMs) / 1000);
                r.put("entries_applied_while_down", before == null || after == null ? null
                        : Arrays.stream(after).sum() - Arrays.stream(before).sum());
                r.put("caught_up_ms", caughtUp < 0 ? -1 : caughtUp - restartMs);
                r.put("victim_applied_now", cluster.appliedText(victim));
                r.put("peer_applied_now", cluster.appliedText((victim + 1) % NODES));
                r.put("loadavg", loadavg());
                emit(r);
                if (caughtUp < 0) {
                    cluster.keepData = true;
                    break;
                }
                sleepS(5);
            }
        }
    }

    private void runFailover(Cluster cluster, String name, int partitions, int etMin, int etMax, int committers,
                             int warmup, int stability, int kills, int settle, long lagEntries) throws Exception {
        String loadStart = loadavg();
        long start = System.currentTimeMillis();
        cluster.startAll();
        cluster.awaitAllLed(180_000);
        long allLed = System.currentTimeMillis();
        log(name + ": all " + partitions + " partitions led after " + (allLed - start) + " ms; warm-up " + warmup + " s");
        sleepS(warmup);
        waitForQuiet();
        String loadBefore = loadavg();
        long t0 = System.currentTimeMillis();
        sleepS(stability);
        long t1 = System.currentTimeMillis();
        Window w = cluster.window(t0, t1, e -> true);
        int startupReadies = cluster.count(start, t0, "READY", e -> true);

        Map<String, Object> base = new LinkedHashMap<>();
        base.put("mode", "failover");
        base.put("run", TS);
        base.put("case", name);
        base.put("partitions", partitions);
        base.put("et_min_ms", etMin);
        base.put("et_max_ms", etMax);
        base.put("committers_per_partition", committers);
        base.put("committers_total", committers * partitions);

        Map<String, Object> stable = new LinkedHashMap<>(base);
        stable.put("phase", "stability");
        stable.put("startup_all_led_ms", allLed - start);
        stable.put("startup_ready_events", startupReadies);
        stable.put("leader_counts_after_warmup", cluster.leaderCounts());
        stable.put("warmup_s", warmup);
        stable.put("window_s", stability);
        stable.put("churn_ready", cluster.count(t0, t1, "READY", e -> true));
        stable.put("churn_stepdown", cluster.count(t0, t1, "STEPDOWN", e -> true));
        stable.put("stalls_over_200ms", cluster.count(t0, t1, "STALL", e -> e.gapMs() >= 200));
        stable.put("max_stall_ms", cluster.maxStall(t0, t1, p -> true));
        stable.putAll(w.summary());
        stable.put("loadavg_before", loadBefore);
        stable.put("loadavg_after", loadavg());
        stable.putAll(cpu.summary(t0, t1));
        emit(stable);

        List<Long> firstCommitGaps = new ArrayList<>();
        List<Long> readyGaps = new ArrayList<>();
        int churnAfterKills = 0;
        long maxUnaffectedStall = 0;
        for (int k = 0; k < kills; k++) {
            waitForQuiet();
            String loadKill = loadavg();
            int victim = cluster.victim(k);
            Set<Integer> affected = cluster.ledBy(victim);
            long killMs = System.currentTimeMillis();
            int exit = cluster.kill(victim);
            log(name + ": kill " + (k + 1) + ": SIGKILLed node " + victim + " (exit " + exit + ") leading " + affected);
            Map<Integer, Long> firstCommit = new TreeMap<>();
            Map<Integer, Long> ready = new TreeMap<>();
            long deadline = killMs + 60_000;
            while (System.currentTimeMillis() < deadline) {
                firstCommit = cluster.firstAfter("FIRSTCOMMIT", killMs, affected);
                if (firstCommit.size() == affected.size()) {
                    break;
                }
                Thread.sleep(20);
            }
            ready = cluster.firstAfter("READY", killMs, affected);
            long observedUntil = Math.max(System.currentTimeMillis(), killMs + 5_000);
            Thread.sleep(Math.max(0, observedUntil - System.currentTimeMillis()));
            List<Long> gaps = new ArrayList<>();
            List<Long> rgaps = new ArrayList<>();
            for (int p : affected) {
                Long fc = firstCommit.get(p);
                gaps.add(fc == null ? -1 : fc - killMs);
                Long rd = ready.get(p);
                rgaps.add(rd == null ? -1 : rd - killMs);
            }
            firstCommitGaps.addAll(gaps);
            readyGaps.addAll(rgaps);
            Predicate<Integer> unaffected = p -> !affected.contains(p);
            int unaffectedReadies = cluster.count(killMs, observedUntil, "READY", e -> unaffected.test(e.partition()));
            int extraAffectedReadies = cluster.count(killMs, observedUntil, "READY",
                    e -> affected.contains(e.partition())) - ready.size();
            long unaffectedStall = cluster.maxStall(killMs, observedUntil, unaffected);
            churnAfterKills += unaffectedReadies + Math.max(0, extraAffectedReadies);
            maxUnaffectedStall = Math.max(maxUnaffectedStall, unaffectedStall);

            long restartMs = System.currentTimeMillis();
            cluster.start(victim);
            long caughtUp = cluster.awaitCaughtUp(victim, restartMs, lagEntries, 180_000);
            long settleFrom = System.currentTimeMillis();
            sleepS(settle);
            long settleTo = System.currentTimeMillis();

            Map<String, Object> r = new LinkedHashMap<>(base);
            r.put("phase", "kill");
            r.put("kill", k + 1);
            r.put("victim", victim);
            r.put("victim_exit_code", exit);
            r.put("affected_partitions", affected.size());
            r.put("gap_first_commit_ms", gaps);
            r.put("gap_ready_ms", rgaps);
            r.put("gap_first_commit_max_ms", gaps.stream().mapToLong(Long::longValue).max().orElse(-1));
            r.put("unaffected_leader_changes", unaffectedReadies);
            r.put("affected_extra_elections", Math.max(0, extraAffectedReadies));
            r.put("unaffected_max_stall_ms", unaffectedStall);
            r.put("restart_caught_up_ms", caughtUp < 0 ? -1 : caughtUp - restartMs);
            r.put("leader_moves_restart_and_settle", cluster.count(restartMs, settleTo, "READY", e -> true));
            r.put("leader_counts_after_settle", cluster.leaderCounts());
            r.put("loadavg_before", loadKill);
            r.put("cpu_others_pct_before_kill", cpu.summary(killMs - 5_000, killMs).get("cpu_others_pct"));
            r.putAll(cpu.summary(killMs, observedUntil));
            emit(r);
            if (caughtUp < 0) {
                cluster.keepData = true;
                throw new IllegalStateException("node " + victim + " did not catch up");
            }
        }
        Map<String, Object> summary = new LinkedHashMap<>(base);
        summary.put("phase", "summary");
        summary.put("churn_stability_ready", stable.get("churn_ready"));
        summary.put("stability_commits_per_s", stable.get("commits_per_s"));
        summary.put("stability_p99_ms", stable.get("p99_ms"));
        summary.put("kills", kills);
        summary.put("affected_total", firstCommitGaps.size());
        summary.put("gap_first_commit_p50_ms", percentile(firstCommitGaps, 50));
        summary.put("gap_first_commit_max_ms", firstCommitGaps.stream().mapToLong(Long::longValue).max().orElse(-1));
        summary.put("gap_ready_p50_ms", percentile(readyGaps, 50));
        summary.put("gap_ready_max_ms", readyGaps.stream().mapToLong(Long::longValue).max().orElse(-1));
        summary.put("within_1s", firstCommitGaps.stream().filter(g -> g >= 0 && g <= 1000).count() + "/"
                + firstCommitGaps.size());
        summary.put("churn_after_kills", churnAfterKills);
        summary.put("unaffected_max_stall_ms", maxUnaffectedStall);
        summary.put("loadavg_start", loadStart);
        summary.put("loadavg_end", loadavg());
        emit(summary);
    }

    private static long percentile(List<Long> values, double pct) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = values.stream().map(v -> v < 0 ? Long.MAX_VALUE : v).sorted().toList();
        int index = (int) Math.ceil(pct / 100.0 * sorted.size()) - 1;
        long v = sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
        return v == Long.MAX_VALUE ? -1 : v;
    }

    // ---------------------------------------------------------------- the cluster of node processes

    record Event(int node, String type, int partition, long epochMs, long gapMs, Map<String, String> stats) {
    }

    /** What the STATS lines of a time window add up to. */
    static final class Window {
        final LatencyHistogram histogram = new LatencyHistogram();
        long failed;
        long entries;
        long commands;
        final long fromMs;
        final long toMs;

        Window(long fromMs, long toMs) {
            this.fromMs = fromMs;
            this.toMs = toMs;
        }

        Map<String, Object> summary() {
            Map<String, Object> m = new LinkedHashMap<>();
            double seconds = (toMs - fromMs) / 1000.0;
            m.put("commits_per_s", Math.round(histogram.count() / seconds));
            m.put("p50_ms", round2(histogram.percentileMs(50)));
            m.put("p99_ms", round2(histogram.percentileMs(99)));
            m.put("p999_ms", round2(histogram.percentileMs(99.9)));
            m.put("max_ms", round2(histogram.maxMs()));
            m.put("failed_commits", failed);
            m.put("commands_per_entry", entries == 0 ? 0 : round2((double) commands / entries));
            return m;
        }
    }

    final class Cluster implements AutoCloseable {
        final String name;
        final int partitions;
        final Map<String, String> nodeArgs;
        final String peers;
        final Path dataRoot;
        final Process[] processes = new Process[NODES];
        final Writer[] stdins = new Writer[NODES];
        final List<Event> events = new ArrayList<>();
        final int[] leaders;
        final Map<Integer, Map<String, String>> latestStats = new HashMap<>();
        final Map<Integer, Long> started = new HashMap<>();
        /** Set when the case failed: its data dirs stay for a post-mortem. */
        volatile boolean keepData;

        Cluster(String name, int partitions, Map<String, String> nodeArgs) {
            this.name = name;
            this.partitions = partitions;
            this.nodeArgs = nodeArgs;
            this.dataRoot = workDir.resolve(name);
            List<String> peerSpecs = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                peerSpecs.add(i + "=127.0.0.1:" + TestPorts.next() + ":" + TestPorts.next());
            }
            this.peers = String.join(",", peerSpecs);
            this.leaders = new int[partitions];
            Arrays.fill(leaders, -1);
        }

        void startAll() throws IOException {
            for (int i = 0; i < NODES; i++) {
                start(i);
            }
        }

        void start(int nodeId) throws IOException {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-XX:+ExitOnOutOfMemoryError",
                    "-Dorg.slf4j.simpleLogger.log.org.apache.ratis=" + opt("ratisLog", "error"),
                    "-cp", System.getProperty("java.class.path"),
                    RaftBenchNode.class.getName(),
                    "node=" + nodeId, "peers=" + peers, "cluster=" + name,
                    "dataDir=" + dataRoot.resolve("node-" + nodeId)));
            nodeArgs.forEach((k, v) -> command.add(k + "=" + v));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(
                            workDir.resolve("logs").resolve(name + "-node-" + nodeId + ".log").toFile()));
            Process process = builder.start();
            processes[nodeId] = process;
            stdins[nodeId] = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> read(nodeId, process), "read-n" + nodeId);
            reader.setDaemon(true);
            reader.start();
        }

        private void read(int nodeId, Process process) {
            Path copy = workDir.resolve("logs").resolve(name + "-node-" + nodeId + ".out");
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
                 Writer out = Files.newBufferedWriter(copy, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                         StandardOpenOption.APPEND)) {
                String line;
                while ((line = in.readLine()) != null) {
                    onLine(nodeId, line);
                    out.write(line);
                    out.write('\n');
                }
            } catch (IOException e) {
                // the process died
            }
        }

        private void onLine(int nodeId, String line) {
            String[] w = line.split(" ");
            try {
                synchronized (this) {
                    switch (w[0]) {
                        case "READY" -> {
                            int p = Integer.parseInt(w[1]);
                            leaders[p] = nodeId;
                            events.add(new Event(nodeId, "READY", p, Long.parseLong(w[2]), 0, null));
                        }
                        case "STEPDOWN" -> {
                            int p = Integer.parseInt(w[1]);
                            if (leaders[p] == nodeId) {
                                leaders[p] = -1;
                            }
                            events.add(new Event(nodeId, "STEPDOWN", p, Long.parseLong(w[2]), 0, null));
                        }
                        case "FIRSTCOMMIT" -> events.add(new Event(nodeId, "FIRSTCOMMIT", Integer.parseInt(w[1]),
                                Long.parseLong(w[2]), 0, null));
                        case "STALL" -> events.add(new Event(nodeId, "STALL", Integer.parseInt(w[1]),
                                Long.parseLong(w[3]), Long.parseLong(w[2]), null));
                        case "STATS" -> {
                            Map<String, String> stats = new HashMap<>();
                            for (int i = 2; i < w.length; i++) {
                                int eq = w[i].indexOf('=');
                                stats.put(w[i].substring(0, eq), w[i].substring(eq + 1));
                            }
                            stats.put("at", w[1]);
                            latestStats.put(nodeId, stats);
                            events.add(new Event(nodeId, "STATS", -1, Long.parseLong(w[1]), 0, stats));
                        }
                        case "STARTED" -> started.put(nodeId, Long.parseLong(w[1]));
                        default -> log(name + " n" + nodeId + ": " + line);
                    }
                }
            } catch (RuntimeException e) {
                log(name + " n" + nodeId + ": unparsable line: " + line + " (" + e + ")");
            }
        }

        void sendAll(String command) throws IOException {
            for (int i = 0; i < NODES; i++) {
                if (processes[i] != null && processes[i].isAlive()) {
                    stdins[i].write(command + "\n");
                    stdins[i].flush();
                }
            }
        }

        /** The applied index of every partition in {@code nodeId}'s latest STATS, or null. */
        synchronized long[] appliedOf(int nodeId) {
            Map<String, String> stats = latestStats.get(nodeId);
            if (stats == null || !stats.containsKey("applied")) {
                return null;
            }
            return Arrays.stream(stats.get("applied").split(",")).mapToLong(Long::parseLong).toArray();
        }

        synchronized String appliedText(int nodeId) {
            Map<String, String> stats = latestStats.get(nodeId);
            return stats == null ? null : stats.get("applied");
        }

        synchronized boolean allLed() {
            return Arrays.stream(leaders).allMatch(l -> l >= 0);
        }

        void awaitAllLed(long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (!allLed()) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(name + ": not every partition got a leader in " + timeoutMs
                            + " ms: " + Arrays.toString(leaders));
                }
                Thread.sleep(50);
            }
        }

        synchronized Map<Integer, Integer> leaderCounts() {
            Map<Integer, Integer> counts = new TreeMap<>();
            for (int l : leaders) {
                counts.merge(l, 1, Integer::sum);
            }
            return counts;
        }

        synchronized Set<Integer> ledBy(int nodeId) {
            Set<Integer> set = new java.util.TreeSet<>();
            for (int p = 0; p < partitions; p++) {
                if (leaders[p] == nodeId) {
                    set.add(p);
                }
            }
            return set;
        }

        /** The node leading the most partitions; ties go round-robin by {@code k}. */
        synchronized int victim(int k) {
            int best = -1;
            int bestCount = -1;
            for (int j = 0; j < NODES; j++) {
                int node = (k + j) % NODES;
                int count = ledBy(node).size();
                if (count > bestCount) {
                    best = node;
                    bestCount = count;
                }
            }
            return best;
        }

        int kill(int nodeId) throws InterruptedException {
            Process process = processes[nodeId];
            process.destroyForcibly(); // SIGKILL on Linux; the exit code 137 = 128 + 9 proves it
            int exit = process.waitFor();
            synchronized (this) {
                for (int p = 0; p < partitions; p++) {
                    if (leaders[p] == nodeId) {
                        leaders[p] = -1;
                    }
                }
                latestStats.remove(nodeId);
                started.remove(nodeId);
            }
            return exit;
        }

        /** Per partition of {@code which}, the earliest {@code type} event at or after {@code fromMs}. */
        synchronized Map<Integer, Long> firstAfter(String type, long fromMs, Set<Integer> which) {
            Map<Integer, Long> first = new TreeMap<>();
            for (Event e : events) {
                if (e.type().equals(type) && e.epochMs() >= fromMs && which.contains(e.partition())) {
                    first.merge(e.partition(), e.epochMs(), Math::min);
                }
            }
            return first;
        }

        synchronized int count(long fromMs, long toMs, String type, Predicate<Event> filter) {
            int n = 0;
            for (Event e : events) {
                if (e.type().equals(type) && e.epochMs() >= fromMs && e.epochMs() < toMs && filter.test(e)) {
                    n++;
                }
            }
            return n;
        }

        /** The longest stall reported in the window (a stall is reported when it ends). */
        synchronized long maxStall(long fromMs, long toMs, Predicate<Integer> partitionFilter) {
            long max = 0;
            for (Event e : events) {
                if (e.type().equals("STALL") && e.epochMs() >= fromMs && e.epochMs() < toMs
                        && partitionFilter.test(e.partition())) {
                    max = Math.max(max, e.gapMs());
                }
            }
            return max;
        }

        synchronized Window window(long fromMs, long toMs, Predicate<Event> filter) {
            Window w = new Window(fromMs, toMs);
            for (Event e : events) {
                // A STATS line covers the second before its stamp.
                if (e.type().equals("STATS") && e.epochMs() > fromMs + 500 && e.epochMs() <= toMs + 500
                        && filter.test(e)) {
                    Map<String, String> s = e.stats();
                    w.histogram.merge(LatencyHistogram.decode(s.get("hist"), Double.parseDouble(s.get("max_ms"))));
                    w.failed += Long.parseLong(s.get("failed"));
                    w.entries += Long.parseLong(s.get("entries"));
                    w.commands += Long.parseLong(s.get("commands"));
                }
            }
            return w;
        }

        /**
         * Waits until the restarted node runs and every partition's leader reports it fewer than
         * {@code lagEntries} entries behind; returns when, or -1 on timeout.
         */
        long awaitCaughtUp(int nodeId, long sinceMs, long lagEntries, long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                synchronized (this) {
                    Long startedAt = started.get(nodeId);
                    if (startedAt != null && allLedInStats() && lagBelow(nodeId, lagEntries, startedAt + 1_000)) {
                        return System.currentTimeMillis();
                    }
                }
                Thread.sleep(100);
            }
            return -1;
        }

        private boolean allLedInStats() {
            int led = 0;
            for (int i = 0; i < NODES; i++) {
                Map<String, String> s = latestStats.get(i);
                if (s == null) {
                    return false;
                }
                led += Integer.parseInt(s.get("led"));
            }
            return led == partitions;
        }

        private boolean lagBelow(int nodeId, long lagEntries, long afterMs) {
            for (int i = 0; i < NODES; i++) {
                Map<String, String> s = latestStats.get(i);
                if (i == nodeId || s == null || Integer.parseInt(s.get("led")) == 0) {
                    continue;
                }
                boolean found = false;
                for (String pair : s.get("lag").split(",")) {
                    String[] kv = pair.split(":");
                    if (kv.length == 2 && Integer.parseInt(kv[0]) == nodeId) {
                        found = true;
                        if (Long.parseLong(kv[1]) >= lagEntries) {
                            return false;
                        }
                    }
                }
                if (!found) {
                    return false;
                }
            }
            // Every node's latest stats must be fresh (after the restarted node started).
            for (int i = 0; i < NODES; i++) {
                Map<String, String> s = latestStats.get(i);
                if (s == null || Long.parseLong(s.get("at")) < afterMs) {
                    return false;
                }
            }
            return true;
        }

        List<Long> pids() {
            List<Long> pids = new ArrayList<>();
            for (Process p : processes) {
                if (p != null) {
                    pids.add(p.pid());
                }
            }
            return pids;
        }

        @Override
        public void close() {
            for (int i = 0; i < NODES; i++) {
                if (processes[i] != null && processes[i].isAlive()) {
                    try {
                        stdins[i].write("QUIT\n");
                        stdins[i].flush();
                    } catch (IOException e) {
                        // dying anyway
                    }
                }
            }
            for (int i = 0; i < NODES; i++) {
                Process p = processes[i];
                if (p == null) {
                    continue;
                }
                try {
                    if (!p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                        p.destroyForcibly().waitFor();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (keepData) {
                log(name + ": data kept in " + dataRoot);
            } else {
                deleteRecursively(dataRoot);
            }
        }
    }

    // ---------------------------------------------------------------- CPU accounting

    /** Samples /proc every second: the machine's busy share and the share of given processes. */
    static final class CpuSampler {
        record Sample(long epochMs, long totalJiffies, long busyJiffies, Map<Long, Long> procJiffies) {
        }

        private final List<Sample> samples = new ArrayList<>();
        private final Set<Long> tracked = new HashSet<>();

        void start() {
            tracked.add(ProcessHandle.current().pid());
            Thread t = new Thread(() -> {
                while (true) {
                    try {
                        sample();
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException | IOException e) {
                        // skip a sample
                    }
                }
            }, "cpu-sampler");
            t.setDaemon(true);
            t.start();
        }

        private void sample() throws IOException {
            String[] cpuLine = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < cpuLine.length && i <= 8; i++) {
                total += Long.parseLong(cpuLine[i]);
            }
            long idle = Long.parseLong(cpuLine[4]) + Long.parseLong(cpuLine[5]);
            Map<Long, Long> procs = new HashMap<>();
            List<Long> pids;
            synchronized (this) {
                pids = new ArrayList<>(tracked);
            }
            // Every java process of ours: the driver and whichever nodes exist now.
            try (Stream<ProcessHandle> children = ProcessHandle.current().children()) {
                children.forEach(c -> pids.add(c.pid()));
            }
            for (long pid : pids) {
                try {
                    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    procs.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (IOException | RuntimeException e) {
                    // gone
                }
            }
            synchronized (this) {
                samples.add(new Sample(System.currentTimeMillis(), total, total - idle, procs));
            }
        }

        /** Machine busy %, this benchmark's % and everyone else's % (100 = all cores) over a window. */
        synchronized Map<String, Object> summary(long fromMs, long toMs) {
            Map<String, Object> m = new LinkedHashMap<>();
            List<Sample> in = samples.stream().filter(s -> s.epochMs() >= fromMs - 1000 && s.epochMs() <= toMs + 1000)
                    .sorted(Comparator.comparingLong(Sample::epochMs)).toList();
            if (in.size() < 2) {
                return m;
            }
            long total = 0;
            long busy = 0;
            long ours = 0;
            for (int i = 1; i < in.size(); i++) {
                Sample a = in.get(i - 1);
                Sample b = in.get(i);
                total += b.totalJiffies() - a.totalJiffies();
                busy += b.busyJiffies() - a.busyJiffies();
                for (Map.Entry<Long, Long> e : b.procJiffies().entrySet()) {
                    Long before = a.procJiffies().get(e.getKey());
                    if (before != null) {
                        ours += e.getValue() - before;
                    }
                }
            }
            if (total == 0) {
                return m;
            }
            m.put("cpu_busy_pct", Math.round(100.0 * busy / total));
            m.put("cpu_bench_pct", Math.round(100.0 * ours / total));
            m.put("cpu_others_pct", Math.max(0, Math.round(100.0 * (busy - ours) / total)));
            return m;
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Prefers quiet moments: waits up to {@code quietWait} [30] s until other processes used less
     * than {@code quietCpu} [15] % of the machine over the last 5 s (0 = no wait), and, when
     * {@code quietLoad} is set, the 1-minute load average is below it (meaningful only before a
     * cluster starts: the benchmark's own threads count in the load average).
     */
    private void waitForQuiet() throws InterruptedException {
        double quietCpu = Double.parseDouble(opt("quietCpu", "15"));
        double quietLoad = Double.parseDouble(opt("quietLoad", "0"));
        long start = System.currentTimeMillis();
        long deadline = start + intOpt("quietWait", 30) * 1000L;
        Thread.sleep(100);
        while (System.currentTimeMillis() < deadline) {
            long now = System.currentTimeMillis();
            Object others = cpu.summary(now - 5_000, now).get("cpu_others_pct");
            boolean cpuQuiet = quietCpu <= 0 || (others instanceof Long o && o < quietCpu);
            boolean loadQuiet = quietLoad <= 0 || Double.parseDouble(loadavg().split(" ")[0]) < quietLoad;
            if (cpuQuiet && loadQuiet) {
                if (now - start > 1_000) {
                    log("waited " + (now - start) / 1000 + " s for a quiet moment");
                }
                return;
            }
            Thread.sleep(1000);
        }
        long now = System.currentTimeMillis();
        log("machine not quiet (others " + cpu.summary(now - 5_000, now).get("cpu_others_pct") + "% CPU, loadavg "
                + loadavg() + "), measuring anyway");
    }

    static String loadavg() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private synchronized void emit(Map<String, Object> result) throws IOException {
        String json = toJson(result);
        System.out.println(json);
        System.out.flush();
        Files.writeString(outFile, json + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    static String toJson(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map<?, ?> map) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (e.getValue() == null) {
                    continue;
                }
                sb.append(sb.length() == 1 ? "" : ",").append(toJson(e.getKey().toString())).append(':')
                        .append(toJson(e.getValue()));
            }
            return sb.append('}').toString();
        }
        if (value instanceof List<?> list) {
            StringBuilder sb = new StringBuilder("[");
            for (Object o : list) {
                sb.append(sb.length() == 1 ? "" : ",").append(toJson(o));
            }
            return sb.append(']').toString();
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        String s = value.toString().replace("\\", "\\\\").replace("\"", "\\\"");
        return '"' + s + '"';
    }

    static double round2(double v) {
        return Math.round(v * 100.0) / 100.0;
    }

    static void sleepS(int seconds) throws InterruptedException {
        Thread.sleep(seconds * 1000L);
    }

    static void log(String message) {
        System.err.println(LocalDateTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss.SSS")) + " "
                + message);
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            log("could not delete " + root + ": " + e);
        }
    }

    static {
        Locale.setDefault(Locale.ROOT);
    }
}
