package io.cohort.bench;

import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.cluster.ProcessCluster;
import io.cohort.core.StateLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The scale goal of docs/BENCHMARKS.md (Cohort only: the anchor has no such figure): {@code groups}
 * (100,000) simple groups {@code bench-s-<i>} with {@code offsets_per_group} (10) committed offsets
 * each (one commit per group carrying all its partitions, from {@code threads} threads) on 3 nodes
 * with a 1 GiB heap; then per node the heap in use after a full GC, the size of its snapshots and
 * Raft logs; then one node is SIGKILLed and started again, timed until it prints SERVING and until it
 * has caught up; finally a sample of the acknowledged groups is read back and checked.
 *
 * <p>The load is more than one partition holds under the nodes' default memory limits (50,000
 * groups and 500,000 offsets per partition, sized for a 512 MiB heap), so unless {@code --set}
 * gives them, the nodes get limits that fit it ({@link #nodeSettings}), as an operator holding
 * that many groups in few partitions would set them (docs/OPERATIONS.md, "Memory limits").
 */
final class ScaleWorkload {
    static final String NAME = "scale";
    private static final String TOPIC = "bench-topic";
    private static final Pattern SNAPSHOT_TAKEN = Pattern.compile("partition (\\d+): snapshot at .*?(\\d+) bytes[,)]");
    private static final Pattern SNAPSHOT_MS = Pattern.compile("snapshot at .* in (\\d+) ms");
    /**
     * How long a snapshot held its partition's apply thread: the cut of one written beside it, one
     * written on it (asked for), or, in the lines of builds before the writer, the whole snapshot.
     */
    private static final Pattern SNAPSHOT_APPLY_MS = Pattern.compile("snapshot at .*(?:cut in (\\d+) ms on the apply"
            + " thread|on the apply thread in (\\d+) ms|entries after the last\\) in (\\d+) ms)");
    /** A snapshot with entries loaded: not the empty one a new replica starts from (index 0, NewReplicas). */
    private static final Pattern SNAPSHOT_LOADED = Pattern.compile("loaded snapshot at \\(t:\\d+, i:[1-9]");
    /**
     * The node's leader-path warm-up names its throwaway cluster's Raft group: that cluster's lines
     * (its snapshots, on threads named after the group) share the node's log and are not counted.
     */
    private static final Pattern WARMUP_GROUP = Pattern.compile("leader-path warm-up: .*\\(Raft (group-[0-9A-Fa-f]+)\\)");

    private ScaleWorkload() {
    }

    /**
     * The per-partition limits the load needs: {@code groups} over {@code partitions} (half as much
     * again above P = 1, for the hash's uneven spread), never below the defaults; a limit given
     * with {@code --set} is kept.
     */
    static Map<String, String> nodeSettings(BenchOptions o, int partitions) {
        long groupsPerPartition = partitions == 1 ? o.groups() : (long) Math.ceil(o.groups() * 1.5 / partitions);
        Map<String, String> settings = new LinkedHashMap<>();
        if (!o.cohortSettings().containsKey(StateLimits.MAX_GROUPS_PER_PARTITION)) {
            settings.put(StateLimits.MAX_GROUPS_PER_PARTITION,
                    Long.toString(Math.max(StateLimits.DEFAULT_MAX_GROUPS_PER_PARTITION, groupsPerPartition)));
        }
        if (!o.cohortSettings().containsKey(StateLimits.MAX_OFFSETS_PER_PARTITION)) {
            settings.put(StateLimits.MAX_OFFSETS_PER_PARTITION, Long.toString(Math.max(
                    StateLimits.DEFAULT_MAX_OFFSETS_PER_PARTITION, groupsPerPartition * o.offsetsPerGroup())));
        }
        return settings;
    }

    static void run(CohortTarget target, BenchOptions o, Results results) throws Exception {
        ProcessCluster cluster = target.cluster();
        Facts facts = Facts.start(target);
        Map<String, Object> line = results.line("cohort", NAME);
        line.put("groups", o.groups());
        line.put("offsets_per_group", o.offsetsPerGroup());
        line.put("offsets", (long) o.groups() * o.offsetsPerGroup());

        // 1. Load.
        Machine.log("cohort scale: committing " + o.groups() + " groups x " + o.offsetsPerGroup() + " offsets from "
                + o.scaleThreads() + " threads over " + o.scaleClients() + " clients");
        List<CohortClient> clients = new ArrayList<>();
        for (int i = 0; i < o.scaleClients(); i++) {
            clients.add(target.newClient("bench-scale-" + i));
        }
        // Groups never acknowledged (3 attempts each): the read-back below checks only what was.
        Set<Long> unacknowledged = ConcurrentHashMap.newKeySet();
        AtomicLong nextGroup = new AtomicLong();
        AtomicLong done = new AtomicLong();
        // Each acknowledged commit's latency (send to acknowledgement, microseconds).
        Recorder latencies = new Recorder(3);
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(o.scaleThreads());
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < o.scaleThreads(); t++) {
            CohortClient client = clients.get(t % clients.size());
            futures.add(pool.submit(() -> {
                for (long g = nextGroup.getAndIncrement(); g < o.groups(); g = nextGroup.getAndIncrement()) {
                    String group = "bench-s-" + g;
                    Map<TopicPartition, OffsetAndMetadata> offsets = offsetsOf(g, o.offsetsPerGroup());
                    boolean ok = false;
                    for (int attempt = 0; attempt < 3 && !ok; attempt++) {
                        try {
                            long sent = System.nanoTime();
                            client.commitOffsets(group, offsets);
                            latencies.recordValue(Math.max(1, (System.nanoTime() - sent) / 1_000));
                            ok = true;
                        } catch (RuntimeException e) {
                            Machine.log("cohort scale: commit of " + group + " failed: " + e.getMessage());
                        }
                    }
                    if (!ok) {
                        unacknowledged.add(g);
                    }
                    long n = done.incrementAndGet();
                    if (n % 20_000 == 0) {
                        Machine.log("cohort scale: " + n + " groups committed");
                    }
                }
            }));
        }
        pool.shutdown();
        for (Future<?> f : futures) {
            f.get();
        }
        double loadS = (System.nanoTime() - t0) / 1e9;
        clients.forEach(CohortClient::close);
        line.put("load_s", Json.round(loadS, 1));
        line.put("load_commits_per_s", Json.round(o.groups() / loadS, 0));
        line.put("load_offsets_per_s", Json.round((double) o.groups() * o.offsetsPerGroup() / loadS, 0));
        line.put("failed_commits", unacknowledged.size());
        Histogram load = latencies.getIntervalHistogram();
        line.put("load_commit_p50_ms", CommitWorkload.ms(load.getValueAtPercentile(50)));
        line.put("load_commit_p99_ms", CommitWorkload.ms(load.getValueAtPercentile(99)));
        line.put("load_commit_p999_ms", CommitWorkload.ms(load.getValueAtPercentile(99.9)));
        line.put("load_commit_max_ms", CommitWorkload.ms(load.getMaxValue()));
        for (int id : cluster.nodeIds()) {
            cluster.awaitCaughtUp(id, Duration.ofSeconds(o.catchUpTimeoutS()));
        }

        // 2. Heap after a full GC, snapshots and logs on disk.
        List<Object> heap = new ArrayList<>();
        List<Object> snapshotBytes = new ArrayList<>();
        List<Object> raftLogBytes = new ArrayList<>();
        for (int id : cluster.nodeIds()) {
            heap.add(heapAfterGcMb(cluster, id));
            long[] disk = diskUsage(cluster.dataDir(id));
            snapshotBytes.add(disk[0]);
            raftLogBytes.add(disk[1]);
        }
        line.put("heap_used_mb", heap);
        line.put("heap_used_mb_max", heap.stream().filter(h -> h instanceof Double).mapToDouble(h -> (Double) h).max()
                .orElse(-1));
        line.put("snapshot_bytes", snapshotBytes);
        line.put("raft_log_bytes", raftLogBytes);
        Map<String, Object> snapshots = snapshotLog(cluster);
        line.putAll(snapshots);

        // 3. Restart of one node: the one leading partition 0 (its preferred node).
        int victim = cluster.nodeIds().iterator().next();
        Machine.log("cohort scale: SIGKILL node " + victim + ", start it again");
        long logLinesBefore = countLines(cluster, victim, SNAPSHOT_LOADED);
        cluster.kill(victim);
        long tStart = System.nanoTime();
        cluster.start(victim);
        double servingLineMs = (System.nanoTime() - tStart) / 1e6;
        cluster.awaitCaughtUp(victim, Duration.ofSeconds(o.catchUpTimeoutS()));
        double caughtUpMs = (System.nanoTime() - tStart) / 1e6;
        line.put("restarted_node", victim);
        line.put("restart_to_serving_line_ms", Json.round(servingLineMs, 0));
        line.put("restart_to_serving_ms", Json.round(caughtUpMs, 0));
        line.put("restart_loaded_snapshots", countLines(cluster, victim, SNAPSHOT_LOADED) - logLinesBefore);
        line.put("heap_used_mb_after_restart", heapAfterGcMb(cluster, victim));

        // 4. Read a sample back.
        int verified = 0;
        int mismatched = 0;
        Random random = new Random(42);
        try (CohortClient reader = target.newClient("bench-scale-verify")) {
            for (int i = 0; i < Math.min(o.scaleVerify(), o.groups()); i++) {
                long g = random.nextInt(o.groups());
                if (unacknowledged.contains(g)) {
                    continue;
                }
                Map<TopicPartition, OffsetAndMetadata> fetched = reader.fetchOffsets("bench-s-" + g);
                if (!fetched.equals(offsetsOf(g, o.offsetsPerGroup()))) {
                    mismatched++;
                }
                verified++;
            }
        }
        line.put("verified_groups", verified);
        line.put("verify_mismatches", mismatched);
        line.put("warmup_s", 0);
        line.put("measure_s", Json.round(loadS, 1));
        facts.finish(line);
        line.put("cluster", target.describe());
        results.emit(line);
        if (!unacknowledged.isEmpty()) {
            results.fail("cohort", NAME, unacknowledged.size() + " groups could not be committed (3 attempts each)");
        }
        if (mismatched > 0) {
            results.fail("cohort", NAME, mismatched + " of " + verified + " sampled acknowledged groups read back "
                    + "other offsets than were acknowledged");
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> offsetsOf(long group, int partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(group * 100 + p + 1));
        }
        return offsets;
    }

    /**
     * The node's heap in use after a full collection: {@code jcmd <pid> GC.run}, then the node's own
     * {@code jvm_memory_used_bytes{area="heap"}}; the string "unavailable: ..." if either fails.
     */
    static Object heapAfterGcMb(ProcessCluster cluster, int id) {
        try {
            Machine.run(List.of(Machine.jdkTool("jcmd"), String.valueOf(cluster.pid(id)), "GC.run"), 120);
            String metrics = NodeMetrics.scrape(cluster.metricsPort(id));
            double bytes = NodeMetrics.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\"");
            return Json.round(bytes / (1024.0 * 1024.0), 1);
        } catch (IOException | RuntimeException e) {
            return "unavailable: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * {snapshot bytes (the newest snapshot of each partition), everything else} of a running node's
     * data dir. The node renames and deletes files while we look (Ratis's raft-meta.tmp, snapshot
     * temp files, purged segments): a file that vanished is skipped.
     */
    static long[] diskUsage(Path dataDir) throws IOException {
        Map<Path, Path> newestSnapshot = new HashMap<>();
        Map<Path, Long> sizes = new HashMap<>();
        long[] other = {0};
        Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                String name = f.getFileName().toString();
                boolean inSm = f.getParent() != null && f.getParent().getFileName().toString().equals("sm");
                if (inSm && name.startsWith("snapshot.") && !name.endsWith(".md5") && !name.endsWith(".tmp")) {
                    sizes.put(f, attrs.size());
                    newestSnapshot.merge(f.getParent(), f, (a, b) -> snapshotIndex(a) >= snapshotIndex(b) ? a : b);
                } else if (!inSm) {
                    other[0] += attrs.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        long snapshots = 0;
        for (Path f : newestSnapshot.values()) {
            snapshots += sizes.get(f);
        }
        return new long[] {snapshots, other[0]};
    }

    private static long snapshotIndex(Path file) {
        String name = file.getFileName().toString(); // snapshot.<term>_<index>
        try {
            return Long.parseLong(name.substring(name.lastIndexOf('_') + 1));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** What the node logs say about snapshots: how many were taken, and their durations if logged. */
    private static Map<String, Object> snapshotLog(ProcessCluster cluster) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        long taken = 0;
        List<Long> durations = new ArrayList<>();
        List<Long> applyHolds = new ArrayList<>();
        for (int id : cluster.nodeIds()) {
            for (String l : ownLines(logLines(cluster, id))) {
                if (SNAPSHOT_TAKEN.matcher(l).find()) {
                    taken++;
                }
                Matcher ms = SNAPSHOT_MS.matcher(l);
                if (ms.find()) {
                    durations.add(Long.parseLong(ms.group(1)));
                }
                Matcher hold = SNAPSHOT_APPLY_MS.matcher(l);
                if (hold.find()) {
                    for (int g = 1; g <= hold.groupCount(); g++) {
                        if (hold.group(g) != null) {
                            applyHolds.add(Long.parseLong(hold.group(g)));
                        }
                    }
                }
            }
        }
        m.put("snapshots_taken", taken);
        // "snapshot at <term/index> (... bytes) in <ms> ms": the longest snapshot any node took.
        m.put("snapshot_ms", durations.isEmpty() ? null : durations.stream().mapToLong(Long::longValue).max().getAsLong());
        // The longest any snapshot held its partition's commits (the apply thread's part of it).
        m.put("snapshot_apply_hold_ms", applyHolds.isEmpty() ? null
                : applyHolds.stream().mapToLong(Long::longValue).max().getAsLong());
        return m;
    }

    private static long countLines(ProcessCluster cluster, int id, Pattern pattern) throws IOException {
        return ownLines(logLines(cluster, id)).stream().filter(l -> pattern.matcher(l).find()).count();
    }

    /** {@code lines} without those of the warm-up's throwaway cluster ({@link #WARMUP_GROUP}). */
    private static List<String> ownLines(List<String> lines) {
        List<String> warmupGroups = new ArrayList<>();
        for (String l : lines) {
            Matcher m = WARMUP_GROUP.matcher(l);
            if (m.find()) {
                warmupGroups.add(m.group(1));
            }
        }
        return lines.stream().filter(l -> warmupGroups.stream().noneMatch(l::contains)).toList();
    }

    private static List<String> logLines(ProcessCluster cluster, int id) throws IOException {
        List<String> lines = new ArrayList<>();
        Path dir = cluster.logDir(id);
        if (!Files.isDirectory(dir)) {
            return lines;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                if (Files.isRegularFile(f) && f.getFileName().toString().endsWith(".log")) {
                    lines.addAll(Files.readAllLines(f, StandardCharsets.ISO_8859_1));
                }
            }
        }
        return lines;
    }
}
