package io.cohort.server.rpc;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.PartitionRacks;
import io.cohort.api.v1.TopicDescription;
import io.cohort.api.v1.TopicResult;
import io.cohort.core.ErrorCode;
import io.cohort.core.response.TopicChangeResponse;
import io.cohort.core.topic.TopicMetadata;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Translation between the topic registry's core values and the public API (topics.proto). */
final class TopicProtos {
    private TopicProtos() {
    }

    static TopicDescription toProto(TopicMetadata topic) {
        TopicDescription.Builder proto = TopicDescription.newBuilder()
                .setName(topic.name())
                .setTopicId(toProto(topic.topicId()))
                .setPartitionCount(topic.partitionCount());
        topic.partitionRacks().forEach(racks -> proto.addPartitionRacks(PartitionRacks.newBuilder().addAllRacks(racks)));
        return proto.build();
    }

    static TopicResult toProto(TopicChangeResponse.TopicResult result) {
        TopicResult.Builder proto = TopicResult.newBuilder()
                .setName(result.name())
                .setErrorCode(ErrorTable.toProto(result.error()))
                .setErrorMessage(result.message());
        if (result.topic() != null) {
            proto.setTopic(toProto(result.topic()));
        }
        return proto.build();
    }

    /** The same error for every named topic, in request order (a call refused or failed as a whole). */
    static List<TopicResult> errors(List<String> names, ErrorCode code, String message) {
        List<TopicResult> results = new ArrayList<>(names.size());
        for (String name : names) {
            results.add(TopicResult.newBuilder().setName(name).setErrorCode(ErrorTable.toProto(code))
                    .setErrorMessage(message).build());
        }
        return results;
    }

    static List<List<String>> racks(List<PartitionRacks> protos) {
        List<List<String>> racks = new ArrayList<>(protos.size());
        protos.forEach(partition -> racks.add(List.copyOf(partition.getRacksList())));
        return racks;
    }

    /** 16 bytes, most significant first (topics.proto). */
    static ByteString toProto(UUID id) {
        return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits()).array());
    }
}
