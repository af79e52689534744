package io.cohort.server.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * {@link RpcMetrics} on Prometheus: a request counter and a latency histogram, both labelled by RPC
 * and by the error code of the answer, so error rates and the latency of errors are visible apart.
 */
public final class PrometheusRpcMetrics implements RpcMetrics {
    /** From 0.5 ms (a heartbeat) to 60 s (a long-poll JoinGroup waiting for its rebalance). */
    private static final double[] LATENCY_BUCKETS_SECONDS = {
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

    private final Counter requests;
    private final Histogram latency;

    public PrometheusRpcMetrics(PrometheusRegistry registry) {
        this.requests = Counter.builder()
                .name("cohort_rpc_requests_total")
                .help("gRPC calls answered by this node, by RPC and error code of the answer")
                .labelNames("rpc", "error_code")
                .register(registry);
        this.latency = Histogram.builder()
                .name("cohort_rpc_latency_seconds")
                .help("Time from receipt to answer of gRPC calls, by RPC and error code of the answer")
                .unit(Unit.SECONDS)
                .labelNames("rpc", "error_code")
                .classicOnly()
                .classicUpperBounds(LATENCY_BUCKETS_SECONDS)
                .register(registry);
    }

    @Override
    public void record(String rpc, String errorCode, long latencyNanos) {
        requests.labelValues(rpc, errorCode).inc();
        latency.labelValues(rpc, errorCode).observe(latencyNanos / 1e9);
    }
}
