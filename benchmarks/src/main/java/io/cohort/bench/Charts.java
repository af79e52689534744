package io.cohort.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * SVG charts of a run's results, drawn by hand (no charting library): commit latency percentiles per
 * C, Cohort beside Kafka, and the failover timeline of the first kill of each system.
 */
final class Charts {
    private static final String COHORT = "#1f77b4";
    private static final String KAFKA = "#ff7f0e";
    private static final String[] COHORT_SHADES = {"#9ecae1", "#4292c6", "#08519c"};
    private static final String[] KAFKA_SHADES = {"#fdd0a2", "#fd8d3c", "#d94801"};
    private static final String[] PCTS = {"p50_ms", "p99_ms", "p999_ms"};
    private static final String[] PCT_LABELS = {"p50", "p99", "p99.9"};

    private Charts() {
    }

    /** Writes the charts this run has data for; returns their paths. */
    static List<Path> write(List<Map<String, Object>> lines, Path outDir, String runId, boolean quick)
            throws IOException {
        List<Path> written = new ArrayList<>();
        String note = (quick ? "QUICK SMOKE RUN (not a measurement) - " : "") + "run " + runId;
        String commit = commitLatency(lines, note);
        if (commit != null) {
            Path p = outDir.resolve("commit-latency-" + runId + ".svg");
            Files.writeString(p, commit, StandardCharsets.UTF_8);
            written.add(p);
        }
        String failover = failoverTimeline(lines, note);
        if (failover != null) {
            Path p = outDir.resolve("failover-timeline-" + runId + ".svg");
            Files.writeString(p, failover, StandardCharsets.UTF_8);
            written.add(p);
        }
        return written;
    }

    private static List<Map<String, Object>> of(List<Map<String, Object>> lines, String system, String workload) {
        return lines.stream().filter(l -> system.equals(l.get("system")) && workload.equals(l.get("workload"))
                && !l.containsKey("error")).toList();
    }

