package io.cohort.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads a Cohort node's Prometheus endpoint ({@code /metrics} on its metrics port). */
final class NodeMetrics {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private NodeMetrics() {
    }

    static String scrape(int metricsPort) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("/metrics on port " + metricsPort + " answered " + response.statusCode());
        }
        return response.body();
    }

    /** The sum of every sample of {@code name} whose labels contain each of {@code labels} (e.g. area="heap"). */
    static double sum(String text, String name, String... labels) {
        double total = 0;
        for (String line : text.split("\n")) {
            if (!line.startsWith(name) || line.startsWith("#")) {
                continue;
            }
            String rest = line.substring(name.length());
            if (!rest.startsWith("{") && !rest.startsWith(" ")) {
                continue; // a longer metric name with this prefix
            }
            boolean match = true;
            for (String label : labels) {
                if (!rest.contains(label)) {
                    match = false;
                }
            }
            if (match) {
                String[] parts = line.trim().split("\\s+");
                total += Double.parseDouble(parts[parts.length - 1]);
            }
        }
        return total;
    }

    /**
     * Applied entries and commands so far on one running node (every replica applies every entry),
     * then the batch linger expiries summed over every running node (each leader counts its own).
     */
    static double[] applyCounters(CohortTarget cohort) {
        double[] counters = null;
        double lingerExpiries = 0;
        for (int id : cohort.cluster().runningNodeIds()) {
            try {
                String text = scrape(cohort.cluster().metricsPort(id));
                if (counters == null) {
                    counters = new double[] {sum(text, "cohort_apply_entries_total"),
                            sum(text, "cohort_apply_commands_total"), 0};
                }
                lingerExpiries += sum(text, "cohort_batch_linger_expiries_total");
            } catch (IOException | RuntimeException e) {
                // try the next node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        if (counters != null) {
            counters[2] = lingerExpiries;
        }
        return counters;
    }

    /**
     * {@code raft_entries}, {@code commands_per_entry} and {@code linger_expiries} (entries proposed
     * after waiting out the whole batch linger: the commands expected did not come in time) between
     * two {@link #applyCounters} readings.
     */
    static Map<String, Object> commandsPerEntry(double[] before, double[] after) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (before != null && after != null && after[0] > before[0]) {
            m.put("raft_entries", (long) (after[0] - before[0]));
            m.put("commands_per_entry", Json.round((after[1] - before[1]) / (after[0] - before[0]), 2));
            m.put("linger_expiries", (long) (after[2] - before[2]));
        }
        return m;
    }
}
