package io.cohort.core.consumer.assignor;

import java.util.TreeMap;

/**
 * The {@code uniform} server assignor (Kafka's {@code UniformAssignor}, the default): balanced,
 * sticky and rack-aware. All members subscribing to the same topics take the homogeneous path
 * ({@link UniformHomogeneousBuilder}: partition counts differ by at most one); otherwise the
 * heterogeneous one ({@link UniformHeterogeneousBuilder}: as balanced as the subscriptions
 * allow). Subscribed topics missing from the spec are skipped; a member subscribing to nothing
 * that exists gets an empty assignment.
 */
public final class UniformAssignor implements ServerAssignor {
    public static final String NAME = "uniform";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(AssignmentSpec spec) {
        if (spec.members().isEmpty()) {
            return new GroupAssignment(new TreeMap<>());
        }
        IndexedSpec indexed = new IndexedSpec(spec);
        if (indexed.homogeneous()) {
            return new UniformHomogeneousBuilder(indexed).build();
        }
        return new UniformHeterogeneousBuilder(indexed).build();
    }
}