    private static double num(Map<String, Object> line, String key) {
        Object v = line.get(key);
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    static String commitLatency(List<Map<String, Object>> lines, String note) {
        // Measured windows only (not the idle line), and of a partition sweep the smallest P.
        List<Map<String, Object>> cohortAll = of(lines, "cohort", "commit").stream()
                .filter(l -> l.get("c") instanceof Number).toList();
        Object firstP = cohortAll.stream().map(Ratios::partitionsOf).filter(Objects::nonNull)
                .min(Comparator.comparingInt(p -> ((Number) p).intValue())).orElse(null);
        List<Map<String, Object>> cohort = cohortAll.stream()
                .filter(l -> firstP == null || firstP.equals(Ratios.partitionsOf(l))).toList();
        List<Map<String, Object>> kafka = of(lines, "kafka", "commit").stream()
                .filter(l -> l.get("c") instanceof Number).toList();
        if (cohort.isEmpty() && kafka.isEmpty()) {
            return null;
        }
        TreeSet<Integer> cs = new TreeSet<>();
        for (Map<String, Object> l : cohort) {
            cs.add(((Number) l.get("c")).intValue());
        }
        for (Map<String, Object> l : kafka) {
            cs.add(((Number) l.get("c")).intValue());
        }
        double max = 0.1;
        double min = Double.MAX_VALUE;
        for (Map<String, Object> l : concat(cohort, kafka)) {
            for (String p : PCTS) {
                double v = num(l, p);
                if (v > 0) {
                    max = Math.max(max, v);
                    min = Math.min(min, v);
                }
            }
        }
        double lo = Math.pow(10, Math.floor(Math.log10(Math.min(min, max))));
        double hi = Math.pow(10, Math.ceil(Math.log10(max)));
        if (hi <= lo) {
            hi = lo * 10;
        }
        int w = 960;
        int h = 520;
        int left = 70;
        int right = 20;
        int top = 60;
        int bottom = 70;
        double plotW = w - left - right;
        double plotH = h - top - bottom;
        Svg svg = new Svg(w, h);
        svg.text(w / 2.0, 24, "Commit latency per committer count (ms, log scale): Cohort beside Kafka", 16, "middle", "bold");
        svg.text(w / 2.0, 42, note, 11, "middle", "normal");
        // Y axis: decades.
        for (double d = lo; d <= hi * 1.0001; d *= 10) {
            double y = top + plotH - plotH * (Math.log10(d) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
            svg.line(left, y, w - right, y, "#dddddd", 1, false);
            svg.text(left - 6, y + 4, trim(d), 11, "end", "normal");
        }
        svg.verticalText(18, top + plotH / 2, "latency (ms)", 12);
        double groupW = plotW / cs.size();
        double barW = Math.min(22, groupW / 8);
        int g = 0;
        for (int c : cs) {
            double gx = left + g * groupW + groupW / 2;
            Optional<Map<String, Object>> co = cohort.stream().filter(l -> ((Number) l.get("c")).intValue() == c).findFirst();
            Optional<Map<String, Object>> ka = kafka.stream().filter(l -> ((Number) l.get("c")).intValue() == c).findFirst();
            for (int i = 0; i < 3; i++) {
                bar(svg, co, PCTS[i], gx - (3.5 - i) * barW - barW * 0.25, barW, COHORT_SHADES[i], lo, hi, top, plotH);
                bar(svg, ka, PCTS[i], gx + (0.5 + i) * barW - barW * 0.25 + barW * 0.5, barW, KAFKA_SHADES[i], lo, hi, top, plotH);
            }
            String tput = co.map(l -> String.format(Locale.ROOT, "cohort %,.0f/s", num(l, "commits_per_s"))).orElse("")
                    + (co.isPresent() && ka.isPresent() ? "  " : "")
                    + ka.map(l -> String.format(Locale.ROOT, "kafka %,.0f/s", num(l, "commits_per_s"))).orElse("");
            svg.text(gx, top + plotH + 20, "C = " + c, 13, "middle", "bold");
            svg.text(gx, top + plotH + 36, tput, 11, "middle", "normal");
            g++;
        }
        svg.line(left, top + plotH, w - right, top + plotH, "#333333", 1, false);
        svg.line(left, top, left, top + plotH, "#333333", 1, false);
        // Legend.
        double lx = left + 10;
        for (int i = 0; i < 3; i++) {
            svg.rect(lx, h - 22, 12, 12, COHORT_SHADES[i]);
            svg.text(lx + 16, h - 12, "cohort " + PCT_LABELS[i], 11, "start", "normal");
            lx += 105;
        }
        for (int i = 0; i < 3; i++) {
            svg.rect(lx, h - 22, 12, 12, KAFKA_SHADES[i]);
            svg.text(lx + 16, h - 12, "kafka " + PCT_LABELS[i], 11, "start", "normal");
            lx += 100;
        }
        return svg.toString();
    }

    private static void bar(Svg svg, Optional<Map<String, Object>> line, String key, double x, double width,
            String color, double lo, double hi, int top, double plotH) {
        if (line.isEmpty()) {
            return;
        }
        double v = num(line.get(), key);
        if (!(v > 0)) {
            return;
        }
        double y = top + plotH - plotH * (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
        svg.rect(x, y, width, top + plotH - y, color);
        svg.text(x + width / 2, y - 3, trim(v), 9, "middle", "normal");
    }

    static String failoverTimeline(List<Map<String, Object>> lines, String note) {
        Map<String, Object> cohort = firstKill(lines, "cohort");
        Map<String, Object> kafka = firstKill(lines, "kafka");
        if (cohort == null && kafka == null) {
            return null;
        }
        double tMin = 0;
        double tMax = 0;
        double yMax = 1;
        for (Map<String, Object> l : concat(cohort == null ? List.of() : List.of(cohort),
                kafka == null ? List.of() : List.of(kafka))) {
            long[] series = series(l);
            double start = num(l, "timeline_start_ms");
            double bucket = num(l, "timeline_bucket_ms");
            tMin = Math.min(tMin, start);
            tMax = Math.max(tMax, start + bucket * series.length);
            for (long v : series) {
                yMax = Math.max(yMax, v);
            }
        }
        yMax = niceCeil(yMax);
        int w = 960;
        int h = 480;
        int left = 80;
        int right = 20;
        int top = 60;
        int bottom = 70;
        double plotW = w - left - right;
        double plotH = h - top - bottom;
        double t0 = tMin;
        double t1 = tMax;
        Svg svg = new Svg(w, h);
        svg.text(w / 2.0, 24, "Failover: commits/s of all committers (100 ms buckets) around a SIGKILL of the watched "
                + "group's coordinator", 15, "middle", "bold");
        svg.text(w / 2.0, 42, note + " - first kill of each system", 11, "middle", "normal");
        for (int i = 0; i <= 5; i++) {
            double v = yMax * i / 5;
            double y = top + plotH - plotH * v / yMax;
            svg.line(left, y, w - right, y, "#dddddd", 1, false);
            svg.text(left - 6, y + 4, String.format(Locale.ROOT, "%,.0f", v), 11, "end", "normal");
        }
        double step = niceStep((t1 - t0) / 1000.0 / 12);
        for (double s = Math.ceil(t0 / 1000 / step) * step; s <= t1 / 1000; s += step) {
            double x = left + plotW * (s * 1000 - t0) / (t1 - t0);
            svg.line(x, top + plotH, x, top + plotH + 4, "#333333", 1, false);
            svg.text(x, top + plotH + 18, trim(s) + " s", 11, "middle", "normal");
        }
        svg.text(left + plotW / 2, top + plotH + 38, "time since the SIGKILL", 12, "middle", "normal");
        svg.verticalText(18, top + plotH / 2, "commits/s", 12);
        double killX = left + plotW * (0 - t0) / (t1 - t0);
        svg.line(killX, top, killX, top + plotH, "#d62728", 1.5, true);
        svg.text(killX + 4, top + 12, "SIGKILL", 11, "start", "normal");
        int legend = 0;
        for (Map<String, Object> l : concat(cohort == null ? List.of() : List.of(cohort),
                kafka == null ? List.of() : List.of(kafka))) {
            boolean isCohort = "cohort".equals(l.get("system"));
            String color = isCohort ? COHORT : KAFKA;
            long[] series = series(l);
            double start = num(l, "timeline_start_ms");
            double bucket = num(l, "timeline_bucket_ms");
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < series.length; i++) {
                double tm = start + bucket * i;
                double x0 = left + plotW * (tm - t0) / (t1 - t0);
                double x1 = left + plotW * (tm + bucket - t0) / (t1 - t0);
                double y = top + plotH - plotH * series[i] / yMax;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y));
            }
            svg.polyline(points.toString(), color);
            Object gap = l.get("gap_ms");
            String label = l.get("system") + ": gap " + (gap == null ? "n/a" : trim(((Number) gap).doubleValue()) + " ms")
                    + ", max stall " + trim(num(l, "max_stall_any_committer_ms")) + " ms"
                    + (l.containsKey("killed_was_kraft_leader") ? (Boolean.TRUE.equals(l.get("killed_was_kraft_leader"))
                    ? " (killed the KRaft leader)" : " (KRaft leader survived)") : "");
            double lx = left + 10 + legend * 440;
            svg.rect(lx, h - 22, 12, 12, color);
            svg.text(lx + 16, h - 12, label, 11, "start", "normal");
            legend++;
        }
        svg.line(left, top + plotH, w - right, top + plotH, "#333333", 1, false);
        svg.line(left, top, left, top + plotH, "#333333", 1, false);
        return svg.toString();
    }

