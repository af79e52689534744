package io.cohort.raft;

import io.cohort.core.command.Command;
import io.cohort.core.shard.TimerOp;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader-local timers of one partition (Kafka's CoordinatorTimer): a key, a deadline in leader
 * wall-clock time, and the command to propose when it fires. Timers never mutate state: they
 * propose commands, which the shard re-validates when applied.
 *
 * <p>Only an active (leader-ready) partition runs timers. On becoming leader-ready the node arms
 * every timer the replicated state implies ({@code GroupCoordinatorShard.onLeaderReady}); on losing
 * leadership it cancels them all. Each activation is an epoch, so a timer armed in an earlier
 * leadership never fires into a later one.
 */
final class LeaderTimers {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderTimers.class);

    private final int partition;
    private final ScheduledExecutorService scheduler;
    private final Consumer<Command> propose;
    private final Map<String, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();
    private volatile long epoch;
    private volatile boolean active;

    LeaderTimers(int partition, ScheduledExecutorService scheduler, Consumer<Command> propose) {
        this.partition = partition;
        this.scheduler = scheduler;
        this.propose = propose;
    }

    boolean isActive() {
        return active;
    }

    /** Starts a leadership: cancels anything left and arms {@code initial}. */
    synchronized void activate(List<TimerOp> initial) {
        cancelAll();
        epoch++;
        active = true;
        apply(initial);
    }

    /** Ends the leadership: nothing armed fires any more. */
    synchronized void deactivate() {
        active = false;
        epoch++;
        cancelAll();
    }

    /** Applies schedule/cancel operations; ignored unless active. */
    void apply(List<TimerOp> ops) {
        if (!active || ops.isEmpty()) {
            return;
        }
        long armedEpoch = epoch;
        for (TimerOp op : ops) {
            if (op instanceof TimerOp.Schedule schedule) {
                schedule(schedule, armedEpoch);
            } else {
                ScheduledFuture<?> previous = timers.remove(op.key());
                if (previous != null) {
                    previous.cancel(false);
                }
            }
        }
    }

    private void schedule(TimerOp.Schedule schedule, long armedEpoch) {
        long delayMs = Math.max(0, schedule.deadlineMs() - System.currentTimeMillis());
        ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
        ScheduledFuture<?> previous;
        // Registered under the lock fire() takes first: an overdue timer runs at once, and must find
        // itself in the map, or it would return without proposing and the timer would be lost.
        synchronized (self) {
            // A closing node's scheduler drops the timer instead of throwing (DaemonScheduler).
            self[0] = scheduler.schedule(() -> fire(schedule, armedEpoch, self), delayMs, TimeUnit.MILLISECONDS);
            previous = timers.put(schedule.key(), self[0]);
        }
        if (previous != null) {
            previous.cancel(false);
        }
    }

    private void fire(TimerOp.Schedule schedule, long armedEpoch, ScheduledFuture<?>[] self) {
        ScheduledFuture<?> mine;
        synchronized (self) {
            mine = self[0];
        }
        if (!active || epoch != armedEpoch || !timers.remove(schedule.key(), mine)) {
            return;
        }
        try {
            propose.accept(schedule.command());
        } catch (RuntimeException e) {
            LOG.warn("partition {}: timer {} could not propose {}", partition, schedule.key(), schedule.command(), e);
        }
    }

    private void cancelAll() {
        timers.values().forEach(f -> f.cancel(false));
        timers.clear();
    }

    int armedCount() {
        return timers.size();
    }
}
