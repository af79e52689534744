package io.cohort.raft.bench;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.PartitionError;
import io.cohort.core.response.Response;
import io.cohort.core.shard.Result;
import io.cohort.raft.ClusterSpec;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.raft.PartitionListener;
import io.cohort.raft.PartitionStatus;
import io.cohort.raft.ProposalException;
import io.cohort.raft.RaftTuning;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.BufferedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One real Cohort Raft node in its own JVM, with an in-process load generator, for {@link RaftBench}.
 * Not a test: surefire never runs it.
 *
 * <p>Arguments are {@code key=value} pairs (or the same keys as system properties {@code bench.<key>}):
 * <ul>
 *   <li>{@code node}: this node's id; {@code peers}: {@code 0=127.0.0.1:raftPort:clientPort,1=...}
 *   <li>{@code partitions}: P; {@code cluster}: the cluster id
 *   <li>{@code etMin}, {@code etMax}: election timeouts in ms (default: {@link RaftTuning#defaults()})
 *   <li>{@code batch}, {@code inflight}: {@link RaftTuning.Builder#batching} (default: the tuning's own)
 *   <li>{@code committers}: committers per partition this node leads (changeable at run time)
 *   <li>{@code snapshotEvery}: {@link RaftTuning.Builder#snapshotEveryEntries} (default: the tuning's own)
 *   <li>{@code dataDir}: the node's data dir
 * </ul>
 *
 * <p>Load: for every partition p it is leader-ready for, {@code committers} committers, committer i
 * committing a "simple" OffsetCommit (group {@code bench-g-<p>-<i>}, member "", generation -1) of an
 * increasing offset, waiting for the result, and repeating, until the node stops leading p.
 *
 * <p>Stdout carries only machine-readable lines (logs go to stderr):
 * <pre>
 * STARTED &lt;epochMs&gt; node=&lt;id&gt; pid=&lt;pid&gt;
 * READY &lt;p&gt; &lt;epochMs&gt;            leader-ready for p (PartitionListener.onLeaderReady)
 * STEPDOWN &lt;p&gt; &lt;epochMs&gt;         stepped down from p (PartitionListener.onStepDown)
 * FIRSTCOMMIT &lt;p&gt; &lt;epochMs&gt;      first successful commit of p after becoming leader-ready
 * STALL &lt;p&gt; &lt;gapMs&gt; &lt;epochMs&gt;    two successive successful commits of p, here, &gt;= 100 ms apart
 * STATS &lt;epochMs&gt; commits=.. failed=.. p50_ms=.. p99_ms=.. p999_ms=.. max_ms=.. led=.. entries=..
 *       commands=.. lag=&lt;follower&gt;:&lt;max entries behind&gt;,.. applied=&lt;index of p0&gt;,&lt;p1&gt;,..
 *       hist=&lt;bucketUs&gt;:&lt;count&gt;,..
 * </pre>
 * STATS comes every second and covers the commits completed in that second; {@code hist} is the
 * latency histogram of that second ({@link LatencyHistogram} buckets), mergeable by the driver.
 *
 * <p>Stdin takes commands: {@code COMMITTERS <n>} changes committers per led partition.
 */
public final class RaftBenchNode {
    static final long STALL_REPORT_MS = 100;

    private final int nodeId;
    private final int partitions;
    private final PrintStream out;
    private final ExecutorService executor;
    private final AtomicIntegerArray epochs;
    private final AtomicIntegerArray firstCommitPending;
    private final AtomicLongArray lastCommitNanos;
    private final AtomicIntegerArray[] alive;
    private final AtomicLong[][] offsets;
    private volatile int committersPerPartition;
    private volatile CohortRaftNode node;

    private final Object statsLock = new Object();
    private LatencyHistogram histogram = new LatencyHistogram();
    private long failed;

    static final int MAX_COMMITTERS = 1024;

    private RaftBenchNode(int nodeId, int partitions, int committers) {
        this.nodeId = nodeId;
        this.partitions = partitions;
        this.committersPerPartition = committers;
        this.out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false, StandardCharsets.UTF_8);
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "bench-committers");
            t.setDaemon(true);
            return t;
        });
        this.epochs = new AtomicIntegerArray(partitions);
        this.firstCommitPending = new AtomicIntegerArray(partitions);
        this.lastCommitNanos = new AtomicLongArray(partitions);
        this.alive = new AtomicIntegerArray[partitions];
        this.offsets = new AtomicLong[partitions][MAX_COMMITTERS];
        for (int p = 0; p < partitions; p++) {
            alive[p] = new AtomicIntegerArray(MAX_COMMITTERS);
            for (int i = 0; i < MAX_COMMITTERS; i++) {
                offsets[p][i] = new AtomicLong();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        java.util.Locale.setDefault(java.util.Locale.ROOT);
        Map<String, String> opts = parse(args);
        int nodeId = Integer.parseInt(opt(opts, "node", null));
        int partitions = Integer.parseInt(opt(opts, "partitions", "1"));
        List<NodeAddress> peers = new ArrayList<>();
        for (String peer : opt(opts, "peers", null).split(",")) {
            peers.add(NodeAddress.parse(peer));
        }
        ClusterSpec spec = new ClusterSpec(opt(opts, "cluster", "bench"), partitions, peers, GroupConfig.defaults());
        RaftTuning defaults = RaftTuning.defaults();
        RaftTuning.Builder builder = defaults.toBuilder();
        if (opts.containsKey("etMin") || opts.containsKey("etMax")) {
            builder.electionTimeouts(Integer.parseInt(opt(opts, "etMin", null)),
                    Integer.parseInt(opt(opts, "etMax", null)));
        }
        if (opts.containsKey("batch") || opts.containsKey("inflight")) {
            builder.batching(Integer.parseInt(opt(opts, "batch", String.valueOf(defaults.maxBatchCommands()))),
                    Integer.parseInt(opt(opts, "inflight", String.valueOf(defaults.maxInFlightEntries()))));
        }
        if (opts.containsKey("snapshotEvery")) {
            builder.snapshotEveryEntries(Long.parseLong(opt(opts, "snapshotEvery", null)));
        }
        RaftTuning tuning = builder.build();
        int committers = Integer.parseInt(opt(opts, "committers", "8"));
        Path dataDir = Path.of(opt(opts, "dataDir", null));
        System.err.println("bench node " + nodeId + ": " + spec + " " + tuning + " committers=" + committers);

        RaftBenchNode bench = new RaftBenchNode(nodeId, partitions, committers);
        bench.run(spec, dataDir, tuning);
    }

    private void run(ClusterSpec spec, Path dataDir, RaftTuning tuning) throws Exception {
        PartitionListener listener = new PartitionListener() {
            @Override
            public void onLeaderReady(int partition) {
                long now = System.currentTimeMillis();
                epochs.incrementAndGet(partition);
                firstCommitPending.set(partition, 1);
                lastCommitNanos.set(partition, 0);
                line("READY " + partition + " " + now);
                executor.execute(() -> ensureCommitters(partition));
            }

            @Override
            public void onStepDown(int partition) {
                long now = System.currentTimeMillis();
                epochs.incrementAndGet(partition);
                line("STEPDOWN " + partition + " " + now);
            }
        };
        node = CohortRaftNode.start(nodeId, spec, dataDir, tuning, listener);
        line("STARTED " + System.currentTimeMillis() + " node=" + nodeId + " pid=" + ProcessHandle.current().pid());
        // Leader-ready may have been signalled before `node` was assigned: start those committers now.
        for (int p = 0; p < partitions; p++) {
            final int partition = p;
            executor.execute(() -> ensureCommitters(partition));
        }

        ScheduledExecutorService stats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-stats");
            t.setDaemon(true);
            return t;
        });
        long first = 1000 - System.currentTimeMillis() % 1000;
        stats.scheduleAtFixedRate(this::printStats, first, 1000, TimeUnit.MILLISECONDS);

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                // exiting anyway
            }
        }));

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = in.readLine()) != null) {
            String[] words = command.trim().split("\\s+");
            if (words[0].equals("COMMITTERS")) {
                committersPerPartition = Math.min(MAX_COMMITTERS, Integer.parseInt(words[1]));
                for (int p = 0; p < partitions; p++) {
                    final int partition = p;
                    executor.execute(() -> ensureCommitters(partition));
                }
            } else if (words[0].equals("QUIT")) {
                break;
            }
        }
        // The driver went away (or said QUIT): stop.
        System.exit(0);
    }

    /** Starts the committers {@code partition} should have and does not (leader-ready only). */
    private void ensureCommitters(int partition) {
        CohortRaftNode n = node;
        if (n == null || !n.isLeaderReady(partition)) {
            return;
        }
        int epoch = epochs.get(partition);
        int target = committersPerPartition;
        for (int i = 0; i < target; i++) {
            if (alive[partition].compareAndSet(i, 0, 1)) {
                commitNext(partition, i, epoch);
            }
        }
    }

    private boolean shouldRun(int partition, int committer, int epoch) {
        return epochs.get(partition) == epoch && committer < committersPerPartition;
    }

    private void commitNext(int partition, int committer, int epoch) {
        if (!shouldRun(partition, committer, epoch)) {
            alive[partition].set(committer, 0);
            // Raced with a restart of this slot (new epoch or target raised): let ensureCommitters decide.
            if (epochs.get(partition) != epoch || committer < committersPerPartition) {
                executor.execute(() -> ensureCommitters(partition));
            }
            return;
        }
        long offset = offsets[partition][committer].incrementAndGet();
        Command.OffsetCommit commit = new Command.OffsetCommit("bench-g-" + partition + "-" + committer, -1, "", null,
                -1L, List.of(new Command.TopicCommit("bench-topic",
                        List.of(new Command.PartitionCommit(0, offset, -1, null)))),
                Command.OFFSET_COMMIT_LATEST_VERSION);
        long start = System.nanoTime();
        CompletableFuture<Result> future;
        try {
            future = node.submit(partition, commit);
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        future.whenComplete((result, error) -> executor.execute(() -> onDone(partition, committer, epoch, start,
                result, error)));
    }

    private void onDone(int partition, int committer, int epoch, long startNanos, Result result, Throwable error) {
        long now = System.nanoTime();
        if (error == null && isSuccess(result)) {
            long micros = (now - startNanos) / 1_000;
            synchronized (statsLock) {
                histogram.record(micros);
            }
            long previous = lastCommitNanos.getAndSet(partition, now);
            if (firstCommitPending.compareAndSet(partition, 1, 0)) {
                line("FIRSTCOMMIT " + partition + " " + System.currentTimeMillis());
            } else if (previous != 0 && now - previous >= STALL_REPORT_MS * 1_000_000L) {
                line("STALL " + partition + " " + (now - previous) / 1_000_000L + " " + System.currentTimeMillis());
            }
            commitNext(partition, committer, epoch);
            return;
        }
        synchronized (statsLock) {
            failed++;
        }
        Throwable cause = error;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof ProposalException pe && (pe.kind() == ProposalException.Kind.NOT_LEADER
                || pe.kind() == ProposalException.Kind.SHUTTING_DOWN)) {
            // Lost leadership: this committer ends; a new READY starts fresh ones.
            alive[partition].set(committer, 0);
            if (epochs.get(partition) != epoch) {
                executor.execute(() -> ensureCommitters(partition));
            }
            return;
        }
        // NOT_READY, INDETERMINATE or a refused commit: back off a little and retry (OffsetCommit is idempotent).
        CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS, executor)
                .execute(() -> commitNext(partition, committer, epoch));
    }

    private static boolean isSuccess(Result result) {
        Response response = result == null ? null : result.immediateResponse();
        if (!(response instanceof OffsetCommitResponse commit)) {
            return false;
        }
        for (PartitionError.TopicErrors topic : commit.topics()) {
            for (PartitionError partitionError : topic.partitions()) {
                if (partitionError.error() != ErrorCode.NONE) {
                    return false;
                }
            }
        }
        return true;
    }

    private long lastEntries;
    private long lastCommands;

    private void printStats() {
        try {
            LatencyHistogram h;
            long f;
            synchronized (statsLock) {
                h = histogram;
                f = failed;
                histogram = new LatencyHistogram();
                failed = 0;
            }
            CohortRaftNode n = node;
            long entries = 0;
            long commands = 0;
            int led = 0;
            Map<Integer, Long> lag = new TreeMap<>();
            StringBuilder applied = new StringBuilder();
            for (int p = 0; p < partitions; p++) {
                applied.append(p == 0 ? "" : ",").append(n.stateMachine(p).lastAppliedIndex());
                CohortRaftNode.ProposalCounts counts = n.proposalCounts(p);
                entries += counts.entries();
                commands += counts.commands();
                if (n.isLeader(p)) {
                    led++;
                    PartitionStatus status = n.status(p);
                    for (PartitionStatus.Replica replica : status.replicas()) {
                        lag.merge(replica.nodeId(), replica.lagEntries(), Math::max);
                    }
                }
            }
            StringBuilder lagText = new StringBuilder();
            lag.forEach((id, entriesBehind) -> lagText.append(lagText.length() == 0 ? "" : ",")
                    .append(id).append(':').append(entriesBehind));
            line(String.format("STATS %d commits=%d failed=%d p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f led=%d "
                            + "entries=%d commands=%d lag=%s applied=%s hist=%s",
                    System.currentTimeMillis(), h.count(), f, h.percentileMs(50), h.percentileMs(99),
                    h.percentileMs(99.9), h.maxMs(), led, entries - lastEntries, commands - lastCommands,
                    lagText.length() == 0 ? "-" : lagText, applied, h.encode()));
            lastEntries = entries;
            lastCommands = commands;
        } catch (RuntimeException e) {
            e.printStackTrace();
        }
    }

    private void line(String text) {
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> opts = new TreeMap<>();
        System.getProperties().forEach((k, v) -> {
            String key = k.toString();
            if (key.startsWith("bench.")) {
                opts.put(key.substring("bench.".length()), v.toString());
            }
        });
        for (String arg : args) {
            String a = arg.startsWith("--") ? arg.substring(2) : arg;
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("argument '" + arg + "' is not key=value");
            }
            opts.put(a.substring(0, eq), a.substring(eq + 1));
        }
        return opts;
    }

    static String opt(Map<String, String> opts, String key, String defaultValue) {
        String value = opts.getOrDefault(key, defaultValue);
        if (value == null) {
            throw new IllegalArgumentException("missing argument " + key + "=...");
        }
        return value;
    }
}