    private static Map<String, Object> firstKill(List<Map<String, Object>> lines, String system) {
        return of(lines, system, "failover").stream()
                .filter(l -> l.get("kill") instanceof Number n && n.intValue() == 1).findFirst().orElse(null);
    }

    private static long[] series(Map<String, Object> line) {
        Object v = line.get("timeline_commits_per_s");
        if (v instanceof long[] a) {
            return a;
        }
        if (v instanceof List<?> list) {
            return list.stream().mapToLong(x -> ((Number) x).longValue()).toArray();
        }
        return new long[0];
    }

    private static List<Map<String, Object>> concat(List<Map<String, Object>> a, List<Map<String, Object>> b) {
        List<Map<String, Object>> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static double niceCeil(double v) {
        double mag = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * mag >= v) {
                return m * mag;
            }
        }
        return 10 * mag;
    }

    private static double niceStep(double raw) {
        if (raw <= 0) {
            return 1;
        }
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * mag >= raw) {
                return m * mag;
            }
        }
        return 10 * mag;
    }

    private static String trim(double v) {
        if (v >= 100 || v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (v >= 1) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** Just enough SVG. */
    private static final class Svg {
        private final StringBuilder body = new StringBuilder();
        private final int width;
        private final int height;

        Svg(int width, int height) {
            this.width = width;
            this.height = height;
        }

        void line(double x1, double y1, double x2, double y2, String color, double strokeWidth, boolean dashed) {
            body.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    + "stroke-width=\"%.1f\"%s/>%n", x1, y1, x2, y2, color, strokeWidth,
                    dashed ? " stroke-dasharray=\"5,4\"" : ""));
        }

        void rect(double x, double y, double w, double h, String color) {
            body.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                    x, y, Math.max(0, w), Math.max(0, h), color));
        }

        void polyline(String points, String color) {
            body.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"1.5\" points=\"")
                    .append(points.trim()).append("\"/>\n");
        }

        void text(double x, double y, String text, int size, String anchor, String weight) {
            body.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\" "
                    + "font-weight=\"%s\">%s</text>%n", x, y, size, anchor, weight, escape(text)));
        }

        void verticalText(double x, double y, String text, int size) {
            body.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"middle\" "
                    + "transform=\"rotate(-90 %.1f %.1f)\">%s</text>%n", x, y, size, x, y, escape(text)));
        }

        private static String escape(String s) {
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        }

        @Override
        public String toString() {
            return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height
                    + "\" viewBox=\"0 0 " + width + " " + height + "\" font-family=\"sans-serif\">\n"
                    + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body + "</svg>\n";
        }
    }
}
