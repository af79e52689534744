package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.cohort.core.GroupConfig;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DaemonSchedulerTest {

    @Test
    void runsWorkWhileOpenOnOneNamedDaemonThread() throws Exception {
        ScheduledExecutorService scheduler = DaemonScheduler.create("daemon-scheduler-test");
        try {
            Thread ran = scheduler.schedule(Thread::currentThread, 1, TimeUnit.MILLISECONDS).get(30, TimeUnit.SECONDS);
            assertThat(ran.getName()).isEqualTo("daemon-scheduler-test");
            assertThat(ran.isDaemon()).isTrue();
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** What Ratis's callbacks do to a closing node: hand work to its stopped threads. */
    @Test
    void dropsWorkHandedOverAfterShutdownInsteadOfThrowing() throws Exception {
        ScheduledExecutorService scheduler = DaemonScheduler.create("daemon-scheduler-test");
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        AtomicInteger ran = new AtomicInteger();

        assertThatCode(() -> {
            scheduler.execute(ran::incrementAndGet);
            scheduler.schedule(ran::incrementAndGet, 0, TimeUnit.MILLISECONDS);
            scheduler.scheduleWithFixedDelay(ran::incrementAndGet, 0, 1, TimeUnit.MILLISECONDS);
        }).doesNotThrowAnyException();
        assertThat(ran).hasValue(0);
    }

    /** The same on a real node: RaftEventRouter hands work to the timer thread from Ratis's threads. */
    @Test
    void aClosedNodeDropsWorkHandedToItsTimerThread(@TempDir Path tmp) {
        RaftTestCluster cluster = RaftTestCluster.start(tmp, 1, 1, GroupConfig.defaults());
        CohortRaftNode node = cluster.node(0);
        cluster.close();
        AtomicInteger ran = new AtomicInteger();

        assertThatCode(() -> node.runOnTimerThread(ran::incrementAndGet)).doesNotThrowAnyException();
        assertThat(ran).hasValue(0);
    }
}
