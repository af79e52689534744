package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The rule alone; SnapshotReplayBoundTest runs it in three real Ratis replicas. */
class LogReplayBoundTest {
    @Test
    void dueOnceEnoughEntriesOutweighTheSnapshot() {
        LogReplayBound bound = new LogReplayBound(3, 100);
        bound.onSnapshot(250);
        assertThat(bound.onApplied(100, 10)).isFalse(); // 1 entry, 100 bytes
        assertThat(bound.onApplied(100, 10)).isFalse(); // 2 entries, 200 bytes
        assertThat(bound.onApplied(10, 10)).isFalse();  // 3 entries, but 210 bytes < 250
        assertThat(bound.onApplied(40, 10)).isTrue();   // 250 bytes
        assertThat(bound.onApplied(1, 10)).as("due until a snapshot is taken").isTrue();
        assertThat(bound.entriesSinceSnapshot()).isEqualTo(5);
        assertThat(bound.bytesSinceSnapshot()).isEqualTo(251);
    }

    @Test
    void aSmallSnapshotIsDueAfterTheMinimumCount() {
        LogReplayBound bound = new LogReplayBound(4, 100);
        bound.onSnapshot(0);
        for (int i = 1; i < 4; i++) {
            assertThat(bound.onApplied(1_000_000, 10)).as("entry %d", i).isFalse();
        }
        assertThat(bound.onApplied(1, 10)).isTrue();
    }

    @Test
    void aSnapshotStartsTheCountAgainWithItsOwnSize() {
        LogReplayBound bound = new LogReplayBound(2, 100);
        bound.onSnapshot(10);
        bound.onApplied(100, 10);
        assertThat(bound.onApplied(100, 10)).isTrue();
        bound.onSnapshot(1_000);
        assertThat(bound.entriesSinceSnapshot()).isZero();
        assertThat(bound.onApplied(400, 10)).isFalse();
        assertThat(bound.onApplied(400, 10)).as("800 bytes against a snapshot of 1,000").isFalse();
        assertThat(bound.onApplied(200, 10)).isTrue();
    }

    @Test
    void theLargestCountNeverAsks() {
        LogReplayBound bound = new LogReplayBound(Long.MAX_VALUE, 100);
        for (int i = 0; i < 10_000; i++) {
            assertThat(bound.onApplied(1 << 20, 10)).isFalse();
        }
    }

    @Test
    void aStateOfMoreRecordsThanTheBoundIsLeftToRatissCount() {
        LogReplayBound bound = new LogReplayBound(2, 100);
        bound.onSnapshot(10);
        assertThat(bound.onApplied(100, 101)).isFalse();
        assertThat(bound.onApplied(100, 101)).as("enough entries and bytes, too many records").isFalse();
        assertThat(bound.onApplied(100, 100)).as("the state shrank back to the bound").isTrue();
    }

    @Test
    void aCountBelowOneIsRefused() {
        assertThatThrownBy(() -> new LogReplayBound(0, 100)).isInstanceOf(IllegalArgumentException.class);
    }
}
