package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.GroupConfig;
import io.cohort.core.shard.GroupCoordinatorShard;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.junit.jupiter.api.Test;

/**
 * A snapshot asked of the apply thread (a stop's, an operator's) waits for the one being written
 * beside it, but not for ever: Ratis joins the apply thread when the replica stops, so a writer
 * that never finishes must not hold the stop (a test that held the shared writer while its
 * cluster closed would have hung there).
 */
class SnapshotTakeWaitTest {
    @Test
    void aTakeGivesUpOnAWriteThatNeverFinishesWithAnIoExceptionRatisLogs() throws Exception {
        List<Runnable> neverRun = new ArrayList<>();
        Executor stuckWriter = neverRun::add;
        PartitionSnapshots snapshots = new PartitionSnapshots(0, new SimpleStateMachineStorage(), new RecordingHooks(),
                stuckWriter, 200);
        GroupCoordinatorShard shard = new GroupCoordinatorShard(GroupConfig.defaults());
        snapshots.startAsync(shard.cut(), TermIndex.valueOf(1, 5), 0, true, index -> { });
        assertThat(neverRun).hasSize(1);
        assertThat(snapshots.writing()).isTrue();

        long startNanos = System.nanoTime();
        assertThatThrownBy(() -> snapshots.take(TermIndex.valueOf(1, 6), shard::cut)).isInstanceOf(IOException.class)
                .hasMessageContaining("did not finish within 200 ms");
        assertThat(System.nanoTime() - startNanos).as("it waited for the write first").isGreaterThanOrEqualTo(200_000_000L);
        assertThat(snapshots.writing()).as("the write stays in flight").isTrue();
    }
}
