package io.cohort.server.rpc;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.ConsumerAssignment;
import io.cohort.api.v1.ConsumerSubscription;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.TopicPartitions;

/** Request builders for the service tests: a "consumer" group subscribed to topic "t". */
final class Requests {
    static final int SESSION_TIMEOUT_MS = 10_000;
    static final int REBALANCE_TIMEOUT_MS = 20_000;
    static final ByteString SUBSCRIPTION = ConsumerSubscription.newBuilder().addTopics("t").build().toByteString();

    private Requests() {
    }

    static JoinGroupRequest join(String groupId, String memberId, String clientId) {
        return JoinGroupRequest.newBuilder()
                .setGroupId(groupId)
                .setMemberId(memberId)
                .setSessionTimeoutMs(SESSION_TIMEOUT_MS)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS)
                .setProtocolType("consumer")
                .addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("range").setMetadata(SUBSCRIPTION))
                .setClientId(clientId)
                .build();
    }

    static SyncGroupRequest sync(String groupId, String memberId, int generation) {
        return SyncGroupRequest.newBuilder().setGroupId(groupId).setMemberId(memberId).setGenerationId(generation)
                .setProtocolType("consumer").setProtocolName("range").build();
    }

    static SyncGroupRequest.Assignment assignment(String memberId, ByteString assignment) {
        return SyncGroupRequest.Assignment.newBuilder().setMemberId(memberId).setAssignment(assignment).build();
    }

    static ByteString assigned(int... partitions) {
        TopicPartitions.Builder topic = TopicPartitions.newBuilder().setTopic("t");
        for (int partition : partitions) {
            topic.addPartitions(partition);
        }
        return ConsumerAssignment.newBuilder().addAssignedPartitions(topic).build().toByteString();
    }

    static HeartbeatRequest heartbeat(String groupId, String memberId, int generation) {
        return HeartbeatRequest.newBuilder().setGroupId(groupId).setMemberId(memberId).setGenerationId(generation)
                .build();
    }

    static OffsetCommitRequest commit(String groupId, String memberId, int generation, String topic, int partition,
                                      long offset) {
        return OffsetCommitRequest.newBuilder()
                .setGroupId(groupId)
                .setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(generation)
                .addTopics(OffsetCommitRequest.Topic.newBuilder().setName(topic)
                        .addPartitions(OffsetCommitRequest.Partition.newBuilder()
                                .setPartitionIndex(partition).setCommittedOffset(offset)))
                .build();
    }

    static OffsetFetchRequest fetch(String groupId, ReadConsistency consistency, String topic, int... partitions) {
        OffsetFetchRequest.Group.Builder group = OffsetFetchRequest.Group.newBuilder().setGroupId(groupId);
        if (topic != null) {
            OffsetFetchRequest.Topic.Builder t = OffsetFetchRequest.Topic.newBuilder().setName(topic);
            for (int partition : partitions) {
                t.addPartitionIndexes(partition);
            }
            group.addTopics(t);
        }
        return OffsetFetchRequest.newBuilder().addGroups(group).setConsistency(consistency).build();
    }
}
