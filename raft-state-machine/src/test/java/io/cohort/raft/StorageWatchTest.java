package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StorageWatchTest {
    private final List<StorageWatch.StorageFailure> reported = new ArrayList<>();
    private final StorageWatch watch = new StorageWatch(1, reported::add);

    @Test
    void aReplicaClosedOnTwoChecksInARowIsAStorageFailure() {
        watch.checkReplicasOpen(3, p -> p != 2);
        assertThat(reported).isEmpty();
        watch.checkReplicasOpen(3, p -> p != 2);
        assertThat(reported).singleElement().satisfies(f -> assertThat(f.description()).contains("partition 2"));
        assertThat(watch.failure()).isPresent();
    }

    @Test
    void aReplicaClosedBecauseTheNodeWasRemovedIsNotAFailure() {
        // Ratis closes a removed replica first and tells the state machine afterwards: the first
        // check sees it closed, the next one sees the node marked removed (the predicate holds).
        watch.checkReplicasOpen(1, p -> false);
        watch.checkReplicasOpen(1, p -> true);
        watch.checkReplicasOpen(1, p -> true);
        assertThat(reported).isEmpty();
        assertThat(watch.failure()).isEmpty();
    }

    @Test
    void twoDifferentReplicasClosedOnceEachAreNotTwoChecksInARow() {
        watch.checkReplicasOpen(2, p -> p != 0);
        watch.checkReplicasOpen(2, p -> p != 1);
        assertThat(reported).isEmpty();
    }

    @Test
    void nothingIsReportedWhileTheNodeCloses() {
        watch.close();
        watch.checkReplicasOpen(1, p -> false);
        watch.checkReplicasOpen(1, p -> false);
        assertThat(reported).isEmpty();
    }

    @Test
    void aWriteFailureIsReportedAtOnceAndOnlyTheFirstGoesToTheNode() {
        watch.report("the log of partition 0 could not be written", new java.io.IOException("No space left on device"));
        watch.report("the snapshot of partition 0 could not be written", null);
        assertThat(reported).singleElement().satisfies(f -> assertThat(f.description()).contains("log of partition 0"));
    }
}
