package io.cohort.client;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where every consumer-protocol member of the JVM sends its heartbeats: one timer thread that
 * keeps the schedule, and a pool of call threads that grows only while calls block at the same
 * time (a coordinator failover) and shrinks when idle. Fifty members heartbeating every few
 * seconds need a thread or two, not fifty. Threads are daemons: the executor lives as long as the JVM.
 */
final class ConsumerHeartbeatExecutor {
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
        this.calls = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> Membership.daemon(r, "cohort-consumer-heartbeat-" + threads.incrementAndGet()));
    }

    static ConsumerHeartbeatExecutor shared() {
        return SHARED;
    }

    /** Runs {@code heartbeat} (a blocking call) on a call thread {@code delayNanos} from now. */
    ScheduledFuture<?> schedule(Runnable heartbeat, long delayNanos) {
        return timer.schedule(() -> calls.execute(heartbeat), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
