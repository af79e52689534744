package io.cohort.core.consumer.assignor;

import java.util.List;

/** The server assignors a node offers (Kafka's {@code group.consumer.assignors}). */
public final class ServerAssignors {
    private ServerAssignors() {
    }

    /** [uniform, range]: the first is the default, as in Kafka. */
    public static List<ServerAssignor> defaults() {
        return List.of(new UniformAssignor(), new RangeAssignor());
    }

    /** The assignor of that name among {@code assignors}, or null if none has it. */
    public static ServerAssignor byName(List<ServerAssignor> assignors, String name) {
        for (ServerAssignor assignor : assignors) {
            if (assignor.name().equals(name)) {
                return assignor;
            }
        }
        return null;
    }
}
