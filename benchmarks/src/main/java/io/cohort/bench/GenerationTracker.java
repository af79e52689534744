package io.cohort.bench;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Which generation each member of a group holds an assignment of, as the members' rebalance
 * listeners report it; detects the moment every one of the first {@code size} members holds an
 * assignment (non-empty, if required) of one and the same generation newer than {@code minGeneration}.
 * With the consumer protocol ({@link #armConsumer}) the members report their member epoch and the
 * partitions they own instead, see {@link ConsumerDone}.
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
    /** Consumer protocol: what each member owns now (partition numbers), else unused. */
    private final java.util.List<java.util.Set<Integer>> owned;
    private ConsumerDone consumer;
    /** Consumer protocol: where the last state change was reported ("listener" or "poll"). */
    private String lastSource = "";

    GenerationTracker(int capacity) {
        generation = new int[capacity];
        nonEmpty = new boolean[capacity];
        at = new long[capacity];
        Arrays.fill(generation, -1);
        owned = new java.util.ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            owned.add(java.util.Set.of());
        }
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

    /**
     * Consumer protocol: starts waiting for {@link ConsumerDone} over the first {@code size} members
     * and {@code partitions} partitions; {@code newMember} (or -1) must hold an epoch above
     * {@code minEpoch}.
     */
    synchronized void armConsumer(int size, int partitions, int newMember, int minEpoch, boolean requireNonEmpty) {
        this.size = size;
        this.requireNonEmpty = requireNonEmpty;
        this.doneAtNanos = 0;
        this.done = new CountDownLatch(1);
        this.consumer = new ConsumerDone(partitions, newMember, minEpoch);
        checkConsumer(System.nanoTime());
    }

    /**
     * Consumer protocol: member {@code index} holds member epoch {@code epoch} (-1: not in the group)
     * and owns {@code partitions}; reported by its rebalance listener and after each poll, so
     * repeated reports of an unchanged state are normal.
     */
    synchronized void owns(int index, int epoch, java.util.Set<Integer> partitions, String source) {
        if (generation[index] == epoch && owned.get(index).equals(partitions)) {
            return;
        }
        lastSource = source;
        long now = System.nanoTime();
        generation[index] = epoch;
        owned.set(index, java.util.Set.copyOf(partitions));
        nonEmpty[index] = !partitions.isEmpty();
        at[index] = now;
        if (consumer != null) {
            checkConsumer(now);
        }
    }

    /**
     * Consumer protocol's "done", the same for Cohort and Kafka: every partition 0..P-1 is owned by
     * exactly one of the first {@code size} members as they report it, every one of them is in the
     * group (epoch > 0; non-empty if required), and {@code newMember} holds an epoch above
     * {@code minEpoch} (its first assignment of the group's new epoch; it may be empty). Members whose
     * partitions do not change learn the new group epoch only at their next heartbeat: the moment
     * every member reports an epoch >= the new member's is recorded apart ({@link #allAtEpochNanos}).
     */
    private static final class ConsumerDone {
        final int partitions;
        final int newMember;
        final int minEpoch;
        long allAtEpochNanos;
        int maxEpoch;
        int minEpochSeen;
        String doneBy = "";

        ConsumerDone(int partitions, int newMember, int minEpoch) {
            this.partitions = partitions;
            this.newMember = newMember;
            this.minEpoch = minEpoch;
        }
    }

    private void checkConsumer(long now) {
        ConsumerDone c = consumer;
        if (done.getCount() == 0) {
            if (c.allAtEpochNanos == 0 && allAtLeast(doneGeneration)) {
                c.allAtEpochNanos = now;
            }
            return;
        }
        if (c.newMember >= 0 && generation[c.newMember] <= c.minEpoch) {
            return;
        }
        int[] holders = new int[c.partitions];
        int max = 0;
        int min = Integer.MAX_VALUE;
        for (int i = 0; i < size; i++) {
            if (generation[i] <= 0 || (requireNonEmpty && !nonEmpty[i])) {
                return;
            }
            max = Math.max(max, generation[i]);
            min = Math.min(min, generation[i]);
            for (int p : owned.get(i)) {
                if (p < 0 || p >= c.partitions || ++holders[p] > 1) {
                    return;
                }
            }
        }
        for (int h : holders) {
            if (h != 1) {
                return;
            }
        }
        doneAtNanos = now;
        doneGeneration = c.newMember >= 0 ? generation[c.newMember] : max;
        c.maxEpoch = max;
        c.minEpochSeen = min;
        c.doneBy = lastSource;
        if (allAtLeast(doneGeneration)) {
            c.allAtEpochNanos = now;
        }
        done.countDown();
    }

    private boolean allAtLeast(int epoch) {
        for (int i = 0; i < size; i++) {
            if (generation[i] < epoch) {
                return false;
            }
        }
        return true;
    }

    /** Consumer protocol: when every member reported an epoch >= {@link #doneGeneration}, 0 if not (yet). */
    synchronized long allAtEpochNanos() {
        return consumer == null ? 0 : consumer.allAtEpochNanos;
    }

    /** Consumer protocol: whether the report that completed "done" came from a "listener" or after a "poll". */
    synchronized String doneBy() {
        return consumer == null ? "" : consumer.doneBy;
    }

    /** Consumer protocol: the highest and lowest member epochs at the moment of "done". */
    synchronized int[] epochRange() {
        return consumer == null ? new int[] {-1, -1} : new int[] {consumer.minEpochSeen, consumer.maxEpoch};
    }

    private void check() {
        if (consumer != null) {
            return;
        }
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
