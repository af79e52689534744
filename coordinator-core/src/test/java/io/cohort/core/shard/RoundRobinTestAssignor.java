package io.cohort.core.shard;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.assignor.AssignmentSpec;
import io.cohort.core.consumer.assignor.GroupAssignment;
import io.cohort.core.consumer.assignor.ServerAssignor;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A deterministic test assignor for simulations (the real uniform and range assignors live on the
 * assignors engineer's branch): each topic's partitions dealt round-robin over the members that
 * subscribe to it, in member id order. Not sticky, so it moves many partitions: a good stress of
 * revoke-before-assign.
 */
public final class RoundRobinTestAssignor implements ServerAssignor {
    private final String name;

    public RoundRobinTestAssignor(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public GroupAssignment assign(AssignmentSpec spec) {
        Map<String, Map<UUID, SortedSet<Integer>>> result = new TreeMap<>();
        spec.members().keySet().forEach(m -> result.put(m, new TreeMap<>()));
        for (Map.Entry<UUID, TopicMetadata> topic : spec.topics().entrySet()) {
            List<String> subscribers = new ArrayList<>();
            spec.members().forEach((id, member) -> {
                if (member.subscribedTopicIds().contains(topic.getKey())) {
                    subscribers.add(id);
                }
            });
            if (subscribers.isEmpty()) {
                continue;
            }
            for (int p = 0; p < topic.getValue().partitionCount(); p++) {
                result.get(subscribers.get(p % subscribers.size()))
                        .computeIfAbsent(topic.getKey(), t -> new TreeSet<>()).add(p);
            }
        }
        TreeMap<String, Assignment> assignments = new TreeMap<>();
        result.forEach((member, parts) -> assignments.put(member, Assignment.of(parts)));
        return new GroupAssignment(assignments);
    }
}
