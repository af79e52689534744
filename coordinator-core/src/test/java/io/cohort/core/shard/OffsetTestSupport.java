package io.cohort.core.shard;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.Protocol;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.PartitionError;
import io.cohort.core.response.SyncGroupResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builders and set-ups shared by the offset and admin tests (commit requests, expected answers and
 * records, consumer subscriptions, Stable groups of several members, Dead groups).
 */
final class OffsetTestSupport {
    private OffsetTestSupport() {
    }

    // ----- OffsetCommit requests ------------------------------------------------------------------

    static CommitBuilder commit(String groupId) {
        return new CommitBuilder(groupId);
    }

    /** An OffsetCommit with defaults: member "", no instance, generation -1, no retention, v9. */
    static final class CommitBuilder {
        private final String groupId;
        private String memberId = "";
        private String instanceId;
        private int generationId = -1;
        private long retentionTimeMs = -1L;
        private short apiVersion = Command.OFFSET_COMMIT_LATEST_VERSION;
        private final List<Command.TopicCommit> topics = new ArrayList<>();

        private CommitBuilder(String groupId) {
            this.groupId = groupId;
        }

        CommitBuilder member(String value) {
            this.memberId = value;
            return this;
        }

        CommitBuilder instance(String value) {
            this.instanceId = value;
            return this;
        }

        CommitBuilder generation(int value) {
            this.generationId = value;
            return this;
        }

        CommitBuilder retention(long value) {
            this.retentionTimeMs = value;
            return this;
        }

        CommitBuilder version(int value) {
            this.apiVersion = (short) value;
            return this;
        }

        CommitBuilder topic(String name, Command.PartitionCommit... partitions) {
            topics.add(new Command.TopicCommit(name, Arrays.asList(partitions)));
            return this;
        }

        Command.OffsetCommit build() {
            return new Command.OffsetCommit(groupId, generationId, memberId, instanceId, retentionTimeMs, topics,
                    apiVersion);
        }
    }

    /** A partition commit without leader epoch and with null metadata. */
    static Command.PartitionCommit partition(int partition, long offset) {
        return new Command.PartitionCommit(partition, offset, -1, null);
    }

    static Command.PartitionCommit partition(int partition, long offset, int leaderEpoch, String metadata) {
        return new Command.PartitionCommit(partition, offset, leaderEpoch, metadata);
    }

    // ----- expected answers and records -----------------------------------------------------------

    static OffsetCommitResponse commitResponse(PartitionError.TopicErrors... topics) {
        return new OffsetCommitResponse(Arrays.asList(topics));
    }

    static PartitionError.TopicErrors topicErrors(String topic, PartitionError... partitions) {
        return new PartitionError.TopicErrors(topic, Arrays.asList(partitions));
    }

    static PartitionError error(int partition, ErrorCode error) {
        return new PartitionError(partition, error);
    }

    static CoordinatorRecord.OffsetValue offsetRecord(String groupId, String topic, int partition, long offset,
                                                      long commitTimestampMs) {
        return new CoordinatorRecord.OffsetValue(groupId, topic, partition,
                new OffsetAndMetadata(offset, -1, "", commitTimestampMs, OffsetAndMetadata.NO_EXPIRE_TIMESTAMP));
    }

    static CoordinatorRecord.OffsetTombstone offsetTombstone(String groupId, String topic, int partition) {
        return new CoordinatorRecord.OffsetTombstone(groupId, topic, partition);
    }

    // ----- consumer subscriptions -----------------------------------------------------------------

    /**
     * A serialized {@code cohort.v1.ConsumerSubscription} with only its topics: protobuf field 1,
     * wire type 2 (tag byte 0x0a), a varint length and the UTF-8 bytes, once per topic.
     */
    static Bytes subscription(String... topics) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String topic : topics) {
            byte[] utf8 = topic.getBytes(StandardCharsets.UTF_8);
            out.write(0x0a);
            writeVarint(out, utf8.length);
            out.write(utf8, 0, utf8.length);
        }
        return Bytes.copyOf(out.toByteArray());
    }

    static void writeVarint(ByteArrayOutputStream out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** The "range" protocol whose metadata subscribes to {@code topics}. */
    static List<Protocol> rangeSubscribedTo(String... topics) {
        return List.of(new Protocol("range", subscription(topics)));
    }

    // ----- group set-ups --------------------------------------------------------------------------

    /**
     * Sends every JoinGroup (v3, so each parks at once), waits out the initial rebalance delay (as
     * many delays as the initial rebalance takes), lets the leader sync an assignment of one byte
     * {@code i + 1} per member in join order and every follower sync too. The group is then Stable at
     * generation 1 with no pending syncs. Returns the member ids in join order.
     */
    static List<String> stableGroup(GroupShardTestContext context, String groupId,
                                    GroupShardTestContext.JoinBuilder... joins) {
        List<String> memberIds = new ArrayList<>();
        for (GroupShardTestContext.JoinBuilder join : joins) {
            Result result = join.version(3).send();
            if (!(result.reply() instanceof Result.Reply.Parked parked)) {
                throw new AssertionError("join should park, got " + result.reply());
            }
            memberIds.add(parked.key().memberId());
        }
        int delayMs = context.shard().config().initialRebalanceDelayMs();
        for (int i = 0; i < 100 && !context.group(groupId).isInState(ClassicGroupState.COMPLETING_REBALANCE); i++) {
            context.sleep(delayMs);
        }
        for (String memberId : memberIds) {
            JoinGroupResponse response = context.takeJoin(groupId, memberId);
            if (response == null || response.error() != ErrorCode.NONE || response.generationId() != 1) {
                throw new AssertionError("join of " + memberId + " did not complete: " + response);
            }
        }
        List<Command.MemberAssignment> assignments = new ArrayList<>();
        for (int i = 0; i < memberIds.size(); i++) {
            assignments.add(new Command.MemberAssignment(memberIds.get(i), assignment(i)));
        }
        String leaderId = context.group(groupId).leaderId();
        expectSyncNone(context.sync(groupId, leaderId, 1, assignments));
        for (String memberId : memberIds) {
            if (!memberId.equals(leaderId)) {
                expectSyncNone(context.sync(groupId, memberId, 1, List.of()));
            }
        }
        return memberIds;
    }

    /** The assignment {@link #stableGroup} gives the member at {@code index} in join order. */
    static Bytes assignment(int index) {
        return Bytes.copyOf(new byte[] {(byte) (index + 1)});
    }

    private static void expectSyncNone(Result result) {
        if (!(result.immediateResponse() instanceof SyncGroupResponse response) || response.error() != ErrorCode.NONE) {
            throw new AssertionError("sync failed: " + result.reply());
        }
    }

    /** The same group value in another state (Dead is reachable only by replaying such a value). */
    static ClassicGroup inState(ClassicGroup group, ClassicGroupState state) {
        return new ClassicGroup(group.groupId(), state, group.state(), group.stateTimestampMs(), group.generationId(),
                group.protocolType(), group.protocolName(), group.leaderId(), group.members(), group.pendingMembers(),
                group.pendingSyncMembers(), group.subscribedTopics(), group.joinTimer(), group.newMemberAdded(),
                group.syncTimer());
    }

    /** Replays the group's current value in state Dead. */
    static void makeDead(GroupShardTestContext context, String groupId) {
        context.replay(new CoordinatorRecord.GroupValue(inState(context.group(groupId), ClassicGroupState.DEAD)));
    }
}
