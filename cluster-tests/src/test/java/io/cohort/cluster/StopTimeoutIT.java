package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node asked to stop (SIGTERM) stops: an orderly stop that outlasts {@code node.stop.timeout.ms}
 * ends with every thread's stack on stderr and the exit code EXIT_STOP_TIMED_OUT (70), instead of a
 * process that never exits. Here the limit is 1 ms, so the watchdog always fires before the stop
 * (which takes at least Netty's 2 s quiet period) completes; a normal stop exits 143.
 */
class StopTimeoutIT {
    /** CohortServerMain.EXIT_STOP_TIMED_OUT (the server's classes are not on this module's classpath). */
    private static final int EXIT_STOP_TIMED_OUT = 70;
    private static final String STOP_TIMEOUT_MS = "node.stop.timeout.ms";
    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void aStopThatOutlastsItsLimitPrintsEveryThreadAndHaltsWithItsExitCode() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(1).partitions(1)
                .set(STOP_TIMEOUT_MS, 1));
        cluster.awaitStableLeaders(Duration.ofSeconds(60));

        int exit = cluster.stop(1, Duration.ofSeconds(60));

        assertThat(exit).isEqualTo(EXIT_STOP_TIMED_OUT);
        String stderr = Files.readString(cluster.nodeDir(1).resolve("stderr.1.log"));
        assertThat(stderr).contains("the orderly stop (node.stop.timeout.ms) took over 1 ms; halting with exit code 70")
                .as("the stop's own thread, in the dump").contains("\"cohort-shutdown\"");
    }

    @Test
    void aStopWithinItsLimitExitsAsTheJvmDoesAfterSigterm() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(1).partitions(1));
        cluster.awaitStableLeaders(Duration.ofSeconds(60));

        assertThat(cluster.stop(1, Duration.ofSeconds(60))).isEqualTo(143);
        assertThat(Files.readString(cluster.nodeDir(1).resolve("stderr.1.log"))).doesNotContain("halting");
    }
}
