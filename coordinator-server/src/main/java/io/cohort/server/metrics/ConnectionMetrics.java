package io.cohort.server.metrics;

import io.cohort.raft.net.ConnectionBudget;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/** The open, refused and allowed connections of the node's ports, read at scrape time. */
final class ConnectionMetrics {
    private ConnectionMetrics() {
    }

    static void register(PrometheusRegistry registry, List<ConnectionBudget> ports) {
        GaugeWithCallback.builder()
                .name("cohort_connections_open")
                .help("TCP connections open on the port (client or raft)")
                .labelNames("port")
                .callback(cb -> ports.forEach(p -> cb.call(p.open(), p.port())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("cohort_connections_limit")
                .help("The most TCP connections the port keeps open (client.max.connections, raft.max.connections)")
                .labelNames("port")
                .callback(cb -> ports.forEach(p -> cb.call(p.maxConnections(), p.port())))
                .register(registry);
        CounterWithCallback.builder()
                .name("cohort_connections_refused_total")
                .help("TCP connections closed as soon as accepted because the port was at its limit")
                .labelNames("port")
                .callback(cb -> ports.forEach(p -> cb.call(p.refused(), p.port())))
                .register(registry);
    }
}
