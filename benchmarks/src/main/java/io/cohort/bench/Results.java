package io.cohort.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result lines of a run: each is printed to stdout as one JSON object and appended to
 * {@code <out>/bench-<workload>.jsonl}; all are kept for the ratio table and the charts.
 */
final class Results {
    private final BenchOptions options;
    private final List<Map<String, Object>> lines = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    /** The comparison round the lines emitted now belong to (--rounds); 0: the run has one round. */
    private int round;

    Results(BenchOptions options) throws IOException {
        this.options = options;
        Files.createDirectories(options.outDir());
    }

    /** The keys every line starts with; the caller adds the workload's parameters and figures. */
    Map<String, Object> line(String system, String workload) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("run", BenchMain.RUN_ID);
        m.put("system", system);
        m.put("workload", workload);
        m.put("timestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        m.put("git_rev", options.gitRev());
        if (options.quick()) {
            m.put("quick", true);
        }
        if (round > 0) {
            m.put("round", round);
        }
        return m;
    }

    synchronized void round(int round) {
        this.round = round;
    }

    synchronized void emit(Map<String, Object> line) {
        String json = Json.write(line);
        System.out.println(json);
        System.out.flush();
        lines.add(line);
        Path file = options.outDir().resolve("bench-" + line.get("workload") + ".jsonl");
        try {
            Files.writeString(file, json + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not append to " + file, e);
        }
    }

    /** Records a failure: the run exits non-zero. Also emitted as a line with "error". */
    synchronized void fail(String system, String workload, String what) {
        Machine.log("FAILED: " + system + " " + workload + ": " + what);
        failures.add(system + " " + workload + ": " + what);
        Map<String, Object> line = line(system, workload);
        line.put("error", what);
        emit(line);
    }

    synchronized List<Map<String, Object>> lines() {
        return List.copyOf(lines);
    }

    synchronized List<String> failures() {
        return List.copyOf(failures);
    }
}
