package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.cohort.core.command.Command;
import io.cohort.core.shard.TimerOp;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class LeaderTimersTest {
    private static final TimerOp.Schedule HEARTBEAT = new TimerOp.Schedule(TimerOp.Keys.heartbeat("g", "m"), 0,
            new Command.ExpireMemberSession("g", "m"));

    /**
     * A node's close shuts its timer thread down before it closes the Raft server, so Ratis can still
     * report a leadership in between. Arming its timers then threw RejectedExecutionException into
     * Ratis's apply thread ("StateMachineUpdater caught a Throwable", seen in mvn -B verify): the
     * node's scheduler now drops them.
     */
    @Test
    void aLeadershipReportedAfterTheTimerThreadStoppedArmsNothingAndThrowsNothing() {
        ScheduledExecutorService scheduler = DaemonScheduler.create("leader-timers-test");
        scheduler.shutdownNow();
        List<Command> proposed = new CopyOnWriteArrayList<>();
        LeaderTimers timers = new LeaderTimers(0, scheduler, proposed::add);

        assertThatCode(() -> timers.activate(List.of(HEARTBEAT))).doesNotThrowAnyException();
        assertThatCode(() -> timers.apply(List.of(HEARTBEAT))).doesNotThrowAnyException();

        assertThat(proposed).isEmpty();
    }

    @Test
    void anOverdueTimerProposesItsCommandOnce() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            List<Command> proposed = new CopyOnWriteArrayList<>();
            LeaderTimers timers = new LeaderTimers(0, scheduler, proposed::add);

            timers.activate(List.of(HEARTBEAT));
            // Runs after the timer's task on the same single thread.
            scheduler.submit(() -> { }).get();

            assertThat(proposed).containsExactly(HEARTBEAT.command());
            assertThat(timers.armedCount()).isZero();
        } finally {
            scheduler.shutdownNow();
        }
    }
}
