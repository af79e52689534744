package io.cohort.bench;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Which generation each member of a group holds an assignment of, as the members' rebalance
 * listeners report it; detects the moment every one of the first {@code size} members holds an
 * assignment (non-empty, if required) of one and the same generation newer than {@code minGeneration}.
 */
final class GenerationTracker {
    private final int[] generation;
    private final boolean[] nonEmpty;
    private final long[] at;
    private int size;
    private int minGeneration;
    private boolean requireNonEmpty;
    private long doneAtNanos;
    private int doneGeneration;
    private CountDownLatch done = new CountDownLatch(1);

    GenerationTracker(int capacity) {
        generation = new int[capacity];
        nonEmpty = new boolean[capacity];
        at = new long[capacity];
        Arrays.fill(generation, -1);
    }

    /** Starts waiting for the first {@code size} members to agree on a generation above {@code minGeneration}. */
    synchronized void arm(int size, int minGeneration, boolean requireNonEmpty) {
        this.size = size;
        this.minGeneration = minGeneration;
        this.requireNonEmpty = requireNonEmpty;
        this.doneAtNanos = 0;
        this.done = new CountDownLatch(1);
        check();
    }

    /** A member completed a rebalance: it holds this generation's assignment (maybe empty). */
    synchronized void assigned(int index, int generationId, boolean hasPartitions) {
        generation[index] = generationId;
        nonEmpty[index] = hasPartitions;
        at[index] = System.nanoTime();
        check();
    }

    /** A member gave up its assignment (eager revocation before a rejoin, or lost). */
    synchronized void revoked(int index) {
        generation[index] = -1;
        nonEmpty[index] = false;
    }

    private void check() {
        if (done.getCount() == 0 || size == 0) {
            return;
        }
        int g = generation[0];
        if (g <= minGeneration) {
            return;
        }
        long last = 0;
        for (int i = 0; i < size; i++) {
            if (generation[i] != g || (requireNonEmpty && !nonEmpty[i])) {
                return;
            }
            last = Math.max(last, at[i]);
        }
        doneAtNanos = last;
        doneGeneration = g;
        done.countDown();
    }

    /** Waits for the condition; the nanoTime at which the last member got its assignment, or -1 on timeout. */
    long await(long timeoutMs) throws InterruptedException {
        CountDownLatch latch;
        synchronized (this) {
            latch = done;
        }
        if (!latch.await(timeoutMs, TimeUnit.MILLISECONDS)) {
            return -1;
        }
        synchronized (this) {
            return doneAtNanos;
        }
    }

    synchronized int doneGeneration() {
        return doneGeneration;
    }

    /** For a timeout message: how many of the members hold which generation. */
    synchronized String describe() {
        java.util.Map<Integer, Integer> byGen = new java.util.TreeMap<>();
        int empty = 0;
        for (int i = 0; i < size; i++) {
            byGen.merge(generation[i], 1, Integer::sum);
            if (!nonEmpty[i]) {
                empty++;
            }
        }
        return "members by generation " + byGen + ", " + empty + " without partitions";
    }
}
