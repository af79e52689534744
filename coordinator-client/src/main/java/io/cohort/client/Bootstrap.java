package io.cohort.client;

import java.util.Map;

/**
 * Where a client or the CLI looks for the cluster when it is not told: the {@value #ENV} environment
 * variable if set, else every node of a local {@code scripts/cluster.sh up} ({@value #LOCAL_NODES}).
 * A list rather than the first node alone, so that the README's sequence keeps working after
 * {@code scripts/cluster.sh kill 1}: the client tries the next node at once.
 */
public final class Bootstrap {
    /** The environment variable naming the bootstrap nodes, {@code HOST:PORT[,HOST:PORT...]}. */
    public static final String ENV = "COHORT_BOOTSTRAP";
    /** The client ports of scripts/cluster.sh's default three nodes. */
    public static final String LOCAL_NODES = "127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103";

    private Bootstrap() {
    }

    /** The default bootstrap list for this process's environment. */
    public static String defaultEndpoints() {
        return defaultEndpoints(System.getenv());
    }

    static String defaultEndpoints(Map<String, String> environment) {
        String configured = environment.get(ENV);
        return configured == null || configured.isBlank() ? LOCAL_NODES : configured.trim();
    }
}
