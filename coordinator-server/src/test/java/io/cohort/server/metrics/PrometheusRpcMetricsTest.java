package io.cohort.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.shard.Result;
import io.cohort.raft.PartitionListener;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PrometheusRpcMetricsTest {
    private final PrometheusRegistry registry = new PrometheusRegistry();

    @Test
    void testCountsAndTimesEachRpcByErrorCode() {
        PrometheusRpcMetrics metrics = new PrometheusRpcMetrics(registry);

        metrics.record("JoinGroup", "NONE", TimeUnit.MILLISECONDS.toNanos(2));
        metrics.record("JoinGroup", "NONE", TimeUnit.SECONDS.toNanos(20));
        metrics.record("JoinGroup", "NOT_COORDINATOR", TimeUnit.MICROSECONDS.toNanos(300));

        String text = text();
        assertThat(text)
                .contains("cohort_rpc_requests_total{error_code=\"NONE\",rpc=\"JoinGroup\"} 2")
                .contains("cohort_rpc_requests_total{error_code=\"NOT_COORDINATOR\",rpc=\"JoinGroup\"} 1")
                .contains("cohort_rpc_latency_seconds_bucket{error_code=\"NONE\",rpc=\"JoinGroup\",le=\"0.001\"} 0")
                .contains("cohort_rpc_latency_seconds_bucket{error_code=\"NONE\",rpc=\"JoinGroup\",le=\"0.0025\"} 1")
                .contains("cohort_rpc_latency_seconds_bucket{error_code=\"NONE\",rpc=\"JoinGroup\",le=\"30.0\"} 2")
                .contains("cohort_rpc_latency_seconds_bucket{error_code=\"NOT_COORDINATOR\",rpc=\"JoinGroup\","
                        + "le=\"5.0E-4\"} 1")
                .contains("cohort_rpc_latency_seconds_count{error_code=\"NONE\",rpc=\"JoinGroup\"} 2");
    }

    @Test
    void testApplyListenerCountsAndForwardsEverything() {
        List<String> seen = new ArrayList<>();
        PartitionListener listener = new ApplyMetricsListener(new PartitionListener() {
            @Override
            public void onApplied(int partition, List<Result> results) {
                seen.add("applied " + partition + " " + results.size());
            }

            @Override
            public void onLeaderReady(int partition) {
                seen.add("ready " + partition);
            }

            @Override
            public void onStepDown(int partition) {
                seen.add("stepdown " + partition);
            }

            @Override
            public void onLeaderChanged(int partition, int leaderNodeId) {
                seen.add("leader " + partition + " " + leaderNodeId);
            }
        }, registry);

        listener.onLeaderChanged(3, 2);
        listener.onLeaderReady(3);
        listener.onApplied(3, List.of());
        listener.onApplied(3, List.of());
        listener.onStepDown(3);

        assertThat(seen).containsExactly("leader 3 2", "ready 3", "applied 3 0", "applied 3 0", "stepdown 3");
        assertThat(text())
                .contains("cohort_apply_entries_total{partition=\"3\"} 2")
                .contains("cohort_apply_commands_total{partition=\"3\"} 0")
                .contains("cohort_leader_changes_total{partition=\"3\"} 1")
                .contains("cohort_apply_delivery_seconds_count 2");
    }

    private String text() {
        return PrometheusTextFormatWriter.create().toDebugString(registry.scrape());
    }
}
