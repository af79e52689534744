package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The rule alone; SnapshotReplayBoundTest and SnapshotBesideApplyTest run it in three real Ratis replicas. */
class LogReplayBoundTest {
    /** A count out of reach: only the other rule decides. */
    private static final long NEVER = Long.MAX_VALUE;

    /** The log index of the next entry applied in a test. */
    private long index;

    private boolean apply(LogReplayBound bound, long entryBytes, long stateRecords) {
        return bound.onApplied(++index, entryBytes, stateRecords);
    }

    @Test
    void dueEveryCountOfLogIndicesWhateverTheStateSize() {
        LogReplayBound bound = new LogReplayBound(3, NEVER, 100);
        bound.onSnapshot(0, 1 << 30);
        assertThat(apply(bound, 1, 1_000_000)).isFalse();
        assertThat(apply(bound, 1, 1_000_000)).isFalse();
        assertThat(apply(bound, 1, 1_000_000)).isTrue();
        assertThat(bound.countReached()).isTrue();
        bound.onCut(index);
        // A configuration entry (never applied here) takes index 4: the count is by index, as Ratis's was.
        index++;
        assertThat(bound.onApplied(++index, 1, 1_000_000)).isFalse();
        assertThat(bound.onApplied(++index, 1, 1_000_000)).as("index 6, three past the cut at 3").isTrue();
    }

    @Test
    void aCutStartsTheCountAndTheWrittenSizeArrivesLater() {
        LogReplayBound bound = new LogReplayBound(NEVER, 2, 100);
        bound.onSnapshot(0, 10);
        apply(bound, 100, 10);
        assertThat(apply(bound, 100, 10)).isTrue();
        bound.onCut(index);
        assertThat(bound.entriesSinceSnapshot()).isZero();
        assertThat(apply(bound, 100, 10)).isFalse();
        assertThat(apply(bound, 100, 10)).as("the last written snapshot's 10 bytes still count").isTrue();
        bound.onSnapshotWritten(1_000);
        assertThat(apply(bound, 100, 10)).as("300 bytes against the written 1,000").isFalse();
        assertThat(bound.countReached()).isFalse();
    }

    @Test
    void dueOnceEnoughEntriesOutweighTheSnapshot() {
        LogReplayBound bound = new LogReplayBound(NEVER, 3, 100);
        bound.onSnapshot(0, 250);
        assertThat(apply(bound, 100, 10)).isFalse(); // 1 entry, 100 bytes
        assertThat(apply(bound, 100, 10)).isFalse(); // 2 entries, 200 bytes
        assertThat(apply(bound, 10, 10)).isFalse();  // 3 entries, but 210 bytes < 250
        assertThat(apply(bound, 40, 10)).isTrue();   // 250 bytes
        assertThat(apply(bound, 1, 10)).as("due until a snapshot is taken").isTrue();
        assertThat(bound.entriesSinceSnapshot()).isEqualTo(5);
        assertThat(bound.bytesSinceSnapshot()).isEqualTo(251);
    }

    @Test
    void aSmallSnapshotIsDueAfterTheMinimumCount() {
        LogReplayBound bound = new LogReplayBound(NEVER, 4, 100);
        bound.onSnapshot(0, 0);
        for (int i = 1; i < 4; i++) {
            assertThat(apply(bound, 1_000_000, 10)).as("entry %d", i).isFalse();
        }
        assertThat(apply(bound, 1, 10)).isTrue();
    }

    @Test
    void aSnapshotStartsTheCountAgainWithItsOwnSize() {
        LogReplayBound bound = new LogReplayBound(NEVER, 2, 100);
        bound.onSnapshot(0, 10);
        apply(bound, 100, 10);
        assertThat(apply(bound, 100, 10)).isTrue();
        bound.onSnapshot(index, 1_000);
        assertThat(bound.entriesSinceSnapshot()).isZero();
        assertThat(apply(bound, 400, 10)).isFalse();
        assertThat(apply(bound, 400, 10)).as("800 bytes against a snapshot of 1,000").isFalse();
        assertThat(apply(bound, 200, 10)).isTrue();
    }

    @Test
    void theLargestCountsNeverAsk() {
        LogReplayBound bound = new LogReplayBound(NEVER, NEVER, 100);
        for (int i = 0; i < 10_000; i++) {
            assertThat(apply(bound, 1 << 20, 10)).isFalse();
        }
    }

    @Test
    void aStateOfMoreRecordsThanTheBoundIsLeftToTheEntryCount() {
        LogReplayBound bound = new LogReplayBound(NEVER, 2, 100);
        bound.onSnapshot(0, 10);
        assertThat(apply(bound, 100, 101)).isFalse();
        assertThat(apply(bound, 100, 101)).as("enough entries and bytes, too many records").isFalse();
        assertThat(apply(bound, 100, 100)).as("the state shrank back to the bound").isTrue();
    }

    @Test
    void aCountBelowOneIsRefused() {
        assertThatThrownBy(() -> new LogReplayBound(NEVER, 0, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogReplayBound(0, NEVER, 100)).isInstanceOf(IllegalArgumentException.class);
    }
}
