package io.cohort.server.metrics;

import io.cohort.core.shard.Result;
import io.cohort.raft.ForwardingPartitionListener;
import io.cohort.raft.PartitionListener;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;

/**
 * Wraps the front end's {@link PartitionListener} to count applied entries and commands per
 * partition and to time the listener's {@code onApplied}. That call runs on the partition's apply
 * thread after the shard applied the entry, so its latency is time the partition cannot apply the
 * next entry: a slow delivery of parked-call answers shows up here before it shows up as apply lag
 * ({@code cohort_raft_apply_lag_entries}).
 */
public final class ApplyMetricsListener extends ForwardingPartitionListener {
    private static final double[] DELIVERY_BUCKETS_SECONDS = {
        0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1};

    private final Counter entries;
    private final Counter commands;
    private final Counter leaderChanges;
    private final Histogram delivery;

    public ApplyMetricsListener(PartitionListener delegate, PrometheusRegistry registry) {
        super(delegate);
        this.entries = Counter.builder()
                .name("cohort_apply_entries_total")
                .help("Raft log entries applied by this node's replica, by partition")
                .labelNames("partition")
                .register(registry);
        this.commands = Counter.builder()
                .name("cohort_apply_commands_total")
                .help("Commands applied by this node's replica (an entry batches commands), by partition")
                .labelNames("partition")
                .register(registry);
        this.leaderChanges = Counter.builder()
                .name("cohort_leader_changes_total")
                .help("Leader changes of a partition as this node learned them, by partition")
                .labelNames("partition")
                .register(registry);
        this.delivery = Histogram.builder()
                .name("cohort_apply_delivery_seconds")
                .help("Time the front end takes on the apply thread per applied entry (answering parked calls)")
                .unit(Unit.SECONDS)
                .classicOnly()
                .classicUpperBounds(DELIVERY_BUCKETS_SECONDS)
                .register(registry);
    }

    @Override
    public void onApplied(int partition, List<Result> results) {
        long startNanos = System.nanoTime();
        try {
            delegate.onApplied(partition, results);
        } finally {
            delivery.observe((System.nanoTime() - startNanos) / 1e9);
            String label = Integer.toString(partition);
            entries.labelValues(label).inc();
            commands.labelValues(label).inc(results.size());
        }
    }

    @Override
    public void onLeaderChanged(int partition, int leaderNodeId) {
        leaderChanges.labelValues(Integer.toString(partition)).inc();
        delegate.onLeaderChanged(partition, leaderNodeId);
    }
}
