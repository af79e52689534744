package io.cohort.raft;

import java.util.concurrent.ForkJoinPool;

/**
 * Keeps Ratis off one thread per task on small machines.
 *
 * <p>The JVM sizes the common ForkJoinPool to (cores - 1): 1 on a 2-core machine. With a
 * parallelism of 1, {@code CompletableFuture}'s {@code *Async} methods that take no executor do not
 * use the pool at all but start a new thread for every task. Ratis's follower append path and its
 * log worker use them for every AppendEntries: a profile of a 2-core node under commit load showed
 * 180-210 thread starts per second per node, which cost more CPU than the commits themselves.
 * {@link #ensure()} must run before anything touches {@code CompletableFuture}, so
 * {@code CohortServerMain} calls it first; embedders can pass
 * {@code -Djava.util.concurrent.ForkJoinPool.common.parallelism=2} instead.
 */
public final class CommonPoolParallelism {
    public static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";
    public static final int MIN = 2;

    private CommonPoolParallelism() {
    }

    /** Raises the common pool's parallelism to {@value #MIN} unless configured otherwise. */
    public static void ensure() {
        if (System.getProperty(PROPERTY) == null && Runtime.getRuntime().availableProcessors() - 1 < MIN) {
            System.setProperty(PROPERTY, Integer.toString(MIN));
        }
    }

    /** True when {@code CompletableFuture} spawns a thread per async task in this JVM. */
    static boolean threadPerTask() {
        return ForkJoinPool.getCommonPoolParallelism() < 2;
    }
}
