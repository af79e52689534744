package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.core.command.Command;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard (docs/grafana/cohort.json) and the alert rules
 * (docs/prometheus/cohort-alerts.yml) query only metrics that real nodes serve: every metric name
 * in their PromQL must be a series name of the {@code /metrics} output of a real 3-node cluster
 * (real Ratis, real gRPC) that served a few calls. A renamed metric, or a typo in a query, fails here.
 */
class DashboardMetricsTest {
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "cohort.json");
    private static final Path ALERT_RULES = Path.of("..", "docs", "prometheus", "cohort-alerts.yml");
    /** Made by Prometheus itself for each scrape target, not served by the node. */
    private static final Set<String> SYNTHESIZED_BY_PROMETHEUS = Set.of("up");
    private static final Set<String> PROMQL_KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan", "atan2",
            // Aggregations, which may be followed by their by/without clause instead of "(".
            "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
            "quantile", "limitk", "limit_ratio");
    private static final Pattern LABEL_LIST = Pattern.compile(
            "\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,");

    @TempDir
    static Path root;

    private static final List<CohortServer> servers = new ArrayList<>();
    /** The series names every node served, together. */
    private static final Set<String> served = new TreeSet<>();

    @BeforeAll
    static void startClusterAndScrape() throws Exception {
        String peers = TestNodes.peers(3);
        for (int id = 1; id <= 3; id++) {
            servers.add(CohortServer.start(TestNodes.config(root, id, peers, 1)));
        }
        await().atMost(Duration.ofSeconds(90)).until(() -> servers.stream().anyMatch(s -> s.node().isLeaderReady(0)));
        CohortServer leader = servers.stream().filter(s -> s.node().isLeaderReady(0)).findFirst().orElseThrow();
        // An applied command, so the apply counters have series.
        leader.node().submit(0, new Command.OffsetCommit("dashboard", -1, "", null, -1L,
                List.of(new Command.TopicCommit("orders", List.of(new Command.PartitionCommit(0, 42, -1, null)))),
                Command.OFFSET_COMMIT_LATEST_VERSION)).get(30, TimeUnit.SECONDS);
        // One answered call per node, so the RPC counter and latency histogram have series.
        for (CohortServer server : servers) {
            ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.clientPort(),
                    InsecureChannelCredentials.create()).build();
            try {
                GroupCoordinatorGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds("dashboard").build());
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        // The leader's follower gauges need the followers' first replies.
        await().atMost(Duration.ofSeconds(60)).until(() -> seriesNames(scrape(leader))
                .contains("cohort_raft_follower_lag_entries"));
        await().atMost(Duration.ofSeconds(30)).until(() -> servers.stream()
                .allMatch(s -> seriesNames(uncheckedScrape(s)).containsAll(
                        List.of("cohort_rpc_latency_seconds_bucket", "cohort_apply_commands_total"))));
        for (CohortServer server : servers) {
            served.addAll(seriesNames(scrape(server)));
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        for (CohortServer server : servers) {
            server.close();
        }
    }

    @Test
    void testEveryMetricTheDashboardQueriesIsServedByARealNode() throws Exception {
        Map<String, Set<String>> used = dashboardMetrics(Files.readString(DASHBOARD, StandardCharsets.UTF_8));

        assertThat(used.keySet()).as("metric names found in the dashboard's queries")
                .contains("cohort_partitions_led", "cohort_partition_leader", "cohort_rpc_requests_total",
                        "cohort_rpc_latency_seconds_bucket", "cohort_raft_apply_lag_entries",
                        "cohort_raft_follower_lag_entries", "cohort_leader_changes_total", "cohort_groups",
                        "cohort_connections_open", "cohort_storage_failed", "cohort_node_info");
        assertThat(missing(used)).as("metrics the dashboard queries that no node serves (metric -> panels)").isEmpty();
    }

    @Test
    void testEveryMetricTheAlertRulesQueryIsServedByARealNode() throws Exception {
        Map<String, Set<String>> used = new LinkedHashMap<>();
        int rules = 0;
        for (String line : Files.readAllLines(ALERT_RULES, StandardCharsets.UTF_8)) {
            String trimmed = line.trim();
            if (trimmed.startsWith("expr:")) {
                String expr = trimmed.substring("expr:".length()).trim();
                assertThat(expr).as("one-line expression (a block scalar would hide it from this check)")
                        .isNotEmpty().doesNotStartWith("|").doesNotStartWith(">");
                rules++;
                for (String metric : metricNames(expr)) {
                    used.computeIfAbsent(metric, m -> new TreeSet<>()).add(expr);
                }
            }
        }

        assertThat(rules).as("alert rules").isGreaterThanOrEqualTo(10);
        assertThat(used.keySet()).contains("cohort_partition_leader", "cohort_raft_apply_lag_entries",
                "cohort_leader_changes_total", "cohort_storage_failed", "cohort_rpc_requests_total",
                "cohort_connections_refused_total", "up");
        assertThat(missing(used)).as("metrics the alert rules query that no node serves (metric -> rules)").isEmpty();
    }

    @Test
    void testTheCheckCatchesAMisspelledMetricAndIgnoresFunctionsLabelsAndVariables() {
        String expr = "histogram_quantile(0.99, sum by (rpc, le) (rate(cohort_rpc_latency_seconds_bucket"
                + "{job=~\"$job\", error_code!=\"NONE\"}[$__rate_interval]))) * on (instance) group_left (node_id) "
                + "cohort_node_info{job=~\"$job\"} > bool 1e3 or vector(0)";
        assertThat(metricNames(expr)).containsExactly("cohort_node_info", "cohort_rpc_latency_seconds_bucket");
        assertThat(missing(Map.of("cohort_partitions_lead", Set.of("a typo"), "cohort_partitions_led", Set.of("ok"))))
                .containsOnlyKeys("cohort_partitions_lead");
    }

    /** The metric names of every query of the dashboard (panels, nested rows, template variables), with where. */
    private static Map<String, Set<String>> dashboardMetrics(String json) {
        JsonObject dashboard = JsonParser.parseString(json).getAsJsonObject();
        Map<String, Set<String>> used = new LinkedHashMap<>();
        List<JsonObject> panels = new ArrayList<>();
        collectPanels(dashboard.getAsJsonArray("panels"), panels);
        int queries = 0;
        for (JsonObject panel : panels) {
            JsonArray targets = panel.getAsJsonArray("targets");
            if (targets == null) {
                continue;
            }
            for (JsonElement target : targets) {
                String expr = target.getAsJsonObject().get("expr").getAsString();
                queries++;
                for (String metric : metricNames(expr)) {
                    used.computeIfAbsent(metric, m -> new TreeSet<>()).add(panel.get("title").getAsString());
                }
            }
        }
        for (JsonElement variable : dashboard.getAsJsonObject("templating").getAsJsonArray("list")) {
            JsonElement query = variable.getAsJsonObject().get("query");
            String text = query == null ? "" : query.isJsonObject() ? query.getAsJsonObject().get("query").getAsString()
                    : query.getAsString();
            Matcher m = LABEL_VALUES.matcher(text);
            while (m.find()) {
                used.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add("variable "
                        + variable.getAsJsonObject().get("name").getAsString());
            }
        }
        assertThat(queries).as("queries in the dashboard").isGreaterThanOrEqualTo(20);
        return used;
    }

    private static void collectPanels(JsonArray array, List<JsonObject> into) {
        if (array == null) {
            return;
        }
        for (JsonElement element : array) {
            JsonObject panel = element.getAsJsonObject();
            into.add(panel);
            collectPanels(panel.getAsJsonArray("panels"), into);
        }
    }

    /**
     * The metric names a PromQL expression reads: its identifiers, without label matchers
     * ({@code {...}}), ranges ({@code [...]}), label lists ({@code by (...)}, {@code on (...)}, ...),
     * string literals, Grafana variables, functions (followed by {@code (}) and keywords.
     */
    static Set<String> metricNames(String expr) {
        String s = expr.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")
                .replaceAll("\\{[^}]*}", "")
                .replaceAll("\\[[^]]*]", "");
        s = LABEL_LIST.matcher(s).replaceAll("$1");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String name = m.group();
            String rest = s.substring(m.end()).stripLeading();
            if (rest.startsWith("(") || PROMQL_KEYWORDS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                continue;
            }
            names.add(name);
        }
        return names;
    }

    /** Those of {@code used} that no node served, with where they are used. */
    private static Map<String, Set<String>> missing(Map<String, Set<String>> used) {
        Map<String, Set<String>> missing = new LinkedHashMap<>();
        used.forEach((metric, where) -> {
            if (!served.contains(metric) && !SYNTHESIZED_BY_PROMETHEUS.contains(metric)) {
                missing.put(metric, where);
            }
        });
        return missing;
    }

    /** The series names of a Prometheus text exposition: each sample line's name. */
    private static Set<String> seriesNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            names.add(line.substring(0, end));
        }
        return names;
    }

    private static String uncheckedScrape(CohortServer server) {
        try {
            return scrape(server);
        } catch (Exception e) {
            return "";
        }
    }

    private static String scrape(CohortServer server) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.metricsPort() + "/metrics"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
