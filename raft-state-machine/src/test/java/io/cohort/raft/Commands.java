package io.cohort.raft;

import io.cohort.core.Bytes;
import io.cohort.core.command.Command;
import io.cohort.core.group.Protocol;
import java.util.List;

/** Command builders for replication tests. */
final class Commands {
    private Commands() {
    }

    static Command.JoinGroup join(String groupId, String memberId, String suffix) {
        return new Command.JoinGroup(groupId, memberId, null, "consumer",
                List.of(new Protocol("range", Bytes.copyOf(new byte[] {1}))), 30_000, 10_000, "client",
                "/127.0.0.1", null, Command.JOIN_GROUP_LATEST_VERSION, suffix);
    }

    static Command.SyncGroup sync(String groupId, String memberId, int generation, List<Command.MemberAssignment> a) {
        return new Command.SyncGroup(groupId, generation, memberId, null, null, null, a);
    }

    static Command.OffsetCommit commit(String groupId, String memberId, int generation, String topic, int partition,
                                       long offset) {
        return new Command.OffsetCommit(groupId, generation, memberId, null, -1L,
                List.of(new Command.TopicCommit(topic, List.of(new Command.PartitionCommit(partition, offset, -1, null)))),
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }

    static Command.OffsetCommit simpleCommit(String groupId, String topic, int partition, long offset) {
        return commit(groupId, "", -1, topic, partition, offset);
    }
}
