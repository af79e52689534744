package io.cohort.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The rebalance table of {@code --protocol both}: initial join and join-one-more per N for Cohort
 * and Kafka with the classic and the consumer (KIP-848) protocol, from one run, and issue 17's goal
 * check at the largest N: Cohort consumer join-one-more at most 1/5 of Kafka classic and no worse
 * than Kafka consumer.
 */
final class ProtocolTable {
    private static final String[][] COLUMNS = {
        {"cohort", Target.CLASSIC}, {"cohort", Target.CONSUMER}, {"kafka", Target.CLASSIC}, {"kafka", Target.CONSUMER}};

    private ProtocolTable() {
    }

    /** The table, or "" unless the run has rebalance lines of both protocols. */
    static String table(List<Map<String, Object>> lines) {
        List<Map<String, Object>> rebalance = lines.stream()
                .filter(l -> RebalanceWorkload.NAME.equals(l.get("workload")) && l.containsKey("n")).toList();
        boolean both = rebalance.stream().anyMatch(l -> Target.CONSUMER.equals(l.get("protocol")))
                && rebalance.stream().anyMatch(l -> Target.CLASSIC.equals(l.get("protocol")));
        if (!both) {
            return "";
        }
        TreeSet<Integer> ns = new TreeSet<>();
        rebalance.forEach(l -> ns.add(((Number) l.get("n")).intValue()));
        StringBuilder out = new StringBuilder();
        out.append(String.format("%-6s %-16s", "N", "figure"));
        for (String[] c : COLUMNS) {
            out.append(String.format(" %16s", c[0] + " " + c[1]));
        }
        out.append('\n');
        for (int n : ns) {
            for (String figure : List.of("initial_join_ms", "join_one_more_ms")) {
                out.append(String.format("%-6s %-16s", "N=" + n, figure));
                for (String[] c : COLUMNS) {
                    Double v = figure(rebalance, c[0], c[1], n, figure);
                    out.append(String.format(" %16s", v == null ? "-" : String.format("%,.1f", v)));
                }
                out.append('\n');
            }
        }
        int n = ns.last();
        Double cohortConsumer = figure(rebalance, "cohort", Target.CONSUMER, n, "join_one_more_ms");
        Double kafkaClassic = figure(rebalance, "kafka", Target.CLASSIC, n, "join_one_more_ms");
        Double kafkaConsumer = figure(rebalance, "kafka", Target.CONSUMER, n, "join_one_more_ms");
        List<String> checks = new ArrayList<>();
        if (cohortConsumer != null && kafkaClassic != null) {
            checks.add(String.format("cohort consumer %,.1f ms <= kafka classic / 5 = %,.1f ms: %s", cohortConsumer,
                    kafkaClassic / 5, cohortConsumer <= kafkaClassic / 5 ? "MET" : "NOT MET"));
        }
        if (cohortConsumer != null && kafkaConsumer != null) {
            checks.add(String.format("cohort consumer %,.1f ms <= kafka consumer %,.1f ms: %s", cohortConsumer,
                    kafkaConsumer, cohortConsumer <= kafkaConsumer ? "MET" : "NOT MET"));
        }
        if (!checks.isEmpty()) {
            out.append("goal (join_one_more_ms, N=").append(n).append("): ").append(String.join("; ", checks)).append('\n');
        }
        return out.toString();
    }

    private static Double figure(List<Map<String, Object>> lines, String system, String protocol, int n, String key) {
        return lines.stream().filter(l -> system.equals(l.get("system")) && protocol.equals(l.get("protocol"))
                        && ((Number) l.get("n")).intValue() == n && l.get(key) instanceof Number)
                .map(l -> ((Number) l.get(key)).doubleValue()).filter(Objects::nonNull).findFirst().orElse(null);
    }
}
