package io.cohort.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * C committers, each on its own thread, committing partition 0's offset 1, 2, 3, ... synchronously:
 * the next commit is sent when the previous one is acknowledged. Each committer has its own group
 * ({@code <prefix><i>}), or a few groups that it commits to in turn (each with its own client, as
 * one application process per group would have), so that C committers load more partitions than C.
 * Latencies (send to acknowledgement, microseconds) go into an HdrHistogram recorder per committer;
 * measurement windows take its interval histogram. With a gap, each committer waits that long after
 * every acknowledgement (a light load: the cluster idles between commits). {@link #fetchers} makes
 * the same pool read its commits back instead (the fetch workload), {@link #heartbeaters} join each
 * group as its one member and heartbeat (the heartbeat workload).
 */
final class CommitterPool implements AutoCloseable {
    final class Worker implements Runnable {
        final int index;
        /** The committer's first group: the only one of pools made with a group prefix. */
        final String groupId;
        /** One per group, committed to in turn. */
        final List<Target.Committer> committers;
        final Recorder recorder = new Recorder(3);
        final AtomicLong failures = new AtomicLong();
        /** The highest offset acknowledged to this committer for its first group. */
        volatile long lastAcked;
        /** nanoTime of the latest acknowledgement. */
        volatile long lastAckNanos;
        volatile String lastError;
        private long[] acks = new long[1024];
        private int ackCount;

        Worker(int index, String groupId, List<Target.Committer> committers) {
            this.index = index;
            this.groupId = groupId;
            this.committers = committers;
        }

        @Override
        public void run() {
            long[] next = new long[committers.size()];
            if (op == CommitWorkload.Op.FETCH && !commitOnceEach(next)) {
                return;
            }
            if (op == CommitWorkload.Op.HEARTBEAT && !joinEach()) {
                return;
            }
            int turn = 0;
            while (!stop.get()) {
                int slot = turn;
                turn = (turn + 1) % committers.size();
                long offset = op == CommitWorkload.Op.COMMIT ? ++next[slot] : next[slot];
                long t0 = System.nanoTime();
                try {
                    switch (op) {
                        case COMMIT -> committers.get(slot).commit(offset);
                        case FETCH -> {
                            long fetched = committers.get(slot).fetch();
                            if (fetched != offset) {
                                throw new IllegalStateException("fetched offset " + fetched + " of a group whose"
                                        + " acknowledged commit is " + offset);
                            }
                        }
                        case HEARTBEAT -> committers.get(slot).heartbeat();
                    }
                    long t1 = System.nanoTime();
                    recorder.recordValue(Math.max(1, (t1 - t0) / 1_000));
                    if (slot == 0) {
                        lastAcked = offset;
                    }
                    lastAckNanos = t1;
                    if (gapNanos > 0) {
                        // The workload's think time, not a wait for a condition: nothing to await.
                        LockSupport.parkNanos(gapNanos);
                    }
                    if (recordAcks) {
                        synchronized (this) {
                            if (ackCount == acks.length) {
                                acks = Arrays.copyOf(acks, acks.length * 2);
                            }
                            acks[ackCount++] = t1;
                        }
                    }
                } catch (Exception e) {
                    if (stop.get()) {
                        return;
                    }
                    failures.incrementAndGet();
                    lastError = e.toString();
                }
            }
        }

        /**
         * A fetcher's set-up: commits offset 1 to each of its groups (retrying until acknowledged), so
         * that every fetch has an acknowledged commit to read; false if stopped first.
         */
        private boolean commitOnceEach(long[] committed) {
            for (int slot = 0; slot < committers.size(); slot++) {
                while (committed[slot] == 0) {
                    if (stop.get()) {
                        return false;
                    }
                    try {
                        committers.get(slot).commit(1);
                        committed[slot] = 1;
                    } catch (Exception e) {
                        lastError = e.toString();
                    }
                }
            }
            return true;
        }

        /**
         * A heartbeater's set-up: joins each of its groups as the group's one member (retrying until
         * it is in a generation), so that every heartbeat has a member to keep alive; false if
         * stopped first.
         */
        private boolean joinEach() {
            for (Target.Committer committer : committers) {
                while (true) {
                    if (stop.get()) {
                        return false;
                    }
                    try {
                        committer.join();
                        break;
                    } catch (Exception e) {
                        lastError = e.toString();
                    }
                }
            }
            return true;
        }

        /** The acknowledgement times recorded since the last call, and forgets them. */
        synchronized long[] takeAcks() {
            long[] out = Arrays.copyOf(acks, ackCount);
            ackCount = 0;
            return out;
        }
    }

    /** One measurement window's figures, over every committer. */
    record Window(long startNanos, long endNanos, Histogram latencyUs, long failures) {
        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }
    }

    private final long gapNanos;
    /** What each worker does in its loop: commit, fetch ({@link #fetchers}) or heartbeat ({@link #heartbeaters}). */
    private final CommitWorkload.Op op;
    private final List<Worker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean recordAcks;
    private long windowStart;
    private long failuresAtWindowStart;

    /** Creates {@code count} committers of one group each, {@code <groupPrefix><i>}, and starts them. */
    CommitterPool(Target target, int count, String groupPrefix) {
        this(target, prefixed(count, groupPrefix), 0);
    }

    /** Creates one committer per element of {@code groupsPerCommitter}, committing back to back. */
    CommitterPool(Target target, List<List<String>> groupsPerCommitter) {
        this(target, groupsPerCommitter, 0);
    }

    /**
     * Creates one committer per element of {@code groupsPerCommitter} (clients connect lazily) and starts them;
     * each waits {@code gapMs} after every acknowledgement.
     */
    CommitterPool(Target target, List<List<String>> groupsPerCommitter, int gapMs) {
        this(target, groupsPerCommitter, gapMs, CommitWorkload.Op.COMMIT);
    }

    /**
     * The fetch workload's pool: one fetcher per element of {@code groupsPerFetcher}, each committing
     * offset 1 to its groups once, then fetching them in turn synchronously (a fetch that does not
     * read the acknowledged 1 counts as failed); latencies are the fetches'.
     */
    static CommitterPool fetchers(Target target, List<List<String>> groupsPerFetcher, int gapMs) {
        return new CommitterPool(target, groupsPerFetcher, gapMs, CommitWorkload.Op.FETCH);
    }

    /**
     * The heartbeat workload's pool: one heartbeater per element of {@code groupsPerHeartbeater},
     * each joining its groups once as their one member, then heartbeating them in turn synchronously
     * (a heartbeat not answered NONE counts as failed); latencies are the heartbeats'.
     */
    static CommitterPool heartbeaters(Target target, List<List<String>> groupsPerHeartbeater, int gapMs) {
        return new CommitterPool(target, groupsPerHeartbeater, gapMs, CommitWorkload.Op.HEARTBEAT);
    }

    private CommitterPool(Target target, List<List<String>> groupsPerCommitter, int gapMs, CommitWorkload.Op op) {
        this.gapNanos = TimeUnit.MILLISECONDS.toNanos(gapMs);
        this.op = op;
        for (int i = 0; i < groupsPerCommitter.size(); i++) {
            List<String> groups = groupsPerCommitter.get(i);
            List<Target.Committer> committers = new ArrayList<>();
            for (String group : groups) {
                committers.add(target.committer(group));
            }
            workers.add(new Worker(i, groups.get(0), committers));
        }
        for (Worker w : workers) {
            Thread t = new Thread(w, op.threadName + w.index);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
    }

    private static List<List<String>> prefixed(int count, String groupPrefix) {
        List<List<String>> groups = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            groups.add(List.of(groupPrefix + i));
        }
        return groups;
    }

    List<Worker> workers() {
        return workers;
    }

    long totalFailures() {
        return workers.stream().mapToLong(w -> w.failures.get()).sum();
    }

    /** Starts a window: forgets every latency recorded before now. */
    void beginWindow() {
        for (Worker w : workers) {
            w.recorder.getIntervalHistogram();
        }
        failuresAtWindowStart = totalFailures();
        windowStart = System.nanoTime();
    }

    Window endWindow() {
        long end = System.nanoTime();
        Histogram total = new Histogram(3);
        for (Worker w : workers) {
            total.add(w.recorder.getIntervalHistogram());
        }
        return new Window(windowStart, end, total, totalFailures() - failuresAtWindowStart);
    }

    /** From now on every acknowledgement time is kept (failover timelines), until {@link #stopRecordingAcks}. */
    void startRecordingAcks() {
        for (Worker w : workers) {
            w.takeAcks();
        }
        recordAcks = true;
    }

    /** Stops recording; returns each committer's acknowledgement times (nanoTime, ascending). */
    List<long[]> stopRecordingAcks() {
        recordAcks = false;
        List<long[]> out = new ArrayList<>();
        for (Worker w : workers) {
            out.add(w.takeAcks());
        }
        return out;
    }

    @Override
    public void close() {
        stop();
    }

    /** Stops every committer, waits for each thread to finish its current commit, closes the clients. */
    void stop() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stop.set(true);
        for (Thread t : threads) {
            try {
                t.join(90_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t.isAlive()) {
                Machine.log("committer thread " + t.getName() + " still busy after 90 s");
            }
        }
        for (Worker w : workers) {
            for (Target.Committer committer : w.committers) {
                try {
                    committer.close();
                } catch (RuntimeException e) {
                    // Closing is not measured.
                }
            }
        }
    }
}
