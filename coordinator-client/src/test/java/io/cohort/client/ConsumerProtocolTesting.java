package io.cohort.client;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ConsumerTopicPartitions;
import io.cohort.api.v1.ErrorCode;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/** Builders of consumer-protocol messages for the tests of the client's consumer-protocol loop. */
final class ConsumerProtocolTesting {
    static final UUID TOPIC_A = new UUID(0x0a, 1);
    static final UUID TOPIC_B = new UUID(0x0b, 2);
    static final Map<UUID, String> NAMES = Map.of(TOPIC_A, "a", TOPIC_B, "b");

    private ConsumerProtocolTesting() {
    }

    /** An accepted heartbeat: {@code epoch}, interval 5 s, and the assignment if {@code assignment} is not null. */
    static ConsumerGroupHeartbeatResponse ok(String memberId, int epoch, Map<UUID, int[]> assignment) {
        ConsumerGroupHeartbeatResponse.Builder response = ConsumerGroupHeartbeatResponse.newBuilder()
                .setErrorCode(ErrorCode.NONE).setMemberId(memberId).setMemberEpoch(epoch).setHeartbeatIntervalMs(5000);
        if (assignment != null) {
            ConsumerGroupHeartbeatResponse.Assignment.Builder a = ConsumerGroupHeartbeatResponse.Assignment.newBuilder();
            new TreeMap<>(assignment).forEach((id, partitions) -> {
                ConsumerTopicPartitions.Builder topic = ConsumerTopicPartitions.newBuilder()
                        .setTopicId(TopicIdPartition.bytesOf(id));
                for (int p : partitions) {
                    topic.addPartitions(p);
                }
                a.addTopicPartitions(topic);
            });
            response.setAssignment(a);
        }
        return response.build();
    }

    static ConsumerGroupHeartbeatResponse error(ErrorCode code) {
        return ConsumerGroupHeartbeatResponse.newBuilder().setErrorCode(code).setErrorMessage("test says " + code)
                .build();
    }

    /** The owned partitions a request reports, as "topic:partition" by topic name; null if absent. */
    static TreeSet<String> owned(ConsumerGroupHeartbeatRequest request) {
        if (!request.hasTopicPartitions()) {
            return null;
        }
        TreeSet<String> out = new TreeSet<>();
        for (ConsumerTopicPartitions topic : request.getTopicPartitions().getTopicsList()) {
            String name = NAMES.get(TopicIdPartition.uuidOf(topic.getTopicId()));
            topic.getPartitionsList().forEach(p -> out.add(name + ":" + p));
        }
        return out;
    }
}
