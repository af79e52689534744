package io.cohort.client.internal;

/**
 * The server's group-to-partition function, {@code Utils.abs(groupId.hashCode()) % partitions} as in
 * Kafka. Repeated here because the client depends on the API only; a test pins it to the server's.
 */
public final class Partitioner {
    private Partitioner() {
    }

    public static int partitionFor(String groupId, int partitions) {
        int hash = groupId.hashCode();
        // Kafka's Utils.abs: MIN_VALUE maps to 0, where Math.abs would stay negative.
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }
}
