package io.cohort.raft.log;

import com.google.protobuf.ByteString;
import io.cohort.core.command.Command;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.ConsumerMemberMetadata;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.raft.log.proto.CommandProto;
import io.cohort.raft.log.proto.ConsumerAssignmentEpochProto;
import io.cohort.raft.log.proto.ConsumerAssignmentProto;
import io.cohort.raft.log.proto.ConsumerCurrentAssignmentProto;
import io.cohort.raft.log.proto.ConsumerGroupEpochProto;
import io.cohort.raft.log.proto.ConsumerGroupHeartbeatCommand;
import io.cohort.raft.log.proto.ConsumerMemberMetadataProto;
import io.cohort.raft.log.proto.ConsumerRackListProto;
import io.cohort.raft.log.proto.ConsumerRegexResolutionProto;
import io.cohort.raft.log.proto.ConsumerRegexResolutionsProto;
import io.cohort.raft.log.proto.ConsumerSubscriptionMetadataProto;
import io.cohort.raft.log.proto.ConsumerTargetAssignmentProto;
import io.cohort.raft.log.proto.ConsumerTopicLookupProto;
import io.cohort.raft.log.proto.ConsumerTopicMetadataProto;
import io.cohort.raft.log.proto.ConsumerTopicPartitionsProto;
import io.cohort.raft.log.proto.ExpireConsumerMemberCommand;
import io.cohort.raft.log.proto.FireConsumerRebalanceTimeoutCommand;
import io.cohort.raft.log.proto.SnapshotRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The log (format 4) and snapshot (format 4) encodings of KIP-848 consumer groups: the heartbeat and
 * its two timer commands, and the consumer-group records a snapshot holds. Lossless both ways; a
 * nullable core field is a proto {@code optional} (a null list has its own presence flag).
 */
final class ConsumerGroupCodec {
    private ConsumerGroupCodec() {
    }

    /** Whether {@code command} is one of this codec's (format 4) commands. */
    static boolean isConsumerGroupCommand(Command command) {
        return command instanceof ConsumerGroupHeartbeat || command instanceof Command.ExpireConsumerMember
                || command instanceof Command.FireConsumerRebalanceTimeout;
    }

    /** Whether {@code record} is one of this codec's (format 4) snapshot records. */
    static boolean isConsumerGroupSnapshotRecord(CoordinatorRecord record) {
        return record instanceof CoordinatorRecord.ConsumerGroupEpochValue
                || record instanceof CoordinatorRecord.ConsumerSubscriptionMetadataValue
                || record instanceof CoordinatorRecord.ConsumerRegexResolutionsValue
                || record instanceof CoordinatorRecord.ConsumerAssignmentEpochValue
                || record instanceof CoordinatorRecord.ConsumerMemberMetadataValue
                || record instanceof CoordinatorRecord.ConsumerTargetAssignmentValue
                || record instanceof CoordinatorRecord.ConsumerCurrentAssignmentValue;
    }

    // ----- commands ---------------------------------------------------------------------------

    static void toProto(Command command, CommandProto.Builder proto) {
        if (command instanceof ConsumerGroupHeartbeat c) {
            proto.setConsumerGroupHeartbeat(heartbeat(c));
        } else if (command instanceof Command.ExpireConsumerMember c) {
            proto.setExpireConsumerMember(ExpireConsumerMemberCommand.newBuilder()
                    .setGroupId(c.groupId()).setMemberId(c.memberId()));
        } else if (command instanceof Command.FireConsumerRebalanceTimeout c) {
            proto.setFireConsumerRebalanceTimeout(FireConsumerRebalanceTimeoutCommand.newBuilder()
                    .setGroupId(c.groupId()).setMemberId(c.memberId()).setMemberEpoch(c.memberEpoch()));
        } else {
            throw new IllegalArgumentException("Not a consumer-group command: " + command);
        }
    }

