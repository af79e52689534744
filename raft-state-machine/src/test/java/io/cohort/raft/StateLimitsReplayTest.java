package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.PartitionError;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import io.cohort.raft.log.LogCodec;
import io.cohort.raft.log.proto.LogEntry;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/**
 * The state machine applies the state limits by the format of each log entry: an entry written by
 * a build without limits (format 1) replays as it was acknowledged, one of this build (format 2) is
 * checked, on every replica alike.
 */
class StateLimitsReplayTest {
    private static final long LEADER_TIME_MS = 1_700_000_000_000L;

    private final RecordingHooks hooks = new RecordingHooks();
    private final List<Result> applied = hooks.applied;
    private final GroupCoordinatorShard shard = new GroupCoordinatorShard(
            GroupConfig.defaults().withLimits(StateLimits.defaults().withMaxOffsetsPerGroup(1)));
    private final PartitionStateMachine stateMachine = new PartitionStateMachine(0, shard, hooks,
            ClientId.randomId(), Long.MAX_VALUE, Long.MAX_VALUE);

    private static Command.OffsetCommit commit(int... partitions) {
        List<Command.PartitionCommit> commits = new ArrayList<>();
        for (int p : partitions) {
            commits.add(new Command.PartitionCommit(p, 1L, -1, "m"));
        }
        return new Command.OffsetCommit("g", -1, "", null, -1L, List.of(new Command.TopicCommit("t", commits)),
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }

    private void apply(long index, byte[] entryBytes) {
        LogEntryProto entry = LogEntryProto.newBuilder().setTerm(1).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
                        .setLogData(ByteString.copyFrom(entryBytes))
                        .setClientId(ClientId.randomId().toByteString()).setCallId(index))
                .build();
        stateMachine.applyTransaction(TransactionContext.newBuilder().setServerRole(RaftPeerRole.FOLLOWER)
                .setStateMachine(stateMachine).setLogEntry(entry).build()).join();
    }

    private static ErrorCode firstError(Result result) {
        PartitionError first = ((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0);
        return first.error();
    }

    @Test
    void testAFormat1EntryBeyondALimitReplaysAndAFormat2EntryIsRefused() {
        byte[] writtenBeforeTheLimits = LogEntry.newBuilder().setFormatVersion(1).setLeaderTimeMs(LEADER_TIME_MS)
                .addCommands(LogCodec.toProto(commit(0, 1))).build().toByteArray();

        apply(1, writtenBeforeTheLimits);
        apply(2, LogCodec.encodeEntry(LEADER_TIME_MS, List.of(commit(2))));
        apply(3, LogCodec.encodeEntry(LEADER_TIME_MS, List.of(commit(0))));

        assertThat(applied).extracting(StateLimitsReplayTest::firstError).containsExactly(ErrorCode.NONE,
                ErrorCode.INVALID_COMMIT_OFFSET_SIZE, ErrorCode.NONE);
        assertThat(shard.offsetCount("g")).isEqualTo(2);
        assertThat(stateMachine.getLastAppliedTermIndex().getIndex()).isEqualTo(3);
    }
}
