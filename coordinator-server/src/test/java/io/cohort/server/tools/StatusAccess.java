package io.cohort.server.tools;

import java.io.PrintStream;
import picocli.CommandLine;

/** Runs the Status command in the test JVM, printing to {@code out}. */
public final class StatusAccess {
    private StatusAccess() {
    }

    public static int run(PrintStream out, String... args) {
        return new CommandLine(new Status(out)).execute(args);
    }
}
