package io.cohort.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A side-by-side table of two systems of one run (Cohort/Kafka, or secured/plaintext Cohort): per
 * workload and parameter, each figure of both and their ratio.
 */
final class Ratios {
    private Ratios() {
    }

    /** A figure and whether a higher value is better. */
    private record Figure(String key, boolean higherIsBetter) {
    }

    private static final Map<String, List<Figure>> FIGURES = new LinkedHashMap<>();

    static {
        FIGURES.put("commit", List.of(new Figure("commits_per_s", true), new Figure("p50_ms", false),
                new Figure("p99_ms", false), new Figure("p999_ms", false)));
        FIGURES.put("rebalance", List.of(new Figure("initial_join_ms", false), new Figure("join_one_more_ms", false)));
        FIGURES.put("failover", List.of(new Figure("gap_p50_ms", false), new Figure("gap_p99_ms", false),
                new Figure("max_stall_any_committer_ms", false), new Figure("max_stall_unaffected_ms", false),
                new Figure("max_stall_on_rejoin_ms", false),
                new Figure("lost_acked_commits", false)));
    }

    /** The table as text; also the rows as maps (for a file). Empty when no figure has both systems. */
    static String table(List<Map<String, Object>> lines, String system, String baseline) {
        List<String[]> rows = new ArrayList<>();
        for (Map.Entry<String, List<Figure>> workload : FIGURES.entrySet()) {
            List<Map<String, Object>> ours = select(lines, system, workload.getKey());
            List<Map<String, Object>> theirs = select(lines, baseline, workload.getKey());
            // A partition sweep runs each workload once per P: the rows name theirs.
            boolean sweep = ours.stream().map(Ratios::partitionsOf).distinct().count() > 1;
            for (Map<String, Object> c : ours) {
                Map<String, Object> k = theirs.stream().filter(x -> Objects.equals(param(x), param(c))).findFirst()
                        .orElse(null);
                if (k == null) {
                    continue;
                }
                for (Figure f : workload.getValue()) {
                    Object cv = c.get(f.key());
                    Object kv = k.get(f.key());
                    if (!(cv instanceof Number cn) || !(kv instanceof Number kn)) {
                        continue;
                    }
                    double a = cn.doubleValue();
                    double b = kn.doubleValue();
                    String ratio = b == 0 ? (a == 0 ? "1.00" : "n/a") : String.format("%.2f", a / b);
                    String verdict;
                    if (a == b) {
                        verdict = "same";
                    } else if ((a > b) == f.higherIsBetter()) {
                        verdict = system + " better" + (a != 0 && b != 0 ? String.format(" (%.2fx)",
                                f.higherIsBetter() ? a / b : b / a) : "");
                    } else {
                        verdict = baseline + " better" + (a != 0 && b != 0 ? String.format(" (%.2fx)",
                                f.higherIsBetter() ? b / a : a / b) : "");
                    }
                    String label = param(c) + (sweep ? " P=" + partitionsOf(c) : "");
                    rows.add(new String[] {workload.getKey(), label, f.key(), fmt(a), fmt(b), ratio, verdict});
                }
            }
        }
        if (rows.isEmpty()) {
            return "";
        }
        String[] header = {"workload", "param", "figure", system, baseline, system + "/" + baseline, ""};
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
            for (String[] r : rows) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        appendRow(out, header, width);
        String[] rule = new String[header.length];
        for (int i = 0; i < rule.length; i++) {
            rule[i] = "-".repeat(width[i]);
        }
        appendRow(out, rule, width);
        for (String[] r : rows) {
            appendRow(out, r, width);
        }
        return out.toString();
    }

    private static void appendRow(StringBuilder out, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            boolean numeric = i >= 3 && i <= 5;
            String cell = numeric ? " ".repeat(width[i] - cells[i].length()) + cells[i]
                    : cells[i] + " ".repeat(width[i] - cells[i].length());
            out.append(i == 0 ? "" : "  ").append(cell);
        }
        out.append('\n');
    }

    private static List<Map<String, Object>> select(List<Map<String, Object>> lines, String system, String workload) {
        return lines.stream().filter(l -> system.equals(l.get("system")) && workload.equals(l.get("workload"))
                && !l.containsKey("error") && (!"failover".equals(workload) || Boolean.TRUE.equals(l.get("summary"))))
                .toList();
    }

    private static String param(Map<String, Object> line) {
        if (Boolean.TRUE.equals(line.get("summary"))) {
            return "all kills";
        }
        if (line.containsKey("c")) {
            return "C=" + line.get("c");
        }
        if (line.containsKey("n")) {
            // Classic lines keep their label of earlier runs; consumer-protocol lines say so.
            return (Target.CONSUMER.equals(line.get("protocol")) ? "consumer N=" : "N=") + line.get("n");
        }
        return "";
    }

    /** The Cohort cluster's offsets partitions a line was measured on, or null. */
    static Object partitionsOf(Map<String, Object> line) {
        return line.get("cluster") instanceof Map<?, ?> cluster ? cluster.get("partitions") : null;
    }

    private static String fmt(double v) {
        if (v == Math.rint(v) && Math.abs(v) >= 100) {
            return String.format("%,.0f", v);
        }
        return String.format("%,.2f", v);
    }
}
