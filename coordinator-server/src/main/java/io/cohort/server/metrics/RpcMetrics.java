package io.cohort.server.metrics;

/**
 * What the gRPC front end reports per call. The node's metrics registry implements it with
 * Prometheus; tests use {@link #NONE}.
 */
public interface RpcMetrics {
    RpcMetrics NONE = (rpc, errorCode, latencyNanos) -> { };

    /**
     * One finished call.
     *
     * @param rpc          the RPC name, e.g. "JoinGroup"
     * @param errorCode    the Kafka error name of the answer ("NONE" on success; for calls with
     *                     per-item codes, the first non-NONE code or "NONE"), or "INVALID_ARGUMENT"
     *                     / "CANCELLED" / "INTERNAL" for gRPC-level outcomes
     * @param latencyNanos time from receipt to answer
     */
    void record(String rpc, String errorCode, long latencyNanos);
}
