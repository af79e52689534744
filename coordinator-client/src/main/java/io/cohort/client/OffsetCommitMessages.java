package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** OffsetCommit requests as the client builds them, and what their responses say. */
final class OffsetCommitMessages {
    private OffsetCommitMessages() {
    }

    /** Builds an OffsetCommit request. */
    static OffsetCommitRequest request(String groupId, int generationId, String memberId,
            Optional<String> groupInstanceId, Map<TopicPartition, OffsetAndMetadata> offsets) {
        OffsetCommitRequest.Builder request = OffsetCommitRequest.newBuilder().setGroupId(groupId)
                .setGenerationIdOrMemberEpoch(generationId).setMemberId(memberId);
        groupInstanceId.ifPresent(request::setGroupInstanceId);
        Map<String, OffsetCommitRequest.Topic.Builder> topics = new TreeMap<>();
        new TreeMap<>(offsets).forEach((tp, offset) -> topics
                .computeIfAbsent(tp.topic(), t -> OffsetCommitRequest.Topic.newBuilder().setName(t))
                .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(tp.partition())
                        .setCommittedOffset(offset.offset()).setCommittedLeaderEpoch(offset.leaderEpoch())
                        .setCommittedMetadata(offset.metadata())));
        topics.values().forEach(request::addTopics);
        return request.build();
    }

    /** Throws the first partition error of a commit response, if any. */
    static void throwIfFailed(OffsetCommitResponse response, String groupId) {
        for (OffsetCommitResponse.Topic topic : response.getTopicsList()) {
            for (OffsetCommitResponse.Partition p : topic.getPartitionsList()) {
                if (p.getErrorCode() != ErrorCode.NONE) {
                    throw new CohortException(p.getErrorCode(), "committing " + topic.getName() + ":"
                            + p.getPartitionIndex() + " for group '" + groupId + "'"
                            + (response.getErrorMessage().isEmpty() ? "" : ": " + response.getErrorMessage()));
                }
            }
        }
    }

    /** The error code of the first partition of a commit response (the group-level error, copied into every partition). */
    static ErrorCode firstPartitionError(OffsetCommitResponse response) {
        for (OffsetCommitResponse.Topic topic : response.getTopicsList()) {
            for (OffsetCommitResponse.Partition p : topic.getPartitionsList()) {
                return p.getErrorCode();
            }
        }
        return ErrorCode.NONE;
    }
}
