package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

class StartupReplayTest {
    private final Map<Integer, Long> applied = new HashMap<>();
    private final IntToLongFunction appliedIndex = p -> applied.getOrDefault(p, -1L);

    /** Checks {@code replay} with partitions 0 and 1 applied up to the given indexes. */
    private boolean checkAt(StartupReplay replay, long appliedIndex0, long appliedIndex1) {
        applied.put(0, appliedIndex0);
        applied.put(1, appliedIndex1);
        return replay.check(appliedIndex, 0);
    }

    @Test
    void doneOnlyWhenEveryReplicaAppliedUpToTheLastEntryOfItsLogAtStart() {
        StartupReplay replay = new StartupReplay(1, List.of(new StartupReplay.Span(0, 100, 5_000),
                new StartupReplay.Span(1, 0, 300)), 0);
        assertThat(checkAt(replay, 100, 0)).isFalse();
        assertThat(checkAt(replay, 5_000, 299)).isFalse();
        assertThat(replay.applied()).isNotDone();
        assertThat(checkAt(replay, 5_000, 300)).isTrue();
        assertThat(replay.applied()).isCompleted();
    }

    @Test
    void eachPartitionIsReplayedOnItsOwn() {
        StartupReplay replay = new StartupReplay(1, List.of(new StartupReplay.Span(0, 0, 10),
                new StartupReplay.Span(1, 0, 10)), 0);
        assertThat(replay.replayed(0)).isFalse();
        assertThat(replay.replayed(1)).isFalse();
        assertThat(replay.replayed(7)).as("not hosted at start").isTrue();
        assertThat(checkAt(replay, 10, 5)).isFalse();
        assertThat(replay.replayed(0)).isTrue();
        assertThat(replay.replayed(1)).isFalse();
        assertThat(checkAt(replay, 10, 10)).isTrue();
        assertThat(replay.replayed(1)).isTrue();
    }

    @Test
    void aReplicaThatFinishedStaysFinishedWhateverItReportsLater() {
        StartupReplay replay = new StartupReplay(1, List.of(new StartupReplay.Span(0, 0, 10),
                new StartupReplay.Span(1, 0, 10)), 0);
        assertThat(checkAt(replay, 10, 5)).isFalse();
        // Partition 0's snapshot was installed again, say: it is not waited for a second time.
        assertThat(checkAt(replay, 3, 10)).isTrue();
    }

    @Test
    void nothingToApplyIsDoneAtTheFirstCheck() {
        // A new cluster (snapshot at 0, an empty log), a snapshot that covers the whole log, and a
        // replica Ratis could not report on (-1: created empty, waiting to be added).
        StartupReplay replay = new StartupReplay(1, List.of(new StartupReplay.Span(0, 0, 0),
                new StartupReplay.Span(1, 700, 700), new StartupReplay.Span(2, -1, -1)), 0);
        assertThat(replay.check(p -> 0, 1)).isTrue();
        assertThat(replay.applied()).isCompleted();
    }

    @Test
    void aReplicaThatCannotReportAnyMoreNoLongerHoldsTheNodeBack() {
        StartupReplay replay = new StartupReplay(1, List.of(new StartupReplay.Span(0, 0, 10)), 0);
        applied.put(0, 4L);
        assertThat(replay.check(appliedIndex, 1)).isFalse();
        applied.remove(0); // closed or moved away: -1
        assertThat(replay.check(appliedIndex, 2)).isTrue();
    }

    @Test
    void aStopBeforeTheEndFailsTheWaitersAndALaterCheckChangesNothing() {
        StartupReplay replay = new StartupReplay(3, List.of(new StartupReplay.Span(0, 0, 10)), 0);
        replay.cancel();
        assertThatThrownBy(() -> replay.applied().get()).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("node 3 stopped");
        applied.put(0, 10L);
        assertThat(replay.check(appliedIndex, 1)).isTrue();
        assertThat(replay.applied()).isCompletedExceptionally();
    }
}
