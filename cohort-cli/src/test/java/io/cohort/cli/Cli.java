package io.cohort.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the CLI in-process, as {@code cohort ARGS...} would, capturing stdout, stderr and the exit code. */
record Cli(int exit, String out, String err) {
    static Cli run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = CohortCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute(args);
        return new Cli(exit, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
    }
}
