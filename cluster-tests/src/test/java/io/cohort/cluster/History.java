package io.cohort.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What a cluster test did and saw, one line per event with the milliseconds since the test
 * started, appended to a file in the run directory as it happens, so a failed (or hung) run
 * leaves the whole story beside the node logs.
 */
final class History {
    private final Path file;
    private final long startNanos = System.nanoTime();

    History(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    long elapsedMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    synchronized void record(String event) {
        String line = String.format("%7d ms  [%s] %s%n", elapsedMs(), Thread.currentThread().getName(), event);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the history " + file, e);
        }
    }
}
