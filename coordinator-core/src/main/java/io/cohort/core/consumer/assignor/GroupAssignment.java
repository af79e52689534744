package io.cohort.core.consumer.assignor;

import io.cohort.core.consumer.Assignment;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/** The output of a {@link ServerAssignor}: every member's new target assignment, by member id. */
public record GroupAssignment(SortedMap<String, Assignment> members) {
    public GroupAssignment {
        members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
    }
}
