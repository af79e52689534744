package io.cohort.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the machine was doing beside a measurement: load average and CPU shares, from /proc. */
final class Machine {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

    private Machine() {
    }

    /** Progress on stderr, so stdout carries only the result lines and the ratio table. */
    static void log(String message) {
        System.err.println("[bench " + LocalTime.now().format(CLOCK) + "] " + message);
        System.err.flush();
    }

    /** The 1, 5 and 15 minute load averages; empty where /proc/loadavg does not exist. */
    static List<Double> loadAvg() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return List.of(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** CPU counters at one instant: the machine's busy and total jiffies, and each given process's. */
    record CpuSnapshot(long nanos, long busy, long total, Map<Long, Long> processTicks) {
        static CpuSnapshot take(Collection<Long> pids) {
            long busy = 0;
            long total = 0;
            try {
                String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                // user nice system idle iowait irq softirq steal
                for (int i = 1; i < cpu.length && i <= 8; i++) {
                    total += Long.parseLong(cpu[i]);
                }
                long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
                busy = total - idle;
            } catch (IOException | RuntimeException e) {
                // Not Linux: no CPU shares.
            }
            Map<Long, Long> ticks = new HashMap<>();
            for (long pid : pids) {
                long pidTicks = NodeCost.cpuTicks(pid);
                // -1: the process is gone (killed in the window): its CPU in the window is not counted as
                // the bench's but falls into cpu_others_pct (its ticks died with it).
                if (pidTicks >= 0) {
                    ticks.put(pid, pidTicks);
                }
            }
            return new CpuSnapshot(System.nanoTime(), busy, total, ticks);
        }

        /**
         * Shares of both cores over [this, end], 100 = every core busy: {@code cpu_busy_pct} (the
         * machine), {@code cpu_bench_pct} (the given processes: the driver and the cluster's nodes),
         * {@code cpu_others_pct} (everyone else; other engineers' builds skew the figures).
         */
        Map<String, Object> sharesUntil(CpuSnapshot end) {
            Map<String, Object> m = new LinkedHashMap<>();
            long total = end.total - total();
            if (total <= 0) {
                return m;
            }
            long busy = end.busy - busy();
            long ours = 0;
            for (Map.Entry<Long, Long> e : end.processTicks.entrySet()) {
                // A process not sampled at the start was started in the window (a node restarted after a
                // kill): all of its CPU is the window's. Counting none of it put a restarted node's
                // start-up, 25-34% of the machine, in cpu_others_pct.
                Long before = processTicks.getOrDefault(e.getKey(), 0L);
                ours += Math.max(0, e.getValue() - before);
            }
            m.put("cpu_busy_pct", Math.round(100.0 * busy / total));
            m.put("cpu_bench_pct", Math.min(100, Math.round(100.0 * ours / total)));
            m.put("cpu_others_pct", Math.max(0, Math.round(100.0 * (busy - ours) / total)));
            return m;
        }
    }

    /** Runs {@code command}, returns its stdout (stderr merged); throws if it fails. */
    static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(timeoutSeconds, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
        }
        String text = new String(out, java.nio.charset.StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ": " + text);
        }
        return text;
    }

    /** The path of a JDK tool (jcmd) beside the running java. */
    static String jdkTool(String name) {
        Path inHome = Path.of(System.getProperty("java.home"), "bin", name);
        return Files.isExecutable(inHome) ? inHome.toString() : name;
    }

    /** Keeps the probe's loop from being optimised away. */
    private static volatile long probeSink;

    /**
     * CPU milliseconds this thread takes for a fixed chain of 100 million dependent multiply-adds: how
     * fast the machine's cores are right now (lower is faster). It sees only the coarsest slow-downs:
     * a register-only loop misses the cache and memory contention of a shared host, which moved a
     * memory-heavy loop's CPU time 1.8x from second to second on the idle test machine while this one
     * stayed within 110-126 ms (docs/BENCHMARKS.md, "Interleaved windows"). The first calls run
     * interpreted and compile the loop: {@link BenchMain} calls it before any measurement.
     */
    static double speedProbeMs() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        long x = probeSink | 1;
        for (int i = 0; i < 100_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        probeSink = x;
        return (threads.getCurrentThreadCpuTime() - start) / 1e6;
    }

    static List<Integer> intList(String text) {
        List<Integer> out = new ArrayList<>();
        Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(s -> out.add(Integer.parseInt(s)));
        return out;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
