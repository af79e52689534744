package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cohort cluster wait-ready} against three real nodes (real Ratis, real gRPC): ready once
 * every replica caught up and the leaders sit on their preferred nodes; with a node stopped it
 * waits, and after {@code --wait} fails naming what it waited for.
 */
class WaitReadyCliTest {
    private static final int PARTITIONS = 3;

    @TempDir
    static Path root;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, PARTITIONS);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Cli cohort(String... args) {
        return Cli.against(cluster.bootstrap(), args);
    }

    @Test
    void testReadyOnceCaughtUpAndBalancedAndNotWhileANodeIsDown() {
        // The nodes hand each partition to its preferred leader a few seconds after the first elections.
        Cli ready = cohort("cluster", "wait-ready", "--wait", "120");
        assertThat(ready.exit()).as("%s", ready).isZero();
        assertThat(ready.out()).matches("ready after \\d+ ms: 3 nodes caught up, every partition led by its "
                + "preferred leader\n");

        cluster.stopNode(3);
        try {
            Cli waiting = cohort("--output", "json", "cluster", "wait-ready", "--wait", "1");
            assertThat(waiting.exit()).as("%s", waiting).isEqualTo(1);
            assertThat(waiting.out()).contains("\"ready\": false").contains("\"node 3 does not answer ClusterStatus\"");
            assertThat(waiting.err()).startsWith("cohort: cluster wait-ready: not ready after 1 s: node 3 does not "
                    + "answer ClusterStatus\nhint: ");
        } finally {
            cluster.startNode(3);
        }
        Cli back = cohort("cluster", "wait-ready", "--wait", "120", "--no-balance");
        assertThat(back.exit()).as("%s", back).isZero();
        assertThat(back.out()).matches("ready after \\d+ ms: 3 nodes caught up\n");
    }

    @Test
    void testUsageErrors() {
        Cli zero = cohort("cluster", "wait-ready", "--wait", "0");
        assertThat(zero.exit()).isEqualTo(2);
        assertThat(zero.err()).contains("Invalid value for option '--wait': must be > 0, got 0");
    }
}
