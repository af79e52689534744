package io.cohort.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the nodes spent over one measured window, the figures that hold on a busy machine better than
 * throughput does: CPU-seconds per 1,000 commits per node (from /proc/&lt;pid&gt;/stat), thread
 * wake-ups per commit per node (the threads' voluntary context switches, from
 * /proc/&lt;pid&gt;/task/&lt;tid&gt;/status: each is a thread blocking on a lock, a condition, a sleep
 * or I/O, so they count the hand-offs between threads that a commit costs), threads per node
 * (/proc/&lt;pid&gt;/status), and, for Cohort, the leader changes (the sum over partitions of
 * how far the highest Raft term any node reports moved: every election, won or not, takes a new
 * term; pre-votes that fail do not).
 */
final class NodeCost {
    private static final Pattern TERM = Pattern.compile("^cohort_raft_term\\{[^}]*partition=\"(\\d+)\"[^}]*\\}\\s+(\\S+)");
    /** Linux's USER_HZ: /proc reports CPU time in these ticks. */
    private static final long TICKS_PER_SECOND = ticksPerSecond();

    /**
     * The counters at one instant, per node (in the order of {@link Target#nodePids()}): the process's
     * CPU ticks, its JIT compiler threads' ticks, its threads' voluntary context switches, and the
     * highest term of each partition.
     */
    record Snapshot(long nanos, List<Long> pids, List<Long> cpuTicks, List<Long> jitTicks,
                    List<Long> voluntarySwitches, Map<Integer, Long> highestTermByPartition) {
    }

    private NodeCost() {
    }

    static Snapshot take(Target target) {
        List<Long> pids = target.nodePids();
        List<Long> ticks = new ArrayList<>();
        List<Long> jit = new ArrayList<>();
        List<Long> switches = new ArrayList<>();
        for (long pid : pids) {
            ticks.add(cpuTicks(pid));
            ThreadTotals totals = threadTotals(pid);
            jit.add(totals.jitTicks());
            switches.add(totals.voluntarySwitches());
        }
        return new Snapshot(System.nanoTime(), pids, ticks, jit, switches,
                target instanceof CohortTarget cohort ? highestTerms(cohort) : Map.of());
    }

    /**
     * {@code cpu_s_per_1k_commits} (per node, and its max and sum), {@code wakeups_per_commit} (per
     * node, and its sum), {@code threads} (per node, at the end) and {@code leader_changes} between two
     * snapshots, for a window of {@code commits} commits.
     */
    static Map<String, Object> between(Snapshot start, Snapshot end, long commits) {
        Map<String, Object> m = new LinkedHashMap<>();
        List<Double> perNode = new ArrayList<>();
        List<Integer> threads = new ArrayList<>();
        List<Long> jitPct = new ArrayList<>();
        List<Double> wakeups = new ArrayList<>();
        double wakeupsTotal = 0;
        double seconds = (end.nanos() - start.nanos()) / 1e9;
        double sum = 0;
        double max = 0;
        for (int i = 0; i < end.pids().size(); i++) {
            long pid = end.pids().get(i);
            int at = start.pids().indexOf(pid);
            long before = at < 0 ? -1 : start.cpuTicks().get(at);
            long after = end.cpuTicks().get(i);
            threads.add(threads(pid));
            if (at >= 0 && seconds > 0) {
                long jit = end.jitTicks().get(i) - start.jitTicks().get(at);
                jitPct.add(Math.round(100.0 * jit / TICKS_PER_SECOND / seconds));
            }
            if (at >= 0 && commits > 0 && start.voluntarySwitches().get(at) >= 0
                    && end.voluntarySwitches().get(i) >= 0) {
                double perCommit = (end.voluntarySwitches().get(i) - start.voluntarySwitches().get(at))
                        / (double) commits;
                wakeups.add(Json.round(perCommit, 1));
                wakeupsTotal += perCommit;
            }
            if (before < 0 || after < 0 || commits <= 0) {
                continue;
            }
            double perThousand = (after - before) / (double) TICKS_PER_SECOND / commits * 1000.0;
            perNode.add(Json.round(perThousand, 3));
            sum += perThousand;
            max = Math.max(max, perThousand);
        }
        if (!perNode.isEmpty()) {
            m.put("cpu_s_per_1k_commits", perNode);
            m.put("cpu_s_per_1k_commits_max", Json.round(max, 3));
            m.put("cpu_s_per_1k_commits_total", Json.round(sum, 3));
        }
        if (!wakeups.isEmpty()) {
            m.put("wakeups_per_commit", wakeups);
            m.put("wakeups_per_commit_total", Json.round(wakeupsTotal, 1));
        }
        m.put("threads", threads);
        // The JIT compilers' CPU, % of one core per node: well above 0, the code measured is still
        // being compiled (a warm-up too short for this machine's load).
        m.put("jit_cpu_pct", jitPct);
        if (!start.highestTermByPartition().isEmpty() && !end.highestTermByPartition().isEmpty()) {
            long changes = 0;
            for (Map.Entry<Integer, Long> e : end.highestTermByPartition().entrySet()) {
                Long before = start.highestTermByPartition().get(e.getKey());
                if (before != null) {
                    changes += Math.max(0, e.getValue() - before);
                }
            }
            m.put("leader_changes", changes);
        }
        return m;
    }

