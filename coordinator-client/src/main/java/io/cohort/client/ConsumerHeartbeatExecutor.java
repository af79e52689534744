package io.cohort.client;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where every consumer-protocol member of the JVM sends its heartbeats: one timer thread that
 * keeps the schedule, and at most {@link #CALL_THREADS} call threads (the calls block: the client's
 * retries sleep) that end when idle. Fifty or five hundred members heartbeating every few seconds
 * share them, rather than holding a thread each; a heartbeat that finds every call thread busy (all
 * blocked in retries during a failover) waits its turn, which delays it by at most a few retry
 * budgets, well inside the session timeout. Threads are daemons: the executor lives as long as the JVM.
 */
final class ConsumerHeartbeatExecutor {
    /** The most heartbeats in flight at once, JVM-wide. */
    static final int CALL_THREADS = 16;
    private static final ConsumerHeartbeatExecutor SHARED = new ConsumerHeartbeatExecutor();

    private final ScheduledExecutorService timer;
    private final ExecutorService calls;

    private ConsumerHeartbeatExecutor() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
                r -> Membership.daemon(r, "cohort-consumer-heartbeat-timer"));
        // Cancelled heartbeats (rescheduled sooner) leave the queue at once.
        scheduler.setRemoveOnCancelPolicy(true);
        this.timer = scheduler;
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(CALL_THREADS, CALL_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> Membership.daemon(r, "cohort-consumer-heartbeat-" + threads.incrementAndGet()));
        pool.allowCoreThreadTimeOut(true);
        this.calls = pool;
    }

    static ConsumerHeartbeatExecutor shared() {
        return SHARED;
    }

    /** Runs {@code heartbeat} (a blocking call) on a call thread {@code delayNanos} from now. */
    ScheduledFuture<?> schedule(Runnable heartbeat, long delayNanos) {
        return timer.schedule(() -> calls.execute(heartbeat), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
