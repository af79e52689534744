package io.cohort.raft;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's own single-thread schedulers (timers, batch linger), which drop work handed to them
 * once they are shut down instead of throwing.
 *
 * <p>Why: a node's close stops these threads before it closes its Raft server (Ratis must not call
 * back into a node whose threads run on), so Ratis can still report a leadership, a step-down or a
 * closed replica in between, on its own threads, and Cohort's callbacks hand work to these
 * schedulers. With the JDK's default policy that threw RejectedExecutionException into Ratis
 * ("StateMachineUpdater caught a Throwable", seen in mvn -B verify); work for a closing node is
 * moot, so it is dropped here, once, for every caller. A rejection while the scheduler runs cannot
 * happen (its queue is unbounded) and would still throw.
 */
final class DaemonScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonScheduler.class);

    private DaemonScheduler() {
    }

    /** A single daemon thread named {@code threadName}. */
    static ScheduledExecutorService create(String threadName) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            return thread;
        }, (task, pool) -> {
            if (!pool.isShutdown()) {
                throw new RejectedExecutionException(threadName + " refused a task while running");
            }
            LOG.debug("{}: a task handed over after the node began closing was dropped", threadName);
        });
        return executor;
    }
}