    private static ConsumerGroupHeartbeatCommand.Builder heartbeat(ConsumerGroupHeartbeat c) {
        ConsumerGroupHeartbeatCommand.Builder proto = ConsumerGroupHeartbeatCommand.newBuilder()
                .setGroupId(c.groupId())
                .setMemberId(c.memberId())
                .setMemberEpoch(c.memberEpoch())
                .setRebalanceTimeoutMs(c.rebalanceTimeoutMs())
                .setClientId(c.clientId())
                .setClientHost(c.clientHost())
                .setTopics(lookup(c.topics()));
        if (c.instanceId() != null) {
            proto.setInstanceId(c.instanceId());
        }
        if (c.rackId() != null) {
            proto.setRackId(c.rackId());
        }
        if (c.subscribedTopicNames() != null) {
            proto.setSubscribedTopicNamesPresent(true).addAllSubscribedTopicNames(
                    LogCodec.requiredElementsOf(c.subscribedTopicNames(), "ConsumerGroupHeartbeat.subscribedTopicNames"));
        }
        if (c.subscribedTopicRegex() != null) {
            proto.setSubscribedTopicRegex(c.subscribedTopicRegex());
        }
        if (c.serverAssignor() != null) {
            proto.setServerAssignor(c.serverAssignor());
        }
        if (c.ownedPartitions() != null) {
            proto.setOwnedPartitions(assignment(c.ownedPartitions()));
        }
        return proto;
    }

    static Command fromProto(CommandProto proto) {
        return switch (proto.getCommandCase()) {
            case CONSUMER_GROUP_HEARTBEAT -> heartbeat(proto.getConsumerGroupHeartbeat());
            case EXPIRE_CONSUMER_MEMBER -> new Command.ExpireConsumerMember(
                    proto.getExpireConsumerMember().getGroupId(), proto.getExpireConsumerMember().getMemberId());
            case FIRE_CONSUMER_REBALANCE_TIMEOUT -> new Command.FireConsumerRebalanceTimeout(
                    proto.getFireConsumerRebalanceTimeout().getGroupId(),
                    proto.getFireConsumerRebalanceTimeout().getMemberId(),
                    proto.getFireConsumerRebalanceTimeout().getMemberEpoch());
            default -> throw new IllegalArgumentException("Not a consumer-group command: " + proto.getCommandCase());
        };
    }

    private static ConsumerGroupHeartbeat heartbeat(ConsumerGroupHeartbeatCommand p) {
        return new ConsumerGroupHeartbeat(p.getGroupId(), p.getMemberId(), p.getMemberEpoch(),
                p.hasInstanceId() ? p.getInstanceId() : null, p.hasRackId() ? p.getRackId() : null,
                p.getRebalanceTimeoutMs(),
                p.getSubscribedTopicNamesPresent() ? p.getSubscribedTopicNamesList() : null,
                p.hasSubscribedTopicRegex() ? p.getSubscribedTopicRegex() : null,
                p.hasServerAssignor() ? p.getServerAssignor() : null,
                p.hasOwnedPartitions() ? assignment(p.getOwnedPartitions()) : null,
                p.getClientId(), p.getClientHost(), lookup(p.getTopics()));
    }

    private static ConsumerTopicLookupProto lookup(TopicLookup lookup) {
        ConsumerTopicLookupProto.Builder proto = ConsumerTopicLookupProto.newBuilder();
        lookup.found().values().forEach(topic -> proto.addFound(topic(topic)));
        proto.addAllMissing(lookup.missing());
        lookup.regexResolutions().forEach((regex, topics) -> proto.addRegexResolutions(
                ConsumerRegexResolutionProto.newBuilder().setRegex(regex).addAllTopics(topics)));
        return proto.build();
    }

    private static TopicLookup lookup(ConsumerTopicLookupProto p) {
        TreeMap<String, TopicMetadata> found = new TreeMap<>();
        for (ConsumerTopicMetadataProto topic : p.getFoundList()) {
            TopicMetadata metadata = topic(topic);
            found.put(metadata.name(), metadata);
        }
        return new TopicLookup(found, new TreeSet<>(p.getMissingList()), resolutions(p.getRegexResolutionsList()));
    }

    // ----- snapshot records -------------------------------------------------------------------

