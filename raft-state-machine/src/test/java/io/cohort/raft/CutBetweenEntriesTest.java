package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.GroupConfig;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.raft.log.LogCodec;
import io.cohort.raft.log.SnapshotCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup's cut that cannot be taken beside apply (an entry in flight; here forced with no
 * attempt beside) is taken by the apply thread after its next entry, at that entry; it fails at
 * its timeout if no entry comes, and when the replica closes. A state machine without Ratis, fed
 * entries as Ratis's apply thread would.
 */
class CutBetweenEntriesTest {
    private final GroupCoordinatorShard shard = new GroupCoordinatorShard(GroupConfig.defaults());
    private final PartitionStateMachine stateMachine = new PartitionStateMachine(0, shard, new RecordingHooks(),
            ClientId.randomId(), Long.MAX_VALUE, Long.MAX_VALUE);

    private void apply(long index, long offset) {
        byte[] bytes = LogCodec.encodeEntry(1_700_000_000_000L, List.of(Commands.simpleCommit("g", "t", 0, offset)));
        LogEntryProto entry = LogEntryProto.newBuilder().setTerm(1).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(bytes))
                        .setClientId(ClientId.randomId().toByteString()).setCallId(index))
                .build();
        stateMachine.applyTransaction(TransactionContext.newBuilder().setServerRole(RaftPeerRole.FOLLOWER)
                .setStateMachine(stateMachine).setLogEntry(entry).build()).join();
    }

    private static long offset(PartitionStateMachine.CutAt cut) {
        return cut.cut().records().stream().filter(r -> r instanceof CoordinatorRecord.OffsetValue)
                .mapToLong(r -> ((CoordinatorRecord.OffsetValue) r).value().offset()).max().orElse(-1);
    }

    @Test
    void aQueuedCutIsTakenByTheApplyThreadAfterItsNextEntry() throws Exception {
        apply(1, 10);
        CompletableFuture<PartitionStateMachine.CutAt> queued = stateMachine.cutBetweenEntries(30_000, 0);
        assertThat(queued).isNotDone();
        apply(2, 20);
        PartitionStateMachine.CutAt cut = queued.get(1, TimeUnit.SECONDS);
        assertThat(cut.at().getIndex()).isEqualTo(2);
        assertThat(offset(cut)).isEqualTo(20);
        apply(3, 30);
        assertThat(offset(cut)).as("the cut stays what it was").isEqualTo(20);
    }

    @Test
    void aCutBesideAnIdleReplicaIsTakenAtOnce() throws Exception {
        apply(1, 10);
        PartitionStateMachine.CutAt cut = stateMachine.cutBetweenEntries(30_000).get(1, TimeUnit.SECONDS);
        assertThat(cut.at().getIndex()).isEqualTo(1);
        assertThat(offset(cut)).isEqualTo(10);
    }

    @Test
    void aQueuedCutFailsAtItsTimeoutAndLeavesTheQueue() throws Exception {
        apply(1, 10);
        CompletableFuture<PartitionStateMachine.CutAt> queued = stateMachine.cutBetweenEntries(50, 0);
        assertThatThrownBy(() -> queued.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TimeoutException.class);
        // The next entry takes no cut for it (nothing to observe but the queue being empty: a later
        // request is served at its own next entry, with its own cut).
        CompletableFuture<PartitionStateMachine.CutAt> next = stateMachine.cutBetweenEntries(30_000, 0);
        apply(2, 20);
        assertThat(next.get(1, TimeUnit.SECONDS).at().getIndex()).isEqualTo(2);
    }

    /**
     * A cut queued while a snapshot the leader installed loads is taken by the apply thread right
     * after the load (Ratis's reinitialize, on that thread), of the loaded state: an idle partition
     * brings no next entry to take it at.
     */
    @Test
    void aQueuedCutIsTakenAfterAnInstalledSnapshotLoadsWithoutAnotherEntry(@TempDir Path dir) throws Exception {
        apply(1, 10);
        // What the leader installed: the partition at index 7 (term 2), its offset at 99.
        GroupCoordinatorShard leaderState = new GroupCoordinatorShard(GroupConfig.defaults());
        leaderState.apply(Commands.simpleCommit("g", "t", 0, 99), 1_700_000_000_000L, true);
        RaftStorage raftStorage = RaftStorage.newBuilder().setDirectory(dir.toFile())
                .setOption(RaftStorage.StartupOption.FORMAT).setStorageFreeSpaceMin(SizeInBytes.valueOf(0)).build();
        raftStorage.initialize();
        SimpleStateMachineStorage storage = stateMachine.getStateMachineStorage();
        storage.init(raftStorage);
        Path snapshotFile = storage.getSnapshotFile(2, 7).toPath();
        Files.createDirectories(snapshotFile.getParent());
        try (OutputStream out = Files.newOutputStream(snapshotFile)) {
            SnapshotCodec.write(out, 0, 2, 7, leaderState.snapshot());
        }

        CompletableFuture<PartitionStateMachine.CutAt> queued = stateMachine.cutBetweenEntries(30_000, 0);
        assertThat(queued).isNotDone();
        stateMachine.reinitialize();
        PartitionStateMachine.CutAt cut = queued.get(1, TimeUnit.SECONDS);
        assertThat(cut.at().getIndex()).isEqualTo(7);
        assertThat(offset(cut)).as("the installed state, not the one before it").isEqualTo(99);
        raftStorage.close();
    }

    @Test
    void aQueuedCutFailsWhenTheReplicaCloses() throws Exception {
        apply(1, 10);
        CompletableFuture<PartitionStateMachine.CutAt> queued = stateMachine.cutBetweenEntries(30_000, 0);
        stateMachine.close();
        assertThatThrownBy(() -> queued.get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class);
    }
}