    /** {@code cpu_pct} (% of one core, per node), {@code threads} and {@code leader_changes} of an idle window. */
    static Map<String, Object> idleBetween(Snapshot start, Snapshot end) {
        Map<String, Object> m = new LinkedHashMap<>();
        double seconds = (end.nanos() - start.nanos()) / 1e9;
        List<Long> cpuPct = new ArrayList<>();
        for (int i = 0; i < end.pids().size(); i++) {
            int at = start.pids().indexOf(end.pids().get(i));
            if (at >= 0 && start.cpuTicks().get(at) >= 0 && end.cpuTicks().get(i) >= 0 && seconds > 0) {
                long ticks = end.cpuTicks().get(i) - start.cpuTicks().get(at);
                cpuPct.add(Math.round(100.0 * ticks / TICKS_PER_SECOND / seconds));
            }
        }
        m.put("cpu_pct", cpuPct);
        Map<String, Object> rest = between(start, end, 0);
        m.put("threads", rest.get("threads"));
        m.put("jit_cpu_pct", rest.get("jit_cpu_pct"));
        if (rest.containsKey("leader_changes")) {
            m.put("leader_changes", rest.get("leader_changes"));
        }
        return m;
    }

    /** utime + stime of {@code pid} in ticks, -1 if it is gone. */
    static long cpuTicks(long pid) {
        try {
            return userPlusSystemTicks(Path.of("/proc/" + pid + "/stat"));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** utime + stime from a process's or thread's stat file. */
    private static long userPlusSystemTicks(Path statFile) throws IOException {
        String stat = Files.readString(statFile);
        // Fields after the command (which may hold spaces) start after the last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /**
     * What one walk over {@code pid}'s threads (/proc/&lt;pid&gt;/task) adds up: the CPU ticks of its
     * JIT compiler threads (HotSpot names them "C1/C2 CompilerThreadN"; 0 if the process is gone) and
     * the voluntary context switches of all its live threads (-1 if the process is gone). Threads that
     * ended during a window take their switches with them, so a window in which threads end
     * under-counts (a steady load starts and ends few).
     */
    record ThreadTotals(long jitTicks, long voluntarySwitches) {
        private static final ThreadTotals GONE = new ThreadTotals(0, -1);
    }

    static ThreadTotals threadTotals(long pid) {
        long jit = 0;
        long switches = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    switches += voluntarySwitchesOf(task);
                    String comm = Files.readString(task.resolve("comm"));
                    if (comm.startsWith("C") && comm.contains("CompilerThre")) {
                        jit += userPlusSystemTicks(task.resolve("stat"));
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended
                }
            }
        } catch (IOException | RuntimeException e) {
            return ThreadTotals.GONE;
        }
        return new ThreadTotals(jit, switches);
    }

    private static long voluntarySwitchesOf(Path task) throws IOException {
        for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
                return Long.parseLong(line.substring("voluntary_ctxt_switches:".length()).trim());
            }
        }
        return 0;
    }

    /** The live threads of {@code pid}, -1 if it is gone. */
    static int threads(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.substring("Threads:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return -1;
    }

    /** Per partition, the highest term any running node reports. */
    static Map<Integer, Long> highestTerms(CohortTarget cohort) {
        Map<Integer, Long> terms = new HashMap<>();
        for (int id : cohort.cluster().runningNodeIds()) {
            String text;
            try {
                text = NodeMetrics.scrape(cohort.cluster().metricsPort(id));
            } catch (IOException | RuntimeException e) {
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            for (String line : text.split("\n")) {
                Matcher m = TERM.matcher(line);
                if (m.find()) {
                    long term = (long) Double.parseDouble(m.group(2));
                    terms.merge(Integer.parseInt(m.group(1)), term, Math::max);
                }
            }
        }
        return terms;
    }

    private static long ticksPerSecond() {
        try {
            return Long.parseLong(Machine.run(List.of("getconf", "CLK_TCK"), 10).trim());
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