    static SnapshotRecord toProto(CoordinatorRecord record) {
        SnapshotRecord.Builder proto = SnapshotRecord.newBuilder();
        if (record instanceof CoordinatorRecord.ConsumerGroupEpochValue r) {
            proto.setConsumerGroupEpoch(ConsumerGroupEpochProto.newBuilder().setGroupId(r.groupId())
                    .setGroupEpoch(r.groupEpoch()));
        } else if (record instanceof CoordinatorRecord.ConsumerSubscriptionMetadataValue r) {
            ConsumerSubscriptionMetadataProto.Builder m = ConsumerSubscriptionMetadataProto.newBuilder()
                    .setGroupId(r.groupId());
            r.topics().values().forEach(topic -> m.addTopics(topic(topic)));
            proto.setConsumerSubscriptionMetadata(m);
        } else if (record instanceof CoordinatorRecord.ConsumerRegexResolutionsValue r) {
            ConsumerRegexResolutionsProto.Builder m = ConsumerRegexResolutionsProto.newBuilder().setGroupId(r.groupId());
            r.resolutions().forEach((regex, topics) -> m.addResolutions(ConsumerRegexResolutionProto.newBuilder()
                    .setRegex(regex).addAllTopics(topics)));
            proto.setConsumerRegexResolutions(m);
        } else if (record instanceof CoordinatorRecord.ConsumerAssignmentEpochValue r) {
            proto.setConsumerAssignmentEpoch(ConsumerAssignmentEpochProto.newBuilder().setGroupId(r.groupId())
                    .setAssignmentEpoch(r.assignmentEpoch()));
        } else if (record instanceof CoordinatorRecord.ConsumerMemberMetadataValue r) {
            proto.setConsumerMemberMetadata(memberMetadata(r));
        } else if (record instanceof CoordinatorRecord.ConsumerTargetAssignmentValue r) {
            proto.setConsumerTargetAssignment(ConsumerTargetAssignmentProto.newBuilder().setGroupId(r.groupId())
                    .setMemberId(r.memberId()).setAssignment(assignment(r.assignment())));
        } else if (record instanceof CoordinatorRecord.ConsumerCurrentAssignmentValue r) {
            ConsumerMemberAssignment a = r.assignment();
            proto.setConsumerCurrentAssignment(ConsumerCurrentAssignmentProto.newBuilder().setGroupId(r.groupId())
                    .setMemberId(r.memberId()).setMemberEpoch(a.memberEpoch())
                    .setPreviousMemberEpoch(a.previousMemberEpoch()).setState(a.state().value())
                    .setAssignedPartitions(assignment(a.assignedPartitions()))
                    .setPartitionsPendingRevocation(assignment(a.partitionsPendingRevocation())));
        } else {
            throw new IllegalArgumentException("Not a consumer-group snapshot record: " + record);
        }
        return proto.build();
    }

    private static ConsumerMemberMetadataProto.Builder memberMetadata(CoordinatorRecord.ConsumerMemberMetadataValue r) {
        ConsumerMemberMetadata m = r.metadata();
        ConsumerMemberMetadataProto.Builder proto = ConsumerMemberMetadataProto.newBuilder().setGroupId(r.groupId())
                .setMemberId(r.memberId()).setRebalanceTimeoutMs(m.rebalanceTimeoutMs()).setClientId(m.clientId())
                .setClientHost(m.clientHost()).addAllSubscribedTopicNames(m.subscribedTopicNames());
        if (m.instanceId() != null) {
            proto.setInstanceId(m.instanceId());
        }
        if (m.rackId() != null) {
            proto.setRackId(m.rackId());
        }
        if (m.subscribedTopicRegex() != null) {
            proto.setSubscribedTopicRegex(m.subscribedTopicRegex());
        }
        if (m.serverAssignor() != null) {
            proto.setServerAssignor(m.serverAssignor());
        }
        return proto;
    }

