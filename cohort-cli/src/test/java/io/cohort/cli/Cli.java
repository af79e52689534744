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

    /** {@code cohort --bootstrap BOOTSTRAP ARGS...}: the call every CLI test against a cluster makes. */
    static Cli against(String bootstrap, String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap";
        all[1] = bootstrap;
        System.arraycopy(args, 0, all, 2, args.length);
        return run(all);
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
    }
}
