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
    /** Workloads whose table row is their summary line (one line per kill or restart before it). */
    private static final java.util.Set<String> SUMMARIZED = java.util.Set.of(FailoverWorkload.NAME, RestartWorkload.NAME);

    static {
        FIGURES.put("commit", List.of(new Figure("commits_per_s", true), new Figure("p50_ms", false),
                new Figure("p99_ms", false), new Figure("p999_ms", false)));
        FIGURES.put("fetch", List.of(new Figure("fetches_per_s", true), new Figure("p50_ms", false),
                new Figure("p99_ms", false), new Figure("p999_ms", false)));
        FIGURES.put("heartbeat", List.of(new Figure("heartbeats_per_s", true), new Figure("p50_ms", false),
                new Figure("p99_ms", false), new Figure("p999_ms", false)));
        FIGURES.put("rebalance", List.of(new Figure("initial_join_ms", false), new Figure("join_one_more_ms", false)));
        FIGURES.put("failover", List.of(new Figure("gap_p50_ms", false), new Figure("gap_p99_ms", false),
                new Figure("max_stall_any_committer_ms", false), new Figure("max_stall_unaffected_ms", false),
                new Figure("max_stall_on_rejoin_ms", false),
                new Figure("lost_acked_commits", false)));
        FIGURES.put("restart", List.of(new Figure("serving_again_p50_ms", false),
                new Figure("serving_again_max_ms", false), new Figure("lost_acked_commits", false)));
    }

    /** The table as text; also the rows as maps (for a file). Empty when no figure has both systems. */
    static String table(List<Map<String, Object>> lines, String system, String baseline) {
        List<String[]> rows = new ArrayList<>();
        for (Map.Entry<String, List<Figure>> workload : FIGURES.entrySet()) {
            List<Map<String, Object>> ours = select(lines, system, workload.getKey());
            List<Map<String, Object>> theirs = select(lines, baseline, workload.getKey());
            // A partition sweep runs each workload once per P: the rows name theirs.
            boolean sweep = ours.stream().map(Ratios::partitionsOf).distinct().count() > 1;
            // --rounds: the same comparison several times; each round's lines pair with each other, and
            // a median row per figure follows the rounds.
            Map<String, List<double[]>> rounds = new LinkedHashMap<>();
            Map<List<Object>, Integer> seen = new java.util.HashMap<>();
            for (Map<String, Object> c : ours) {
                Map<String, Object> k = counterpart(c, theirs,
                        seen.merge(List.of(param(c), String.valueOf(c.get("round")), String.valueOf(partitionsOf(c))),
                                1, Integer::sum) - 1);
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
                    String label = param(c) + (sweep ? " P=" + partitionsOf(c) : "");
                    if (c.get("round") != null) {
                        rounds.computeIfAbsent(label + "\n" + f.key(), x -> new ArrayList<>()).add(new double[] {a, b});
                        label += " round " + c.get("round");
                    }
                    rows.add(row(workload.getKey(), label, f, a, b, b == 0 ? Double.NaN : a / b, system, baseline));
                }
            }
            for (Map.Entry<String, List<double[]>> figure : rounds.entrySet()) {
                List<double[]> pairs = figure.getValue();
                if (pairs.size() < 2) {
                    continue;
                }
                String[] labelAndKey = figure.getKey().split("\n");
                Figure f = workload.getValue().stream().filter(x -> x.key().equals(labelAndKey[1])).findFirst().orElseThrow();
                rows.add(row(workload.getKey(), labelAndKey[0] + " median of " + pairs.size(), f,
                        median(pairs.stream().mapToDouble(x -> x[0]).toArray()),
                        median(pairs.stream().mapToDouble(x -> x[1]).toArray()),
                        median(pairs.stream().mapToDouble(x -> x[1] == 0 ? Double.NaN : x[0] / x[1]).toArray()),
                        system, baseline));
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

    /**
     * The line of {@code theirs} that {@code c} is compared with: same parameter and round (and the
     * same partition count, if theirs has lines at c's), the {@code occurrence}-th of them, so that a
     * parameter measured several times in one round (`--ns 10,10,10`) pairs its n-th sample with the
     * other system's n-th; the last one if theirs has fewer (a baseline measured once per round).
     */
    static Map<String, Object> counterpart(Map<String, Object> c, List<Map<String, Object>> theirs, int occurrence) {
        List<Map<String, Object>> candidates = theirs.stream().filter(x -> Objects.equals(param(x), param(c))
                && Objects.equals(x.get("round"), c.get("round"))).toList();
        List<Map<String, Object>> samePartitions = candidates.stream()
                .filter(x -> Objects.equals(partitionsOf(x), partitionsOf(c))).toList();
        if (!samePartitions.isEmpty()) {
            candidates = samePartitions;
        }
        return candidates.isEmpty() ? null : candidates.get(Math.min(occurrence, candidates.size() - 1));
    }

    /** One row; {@code ratio} is a/b, or the median of the rounds' a/b (NaN: b was 0). */
    private static String[] row(String workload, String label, Figure f, double a, double b, double ratio,
            String system, String baseline) {
        String ratioText = Double.isNaN(ratio) ? (a == 0 ? "1.00" : "n/a") : String.format("%.2f", ratio);
        String verdict;
        if (a == b || Double.isNaN(ratio) && a == 0) {
            verdict = "same";
        } else if (Double.isNaN(ratio) || ratio == 0) {
            verdict = ((a > b) == f.higherIsBetter() ? system : baseline) + " better";
        } else if ((ratio > 1) == f.higherIsBetter()) {
            verdict = system + String.format(" better (%.2fx)", f.higherIsBetter() ? ratio : 1 / ratio);
        } else {
            verdict = baseline + String.format(" better (%.2fx)", f.higherIsBetter() ? 1 / ratio : ratio);
        }
        return new String[] {workload, label, f.key(), fmt(a), fmt(b), ratioText, verdict};
    }

    /** The median (the mean of the middle two for an even count); NaNs are left out. */
    static double median(double[] values) {
        double[] v = java.util.Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
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
                && !l.containsKey("error") && (!SUMMARIZED.contains(workload) || Boolean.TRUE.equals(l.get("summary"))))
                .toList();
    }

    private static String param(Map<String, Object> line) {
        if (Boolean.TRUE.equals(line.get("summary"))) {
            return line.containsKey("restarts") ? "all restarts" : "all kills";
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
