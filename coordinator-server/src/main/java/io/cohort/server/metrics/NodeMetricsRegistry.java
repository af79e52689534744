package io.cohort.server.metrics;

import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.PartitionListener;
import io.cohort.raft.net.ConnectionBudget;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One node's metrics: its own Prometheus registry (not the global one, so several nodes can run in
 * one JVM in tests), JVM metrics, RPC metrics, apply metrics and the node gauges, served over HTTP
 * on {@code /metrics}.
 */
public final class NodeMetricsRegistry implements AutoCloseable {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusRpcMetrics rpcMetrics;
    private HTTPServer httpServer;

    public NodeMetricsRegistry() {
        JvmMetrics.builder().register(registry);
        this.rpcMetrics = new PrometheusRpcMetrics(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public RpcMetrics rpcMetrics() {
        return rpcMetrics;
    }

    /** Wraps the front end's listener so applies are counted and timed. */
    public PartitionListener instrument(PartitionListener listener) {
        return new ApplyMetricsListener(listener, registry);
    }

    /** Adds the gauges read from the running node. */
    public void registerNode(CohortRaftNode node) {
        NodeMetrics.register(registry, node);
    }

    /** Adds the connection gauges of the node's ports. */
    public void registerConnections(List<ConnectionBudget> ports) {
        ConnectionMetrics.register(registry, ports);
    }

    /**
     * Serves {@code /metrics} on {@code host:port} (0 picks a free port), over HTTPS if
     * {@code https} is non-null.
     *
     * @return the bound port
     */
    public int serve(String host, int port, com.sun.net.httpserver.HttpsConfigurator https) throws IOException {
        // One thread is plenty for a scrape every few seconds, and keeps the 2-core budget.
        ExecutorService executor = Executors.newFixedThreadPool(1, runnable -> {
            Thread thread = new Thread(runnable, "cohort-metrics-http");
            thread.setDaemon(true);
            return thread;
        });
        try {
            HTTPServer.Builder builder = HTTPServer.builder();
            if (https != null) {
                builder.httpsConfigurator(https);
            }
            httpServer = builder
                    .inetAddress(InetAddress.getByName(host))
                    .port(port)
                    .registry(registry)
                    .executorService(executor)
                    .buildAndStart();
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw new IOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return httpServer.getPort();
    }

    @Override
    public void close() {
        if (httpServer != null) {
            httpServer.close();
            httpServer = null;
        }
    }
}
