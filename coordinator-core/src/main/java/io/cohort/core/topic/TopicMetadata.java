package io.cohort.core.topic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One topic as the topic registry holds it (partition 0's state) and as a consumer-protocol
 * heartbeat command carries it: the leader of a group's partition copies the subscribed topics'
 * metadata from its replica of the registry into the command, so every replica of the group's
 * partition computes the same target assignment from the log alone.
 *
 * @param topicId        chosen when the topic is created (by the proposing node, carried in the
 *                       command), kept until it is deleted
 * @param partitionRacks empty, or one list of rack ids per partition (index = partition)
 */
public record TopicMetadata(UUID topicId, String name, int partitionCount, List<List<String>> partitionRacks) {
    public TopicMetadata {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(name, "name");
        if (partitionCount < 1) {
            throw new IllegalArgumentException("partitionCount must be >= 1: " + partitionCount);
        }
        List<List<String>> copy = new ArrayList<>(partitionRacks.size());
        for (List<String> racks : partitionRacks) {
            copy.add(List.copyOf(racks));
        }
        partitionRacks = List.copyOf(copy);
        if (!partitionRacks.isEmpty() && partitionRacks.size() != partitionCount) {
            throw new IllegalArgumentException("partitionRacks must be empty or have " + partitionCount
                    + " entries, has " + partitionRacks.size());
        }
    }

    /** The racks of one partition's replicas; empty when the topic has no rack information. */
    public List<String> racksOf(int partition) {
        return partitionRacks.isEmpty() ? List.of() : partitionRacks.get(partition);
    }
}
