package io.cohort.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The partition sweep table ({@code --partitions 1,3,6,12,50}): per P and C, the Cohort commit
 * figures beside their ratio to the smallest P of the run at the same C, so the cost of a partition
 * reads off one run on one machine.
 */
final class PartitionSweep {
    private static final String[] HEADER = {"P", "C", "commits/s", "vs P0", "p99 ms", "vs P0", "cmds/entry",
        "cpu s/1k commits (max node)", "cpu s/1k (3 nodes)", "threads/node", "leader changes", "jit %/node"};
    private static final String[] IDLE_HEADER = {"P", "idle cpu % of a core/node", "threads/node", "leader changes"};

    private PartitionSweep() {
    }

    /** The table as text, empty unless the run measured Cohort commits at two partition counts or more. */
    static String table(List<Map<String, Object>> lines) {
        List<Map<String, Object>> commits = lines.stream()
                .filter(l -> "cohort".equals(l.get("system")) && CommitWorkload.NAME.equals(l.get("workload"))
                        && !l.containsKey("error") && l.get("partitions") instanceof Number
                        && l.get("c") instanceof Number)
                .sorted(Comparator.comparingInt((Map<String, Object> l) -> num(l, "partitions"))
                        .thenComparingInt(l -> num(l, "c")))
                .toList();
        if (commits.stream().map(l -> l.get("partitions")).distinct().count() < 2) {
            return "";
        }
        int smallestP = num(commits.get(0), "partitions");
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (Map<String, Object> line : commits) {
            Map<String, Object> base = commits.stream()
                    .filter(l -> num(l, "partitions") == smallestP && Objects.equals(l.get("c"), line.get("c")))
                    .findFirst().orElse(null);
            rows.add(new String[] {
                String.valueOf(line.get("partitions")),
                String.valueOf(line.get("c")),
                fmt(line.get("commits_per_s"), "%,.0f"),
                ratio(line, base, "commits_per_s"),
                fmt(line.get("p99_ms"), "%.1f"),
                ratio(line, base, "p99_ms"),
                fmt(line.get("commands_per_entry"), "%.1f"),
                fmt(line.get("cpu_s_per_1k_commits_max"), "%.2f"),
                fmt(line.get("cpu_s_per_1k_commits_total"), "%.2f"),
                compact(line.get("threads")),
                String.valueOf(line.getOrDefault("leader_changes", "?")),
                compact(line.get("jit_cpu_pct")),
            });
        }
        StringBuilder out = new StringBuilder();
        render(rows, out);
        List<String[]> idle = new ArrayList<>();
        idle.add(IDLE_HEADER);
        lines.stream().filter(l -> "cohort".equals(l.get("system")) && CommitWorkload.NAME.equals(l.get("workload"))
                        && Boolean.TRUE.equals(l.get("idle")) && l.get("partitions") instanceof Number)
                .sorted(Comparator.comparingInt(l -> num(l, "partitions")))
                .forEach(l -> idle.add(new String[] {String.valueOf(l.get("partitions")), compact(l.get("cpu_pct")),
                    compact(l.get("threads")), String.valueOf(l.getOrDefault("leader_changes", "?"))}));
        if (idle.size() > 1) {
            out.append('\n');
            render(idle, out);
        }
        return out.toString();
    }

    private static String compact(Object value) {
        return value == null ? "?" : String.valueOf(value).replace(" ", "");
    }

    private static void render(List<String[]> rows, StringBuilder out) {
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
            for (int i = 0; i < row.length; i++) {
                out.append(i == 0 ? "" : "  ").append(" ".repeat(width[i] - row[i].length())).append(row[i]);
            }
            out.append('\n');
            if (r == 0) {
                for (int i = 0; i < row.length; i++) {
                    out.append(i == 0 ? "" : "  ").append("-".repeat(width[i]));
                }
                out.append('\n');
            }
        }
    }

    private static String ratio(Map<String, Object> line, Map<String, Object> base, String key) {
        if (base == null || !(line.get(key) instanceof Number a) || !(base.get(key) instanceof Number b)
                || b.doubleValue() == 0) {
            return "";
        }
        return String.format("%.2f", a.doubleValue() / b.doubleValue());
    }

    private static String fmt(Object value, String format) {
        return value instanceof Number n ? String.format(format, n.doubleValue()) : "?";
    }

    private static int num(Map<String, Object> line, String key) {
        return line.get(key) instanceof Number n ? n.intValue() : 0;
    }
}
