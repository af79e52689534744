package io.cohort.raft.log;

import com.google.protobuf.ByteString;
import io.cohort.core.command.Command;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.raft.log.proto.AlterTopicsCommand;
import io.cohort.raft.log.proto.CreateTopicsCommand;
import io.cohort.raft.log.proto.DeleteTopicsCommand;
import io.cohort.raft.log.proto.NewTopicProto;
import io.cohort.raft.log.proto.PartitionRacksProto;
import io.cohort.raft.log.proto.TopicChangeProto;
import io.cohort.raft.log.proto.TopicValueProto;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The persisted form of the topic registry's commands (CreateTopics, AlterTopics, DeleteTopics;
 * log format 4) and of its snapshot record (TopicValue; snapshot format 4). A topic id is 16 bytes,
 * the UUID's most significant byte first; any other length is a {@link LogFormatException}.
 */
final class TopicCodec {
    private static final int UUID_BYTES = 16;

    private TopicCodec() {
    }

    static CreateTopicsCommand toProto(Command.CreateTopics command) {
        CreateTopicsCommand.Builder proto = CreateTopicsCommand.newBuilder().setValidateOnly(command.validateOnly());
        for (Command.NewTopic topic : command.topics()) {
            proto.addTopics(NewTopicProto.newBuilder()
                    .setTopicId(toProto(topic.topicId()))
                    .setName(topic.name())
                    .setPartitionCount(topic.partitionCount())
                    .addAllPartitionRacks(toProto(topic.partitionRacks())));
        }
        return proto.build();
    }

    static Command.CreateTopics fromProto(CreateTopicsCommand proto) {
        List<Command.NewTopic> topics = new ArrayList<>(proto.getTopicsCount());
        for (NewTopicProto topic : proto.getTopicsList()) {
            topics.add(new Command.NewTopic(uuid(topic.getTopicId(), topic.getName()), topic.getName(),
                    topic.getPartitionCount(), fromProto(topic.getPartitionRacksList())));
        }
        return new Command.CreateTopics(topics, proto.getValidateOnly());
    }

    static AlterTopicsCommand toProto(Command.AlterTopics command) {
        AlterTopicsCommand.Builder proto = AlterTopicsCommand.newBuilder().setValidateOnly(command.validateOnly());
        for (Command.TopicChange topic : command.topics()) {
            proto.addTopics(TopicChangeProto.newBuilder()
                    .setName(topic.name())
                    .setPartitionCount(topic.partitionCount())
                    .addAllPartitionRacks(toProto(topic.partitionRacks())));
        }
        return proto.build();
    }

    static Command.AlterTopics fromProto(AlterTopicsCommand proto) {
        List<Command.TopicChange> topics = new ArrayList<>(proto.getTopicsCount());
        for (TopicChangeProto topic : proto.getTopicsList()) {
            topics.add(new Command.TopicChange(topic.getName(), topic.getPartitionCount(),
                    fromProto(topic.getPartitionRacksList())));
        }
        return new Command.AlterTopics(topics, proto.getValidateOnly());
    }

    static DeleteTopicsCommand toProto(Command.DeleteTopics command) {
        return DeleteTopicsCommand.newBuilder().addAllNames(command.names()).build();
    }

    static Command.DeleteTopics fromProto(DeleteTopicsCommand proto) {
        return new Command.DeleteTopics(proto.getNamesList());
    }

    static TopicValueProto toProto(TopicMetadata topic) {
        return TopicValueProto.newBuilder()
                .setTopicId(toProto(topic.topicId()))
                .setName(topic.name())
                .setPartitionCount(topic.partitionCount())
                .addAllPartitionRacks(toProto(topic.partitionRacks()))
                .build();
    }

    static TopicMetadata fromProto(TopicValueProto proto) {
        try {
            return new TopicMetadata(uuid(proto.getTopicId(), proto.getName()), proto.getName(),
                    proto.getPartitionCount(), fromProto(proto.getPartitionRacksList()));
        } catch (IllegalArgumentException e) {
            throw new LogFormatException("Invalid topic " + proto.getName() + ": " + e.getMessage(), e);
        }
    }

    static ByteString toProto(UUID id) {
        return ByteString.copyFrom(ByteBuffer.allocate(UUID_BYTES)
                .putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array());
    }

    private static UUID uuid(ByteString bytes, String topic) {
        if (bytes.size() != UUID_BYTES) {
            throw new LogFormatException("Topic " + topic + " has a topic_id of " + bytes.size() + " bytes, not "
                    + UUID_BYTES);
        }
        ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
        return new UUID(buffer.getLong(), buffer.getLong());
    }

    private static List<PartitionRacksProto> toProto(List<List<String>> racks) {
        List<PartitionRacksProto> protos = new ArrayList<>(racks.size());
        for (List<String> partition : racks) {
            protos.add(PartitionRacksProto.newBuilder().addAllRacks(partition).build());
        }
        return protos;
    }

    private static List<List<String>> fromProto(List<PartitionRacksProto> protos) {
        List<List<String>> racks = new ArrayList<>(protos.size());
        for (PartitionRacksProto partition : protos) {
            racks.add(List.copyOf(partition.getRacksList()));
        }
        return racks;
    }
}
