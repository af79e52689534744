package io.cohort.raft;

import io.cohort.core.shard.Result;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftPeerId;

/** The hooks of a state machine fed entries without Ratis: keeps the results applied, ignores the rest. */
final class RecordingHooks implements PartitionStateMachine.Hooks {
    final List<Result> applied = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onApplied(int partition, long index, ClientId clientId, long callId, List<Result> results) {
        applied.addAll(results);
    }

    @Override
    public void onLeaderChanged(int partition, RaftPeerId leaderId) {
    }

    @Override
    public void onLeaderReady(int partition) {
    }

    @Override
    public void onNotLeader(int partition) {
    }

    @Override
    public void onStorageFailed(int partition, String what, Throwable cause) {
    }
}
