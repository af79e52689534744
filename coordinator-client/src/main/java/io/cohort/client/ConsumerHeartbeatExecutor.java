package io.cohort.client;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where every consumer-protocol member of the JVM sends its heartbeats: one timer thread that
 * keeps the schedule, and at most {@link #CALL_THREADS} call threads (the calls block: the client's
 * retries sleep) that end when idle. Many members heartbeating every few seconds share them, rather
 * than holding a thread each. A heartbeat that finds every call thread busy waits its turn, so the
 * pool must keep up with the JVM's heartbeat rate times the call latency: 500 members at a 2 s
 * interval send 250 heartbeats a second, more than 16 threads could carry on a loaded 2-core
 * machine: answers to a member came 4-9 s apart, close to a 10 s session, and one member expired
 * in a 500-member ConsumerProtocolFailoverIT run. Threads are daemons: the executor lives as long as the JVM.
 */
final class ConsumerHeartbeatExecutor {
    /**
     * The most heartbeats in flight at once, JVM-wide. A thread is started only when a heartbeat
     * finds none idle, and ends after 30 s idle: the pool holds about as many threads as heartbeats
     * are in flight at once.
     */
    static final int CALL_THREADS = 128;
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
        HandOffQueue queue = new HandOffQueue();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, CALL_THREADS, 30, TimeUnit.SECONDS, queue,
                r -> Membership.daemon(r, "cohort-consumer-heartbeat-" + threads.incrementAndGet()),
                (heartbeat, executor) -> queue.enqueue(heartbeat));
        this.calls = pool;
    }

    /**
     * A work queue that hands a heartbeat to an idle call thread if there is one and otherwise
     * refuses it, so that the pool starts another thread (up to {@link #CALL_THREADS}) rather than
     * queueing behind busy ones; only when every thread is busy does the heartbeat wait in the queue
     * (the pool's rejection handler puts it there).
     */
    private static final class HandOffQueue extends LinkedTransferQueue<Runnable> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean offer(Runnable heartbeat) {
            return tryTransfer(heartbeat);
        }

        void enqueue(Runnable heartbeat) {
            super.offer(heartbeat);
        }
    }

    static ConsumerHeartbeatExecutor shared() {
        return SHARED;
    }

    /** Runs {@code heartbeat} (a blocking call) on a call thread {@code delayNanos} from now. */
    ScheduledFuture<?> schedule(Runnable heartbeat, long delayNanos) {
        return timer.schedule(() -> calls.execute(heartbeat), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
