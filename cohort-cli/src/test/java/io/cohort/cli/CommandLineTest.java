package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Usage errors and help, which need no cluster (nothing is called: usage errors come first). */
class CommandLineTest {
    @Test
    void testHelpExitsZero() {
        Cli cli = Cli.run("--help");
        assertThat(cli.exit()).as("%s", cli).isZero();
        assertThat(cli.out()).startsWith("Usage: cohort ").contains("groups", "offsets", "find-coordinator",
                "cluster", "--bootstrap", "--output", "--timeout");
        assertThat(Cli.run("offsets", "set", "--help").out()).contains("TOPIC:PARTITION=OFFSET");
    }

    @Test
    void testMissingSubcommandIsAUsageError() {
        assertUsageError(Cli.run(), "Missing required subcommand");
        assertUsageError(Cli.run("groups"), "Missing required subcommand");
        assertUsageError(Cli.run("grops"), "Did you mean");
    }

    @Test
    void testMalformedArgumentsAreUsageErrors() {
        assertUsageError(Cli.run("offsets", "set", "g", "orders:x=5"),
                "expected TOPIC:PARTITION=OFFSET with a numeric partition and offset (e.g. orders:0=42), got 'orders:x=5'");
        assertUsageError(Cli.run("offsets", "set", "g"), "TOPIC:PARTITION=OFFSET");
        assertUsageError(Cli.run("offsets", "set", "g", "o:0=1", "o:0=2"), "partition o:0 is given more than once");
        assertUsageError(Cli.run("offsets", "delete", "g", "--topic", "t", "--partition", "-1"), "must be >= 0");
        assertUsageError(Cli.run("offsets", "delete", "g"), "--topic");
        assertUsageError(Cli.run("groups", "describe"), "GROUP");
        assertUsageError(Cli.run("groups", "list", "--state", "Sleepy"), "'Sleepy' is not a group state");
        assertUsageError(Cli.run("--timeout", "0", "groups", "list"), "--timeout");
        assertUsageError(Cli.run("--bootstrap", "nohost", "groups", "list"), "expected HOST:PORT");
        assertUsageError(Cli.run("groups", "list", "--output", "xml"), "--output");
        assertUsageError(Cli.run("cluster", "transfer-leader", "--partition", "0"), "--to");
        assertUsageError(Cli.run("cluster", "transfer-leader", "--partition", "0", "--to", "2", "--wait", "0"),
                "--wait");
    }

    private static void assertUsageError(Cli cli, String message) {
        assertThat(cli.exit()).as("%s", cli).isEqualTo(2);
        assertThat(cli.out()).as("%s", cli).isEmpty();
        assertThat(cli.err()).as("%s", cli).startsWith("cohort: ").contains(message).contains("Usage: cohort")
                .contains("--help' for more information.");
    }
}
