package io.cohort.core.shard;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.assignor.AssignmentSpec;
import io.cohort.core.consumer.assignor.AssignorException;
import io.cohort.core.consumer.assignor.GroupAssignment;
import io.cohort.core.consumer.assignor.ServerAssignor;
import java.util.Map;
import java.util.TreeMap;

/**
 * A server assignor returning a prepared result, as Kafka's MockPartitionAssignor: tests decide
 * the target assignment and check what the coordinator does with it. Remembers the last spec.
 */
final class MockPartitionAssignor implements ServerAssignor {
    private final String name;
    private Map<String, Assignment> prepared = new TreeMap<>();
    private String failure;
    AssignmentSpec lastSpec;
    int calls;

    MockPartitionAssignor(String name) {
        this.name = name;
    }

    void prepare(Map<String, Assignment> assignment) {
        this.prepared = new TreeMap<>(assignment);
        this.failure = null;
    }

    void failWith(String message) {
        this.failure = message;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public GroupAssignment assign(AssignmentSpec spec) {
        calls++;
        lastSpec = spec;
        if (failure != null) {
            throw new AssignorException(failure);
        }
        TreeMap<String, Assignment> result = new TreeMap<>();
        for (String memberId : spec.members().keySet()) {
            result.put(memberId, prepared.getOrDefault(memberId, Assignment.EMPTY));
        }
        return new GroupAssignment(result);
    }
}
