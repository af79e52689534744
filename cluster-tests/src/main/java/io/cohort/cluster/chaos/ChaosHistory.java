package io.cohort.cluster.chaos;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The history of a chaos run: every operation's invocation and completion, membership changes and
 * faults, in the order they happened, kept in memory for the checkers and streamed to a JSON-lines
 * file so a hung or crashed run still leaves it behind.
 */
public final class ChaosHistory implements AutoCloseable {
    private final long startNanos = System.nanoTime();
    private final List<Op> ops = new ArrayList<>();
    private final BufferedWriter out;

    public ChaosHistory(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public long startNanos() {
        return startNanos;
    }

    /** Records an event now; returns its time. */
    public long record(String process, String type, String function, String key, long value, int generation,
            String detail) {
        long now;
        synchronized (this) {
            now = System.nanoTime();
            Op op = new Op(now, process, type, function, key, value, generation, detail);
            ops.add(op);
            try {
                out.write(op.toJson(startNanos));
                out.newLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return now;
    }

    public long event(String process, String function, String detail) {
        return record(process, Op.EVENT, function, "", -1, -1, detail);
    }

    public synchronized List<Op> ops() {
        return List.copyOf(ops);
    }

    public synchronized void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Milliseconds since the history started, for log lines. */
    public long elapsedMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