    static CoordinatorRecord fromProto(SnapshotRecord proto) {
        return switch (proto.getRecordCase()) {
            case CONSUMER_GROUP_EPOCH -> new CoordinatorRecord.ConsumerGroupEpochValue(
                    proto.getConsumerGroupEpoch().getGroupId(), proto.getConsumerGroupEpoch().getGroupEpoch());
            case CONSUMER_SUBSCRIPTION_METADATA -> {
                TreeMap<String, TopicMetadata> topics = new TreeMap<>();
                for (ConsumerTopicMetadataProto topic : proto.getConsumerSubscriptionMetadata().getTopicsList()) {
                    TopicMetadata metadata = topic(topic);
                    topics.put(metadata.name(), metadata);
                }
                yield new CoordinatorRecord.ConsumerSubscriptionMetadataValue(
                        proto.getConsumerSubscriptionMetadata().getGroupId(), topics);
            }
            case CONSUMER_REGEX_RESOLUTIONS -> new CoordinatorRecord.ConsumerRegexResolutionsValue(
                    proto.getConsumerRegexResolutions().getGroupId(),
                    resolutions(proto.getConsumerRegexResolutions().getResolutionsList()));
            case CONSUMER_ASSIGNMENT_EPOCH -> new CoordinatorRecord.ConsumerAssignmentEpochValue(
                    proto.getConsumerAssignmentEpoch().getGroupId(),
                    proto.getConsumerAssignmentEpoch().getAssignmentEpoch());
            case CONSUMER_MEMBER_METADATA -> {
                ConsumerMemberMetadataProto p = proto.getConsumerMemberMetadata();
                yield new CoordinatorRecord.ConsumerMemberMetadataValue(p.getGroupId(), p.getMemberId(),
                        new ConsumerMemberMetadata(p.hasInstanceId() ? p.getInstanceId() : null,
                                p.hasRackId() ? p.getRackId() : null, p.getRebalanceTimeoutMs(), p.getClientId(),
                                p.getClientHost(), new TreeSet<>(p.getSubscribedTopicNamesList()),
                                p.hasSubscribedTopicRegex() ? p.getSubscribedTopicRegex() : null,
                                p.hasServerAssignor() ? p.getServerAssignor() : null));
            }
            case CONSUMER_TARGET_ASSIGNMENT -> new CoordinatorRecord.ConsumerTargetAssignmentValue(
                    proto.getConsumerTargetAssignment().getGroupId(), proto.getConsumerTargetAssignment().getMemberId(),
                    assignment(proto.getConsumerTargetAssignment().getAssignment()));
            case CONSUMER_CURRENT_ASSIGNMENT -> {
                ConsumerCurrentAssignmentProto p = proto.getConsumerCurrentAssignment();
                yield new CoordinatorRecord.ConsumerCurrentAssignmentValue(p.getGroupId(), p.getMemberId(),
                        new ConsumerMemberAssignment(p.getMemberEpoch(), p.getPreviousMemberEpoch(),
                                MemberState.forValue(p.getState()), assignment(p.getAssignedPartitions()),
                                assignment(p.getPartitionsPendingRevocation())));
            }
            default -> throw new IllegalArgumentException("Not a consumer-group record: " + proto.getRecordCase());
        };
    }

    // ----- shared -------------------------------------------------------------------------------

    static ConsumerAssignmentProto assignment(Assignment assignment) {
        ConsumerAssignmentProto.Builder proto = ConsumerAssignmentProto.newBuilder();
        assignment.partitions().forEach((topicId, partitions) -> proto.addTopics(ConsumerTopicPartitionsProto
                .newBuilder().setTopicId(uuid(topicId)).addAllPartitions(partitions)));
        return proto.build();
    }

    static Assignment assignment(ConsumerAssignmentProto proto) {
        Map<UUID, SortedSet<Integer>> partitions = new TreeMap<>();
        for (ConsumerTopicPartitionsProto topic : proto.getTopicsList()) {
            partitions.computeIfAbsent(uuid(topic.getTopicId()), t -> new TreeSet<>())
                    .addAll(topic.getPartitionsList());
        }
        return Assignment.of(partitions);
    }

    private static ConsumerTopicMetadataProto topic(TopicMetadata topic) {
        ConsumerTopicMetadataProto.Builder proto = ConsumerTopicMetadataProto.newBuilder()
                .setTopicId(uuid(topic.topicId())).setName(topic.name()).setPartitionCount(topic.partitionCount());
        topic.partitionRacks().forEach(racks -> proto.addPartitionRacks(ConsumerRackListProto.newBuilder()
                .addAllRacks(racks)));
        return proto.build();
    }

    private static TopicMetadata topic(ConsumerTopicMetadataProto p) {
        List<List<String>> racks = new ArrayList<>(p.getPartitionRacksCount());
        p.getPartitionRacksList().forEach(list -> racks.add(list.getRacksList()));
        try {
            return new TopicMetadata(uuid(p.getTopicId()), p.getName(), p.getPartitionCount(), racks);
        } catch (IllegalArgumentException e) {
            throw new LogFormatException("Malformed topic metadata of " + p.getName() + ": " + e.getMessage());
        }
    }

    private static SortedMap<String, SortedSet<String>> resolutions(List<ConsumerRegexResolutionProto> protos) {
        TreeMap<String, SortedSet<String>> resolutions = new TreeMap<>();
        protos.forEach(r -> resolutions.put(r.getRegex(), new TreeSet<>(r.getTopicsList())));
        return resolutions;
    }

    static ByteString uuid(UUID id) {
        return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits()).array());
    }

    static UUID uuid(ByteString bytes) {
        if (bytes.size() != 16) {
            throw new LogFormatException("A topic id has 16 bytes, not " + bytes.size());
        }
        ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
        return new UUID(buffer.getLong(), buffer.getLong());
    }
}
