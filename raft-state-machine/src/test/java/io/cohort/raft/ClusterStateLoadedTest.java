package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClusterStateLoadedTest {
    private final AtomicBoolean replayed = new AtomicBoolean();
    private final AtomicLong listedAt = new AtomicLong(-1);
    private final AtomicLong applied = new AtomicLong(-1);

    private ClusterStateLoaded gate(boolean joining) {
        return new ClusterStateLoaded(joining, replayed::get, listedAt::get, applied::get);
    }

    @Test
    void aNodeThatWasAMemberWaitsOnlyForItsOwnLog() {
        ClusterStateLoaded gate = gate(false);
        assertThat(gate.loaded()).isFalse();
        replayed.set(true);
        assertThat(gate.loaded()).as("no configuration needed").isTrue();
        replayed.set(false);
        assertThat(gate.loaded()).as("stays loaded").isTrue();
    }

    @Test
    void aJoiningNodeWaitsForTheEarliestConfigurationListingIt() {
        replayed.set(true); // a new replica has nothing of its own to replay
        ClusterStateLoaded gate = gate(true);
        assertThat(gate.loaded()).as("not listed yet").isFalse();
        listedAt.set(120); // the joint configuration at 120 lists it first; the snapshot it was sent is at 100
        applied.set(100);
        assertThat(gate.observe()).isFalse();
        listedAt.set(125); // the new configuration alone at 125, not applied here yet
        applied.set(121);
        assertThat(gate.loaded()).as("past the joint entry: everything before the add is applied").isTrue();
    }

    @Test
    void theTimerObservesUntilLoadedAndThenStops() throws Exception {
        replayed.set(true);
        ClusterStateLoaded gate = gate(true);
        java.util.concurrent.ScheduledThreadPoolExecutor timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1);
        timer.setRemoveOnCancelPolicy(true);
        try {
            java.util.concurrent.ScheduledFuture<?> task = gate.observeUntilLoaded(timer, 5);
            listedAt.set(125);
            applied.set(125);
            // The task cancels itself only once its own observe() found the state loaded (nothing
            // here calls loaded() or observe() before); a task that threw would be done, not cancelled.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(task::isCancelled);
            assertThat(timer.getQueue()).as("not run again").isEmpty();
            assertThat(gate.loaded()).isTrue();
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void aJoiningNodeFirstSeenInTheNewConfigurationWaitsForThatEntry() {
        replayed.set(true);
        ClusterStateLoaded gate = gate(true);
        listedAt.set(125);
        applied.set(124);
        assertThat(gate.loaded()).isFalse();
        applied.set(125);
        assertThat(gate.loaded()).isTrue();
    }
}
