package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.TopicChangeResponse;
import io.cohort.core.response.TopicChangeResponse.TopicResult;
import io.cohort.core.topic.TopicMetadata;
import io.cohort.core.topic.TopicNames;
import io.cohort.core.topic.TopicRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * CreateTopics, AlterTopics and DeleteTopics: reads the applied topic registry, emits
 * {@link CoordinatorRecord.TopicValue} and {@link CoordinatorRecord.TopicTombstone} records, with
 * Kafka's rules and errors per topic (one topic's error does not stop the others, as in Kafka).
 * A topic named more than once in one command is refused at every occurrence (INVALID_REQUEST), as
 * Kafka's CreateTopics and DeleteTopics do. With validate_only every rule is checked and the answer
 * is what the command would do, with no record.
 */
final class TopicHandler {
    private final Supplier<TopicRegistry> registry;

    TopicHandler(Supplier<TopicRegistry> registry) {
        this.registry = registry;
    }

    void createTopics(Command.CreateTopics command, ResultBuilder result) {
        TopicRegistry current = registry.get();
        Set<String> duplicates = duplicates(command.topics().stream().map(Command.NewTopic::name).toList());
        Map<String, String> collisionKeys = new HashMap<>();
        current.byName().keySet().forEach(name -> collisionKeys.put(TopicNames.collisionKey(name), name));
        Set<UUID> idsTaken = new HashSet<>();
        int topicCount = current.size();
        List<TopicResult> results = new ArrayList<>();
        for (Command.NewTopic topic : command.topics()) {
            String name = topic.name();
            String invalidName = TopicNames.invalidReason(name);
            TopicResult refusal;
            if (duplicates.contains(name)) {
                refusal = TopicResult.error(name, ErrorCode.INVALID_REQUEST, duplicateMessage(name));
            } else if (invalidName != null) {
                refusal = TopicResult.error(name, ErrorCode.INVALID_TOPIC_EXCEPTION, invalidName);
            } else if (current.contains(name)) {
                refusal = TopicResult.error(name, ErrorCode.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
            } else if (collisionKeys.containsKey(TopicNames.collisionKey(name))) {
                refusal = TopicResult.error(name, ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic '" + name
                        + "' collides with existing topic: " + collisionKeys.get(TopicNames.collisionKey(name))
                        + " (topic names that differ only in '.' and '_' collide in metric names)");
            } else if (current.get(topic.topicId()) != null || !idsTaken.add(topic.topicId())) {
                refusal = TopicResult.error(name, ErrorCode.INVALID_REQUEST, "topic id " + topic.topicId()
                        + " is already in use; the proposing node must choose another (retry)");
            } else if (topicCount >= StateLimits.MAX_TOPICS) {
                refusal = TopicResult.error(name, ErrorCode.INVALID_REQUEST, "the topic registry holds " + topicCount
                        + " topics, its limit (" + StateLimits.MAX_TOPICS + "); delete topics before creating more");
            } else {
                refusal = layoutRefusal(name, topic.partitionCount(), topic.partitionRacks(), 0);
            }
            if (refusal != null) {
                results.add(refusal);
                continue;
            }
            TopicMetadata created = new TopicMetadata(topic.topicId(), name, topic.partitionCount(),
                    topic.partitionRacks());
            collisionKeys.put(TopicNames.collisionKey(name), name);
            topicCount++;
            if (!command.validateOnly()) {
                result.record(new CoordinatorRecord.TopicValue(created));
            }
            results.add(TopicResult.ok(created));
        }
        result.replyNow(new TopicChangeResponse(results));
    }

    void alterTopics(Command.AlterTopics command, ResultBuilder result) {
        TopicRegistry current = registry.get();
        Set<String> duplicates = duplicates(command.topics().stream().map(Command.TopicChange::name).toList());
        List<TopicResult> results = new ArrayList<>();
        for (Command.TopicChange change : command.topics()) {
            String name = change.name();
            TopicMetadata existing = current.get(name);
            TopicResult refusal;
            if (duplicates.contains(name)) {
                refusal = TopicResult.error(name, ErrorCode.INVALID_REQUEST, duplicateMessage(name));
            } else if (existing == null) {
                refusal = TopicResult.error(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        "The topic '" + name + "' does not exist.");
            } else {
                refusal = layoutRefusal(name, change.partitionCount(), change.partitionRacks(),
                        existing.partitionCount());
            }
            if (refusal != null) {
                results.add(refusal);
                continue;
            }
            TopicMetadata altered = new TopicMetadata(existing.topicId(), name, change.partitionCount(),
                    change.partitionRacks());
            if (!command.validateOnly() && !altered.equals(existing)) {
                result.record(new CoordinatorRecord.TopicValue(altered));
            }
            results.add(TopicResult.ok(altered));
        }
        result.replyNow(new TopicChangeResponse(results));
    }

    void deleteTopics(Command.DeleteTopics command, ResultBuilder result) {
        TopicRegistry current = registry.get();
        Set<String> duplicates = duplicates(command.names());
        List<TopicResult> results = new ArrayList<>();
        for (String name : command.names()) {
            TopicMetadata existing = current.get(name);
            if (duplicates.contains(name)) {
                results.add(TopicResult.error(name, ErrorCode.INVALID_REQUEST, duplicateMessage(name)));
            } else if (existing == null) {
                results.add(TopicResult.error(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        "The topic '" + name + "' does not exist."));
            } else {
                result.record(new CoordinatorRecord.TopicTombstone(name));
                results.add(TopicResult.ok(existing));
            }
        }
        result.replyNow(new TopicChangeResponse(results));
    }

    /**
     * Why a topic may not have {@code partitionCount} partitions with {@code racks}, or null:
     * INVALID_PARTITIONS for a count below 1, below {@code currentCount} (partitions are never
     * removed, as in Kafka's CreatePartitions) or over the limit; INVALID_REQUEST for racks that are
     * not empty and not one list per partition, or an empty rack id.
     */
    private static TopicResult layoutRefusal(String name, int partitionCount, List<List<String>> racks,
                                             int currentCount) {
        if (partitionCount < 1) {
            return TopicResult.error(name, ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
        }
        if (partitionCount < currentCount) {
            return TopicResult.error(name, ErrorCode.INVALID_PARTITIONS, "Topic currently has " + currentCount
                    + " partitions, which is higher than the requested " + partitionCount + ".");
        }
        if (partitionCount > StateLimits.MAX_PARTITIONS_PER_TOPIC) {
            return TopicResult.error(name, ErrorCode.INVALID_PARTITIONS, "Number of partitions " + partitionCount
                    + " is over the registry's limit of " + StateLimits.MAX_PARTITIONS_PER_TOPIC + " per topic.");
        }
        if (!racks.isEmpty() && racks.size() != partitionCount) {
            return TopicResult.error(name, ErrorCode.INVALID_REQUEST, "partition_racks has " + racks.size()
                    + " entries; it must be empty or have one per partition (" + partitionCount + ")");
        }
        for (List<String> partitionRacks : racks) {
            if (partitionRacks.stream().anyMatch(rack -> rack == null || rack.isEmpty())) {
                return TopicResult.error(name, ErrorCode.INVALID_REQUEST, "a rack id is empty");
            }
        }
        return null;
    }

    private static Set<String> duplicates(List<String> names) {
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                duplicates.add(name);
            }
        }
        return duplicates;
    }

    private static String duplicateMessage(String name) {
        return "the request names topic '" + name + "' more than once";
    }
}
