package io.cohort.core.consumer.assignor;

import java.util.List;

/**
 * The server assignors a shard is built with when none are given. The assignors engineer's branch
 * provides {@code uniform} and {@code range} here; this placeholder lets the consumer-group core
 * build on its own branch, where groups need an explicit assignor list.
 */
public final class ServerAssignors {
    private ServerAssignors() {
    }

    /** The built-in assignors, in group.consumer.assignors default order. */
    public static List<ServerAssignor> defaults() {
        return List.of();
    }
}
