package io.cohort.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * C committers, each on its own thread with its own client and its own group ({@code <prefix><i>}),
 * committing partition 0's offset 1, 2, 3, ... synchronously: the next commit is sent when the
 * previous one is acknowledged. Latencies (send to acknowledgement, microseconds) go into an
 * HdrHistogram recorder per committer; measurement windows take its interval histogram.
 */
final class CommitterPool implements AutoCloseable {
    final class Worker implements Runnable {
        final int index;
        final String groupId;
        final Target.Committer committer;
        final Recorder recorder = new Recorder(3);
        final AtomicLong failures = new AtomicLong();
        /** The highest offset acknowledged to this committer. */
        volatile long lastAcked;
        /** nanoTime of the latest acknowledgement. */
        volatile long lastAckNanos;
        volatile String lastError;
        private long[] acks = new long[1024];
        private int ackCount;

        Worker(int index, String groupId, Target.Committer committer) {
            this.index = index;
            this.groupId = groupId;
            this.committer = committer;
        }

        @Override
        public void run() {
            long next = 0;
            while (!stop.get()) {
                next++;
                long t0 = System.nanoTime();
                try {
                    committer.commit(next);
                    long t1 = System.nanoTime();
                    recorder.recordValue(Math.max(1, (t1 - t0) / 1_000));
                    lastAcked = next;
                    lastAckNanos = t1;
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

    private final List<Worker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean recordAcks;
    private long windowStart;
    private long failuresAtWindowStart;

    /** Creates the committers (clients connect lazily) and starts them. */
    CommitterPool(Target target, int count, String groupPrefix) {
        for (int i = 0; i < count; i++) {
            workers.add(new Worker(i, groupPrefix + i, target.committer(groupPrefix + i)));
        }
        for (Worker w : workers) {
            Thread t = new Thread(w, "committer-" + w.index);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
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
            try {
                w.committer.close();
            } catch (RuntimeException e) {
                // Closing is not measured.
            }
        }
    }
}
