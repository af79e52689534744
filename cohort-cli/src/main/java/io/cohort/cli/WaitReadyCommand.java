package io.cohort.cli;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.RollReadiness;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort cluster wait-ready [--wait SECONDS] [--no-balance]}: polls every node's ClusterStatus
 * until {@link RollReadiness} finds nothing left to wait for; the step {@code scripts/cluster.sh roll}
 * takes after each node it restarts. Progress (what it still waits for) goes to stderr every few
 * seconds; the result to stdout.
 */
@Command(name = "wait-ready",
        description = {"Waits until every node answers, every replica has applied everything its partition's leader "
                + "had committed, and every partition is led by its preferred leader (the first of its replicas, "
                + "where the leader balancer puts it), as a rolling restart needs before it stops the next node.",
                "Exit code 0 when ready, 1 if --wait ran out (what it still waited for goes to stderr)."})
final class WaitReadyCommand extends AdminCommand {
    private static final long POLL_INTERVAL_MS = 250;
    private static final long PROGRESS_INTERVAL_MS = 5_000;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "120",
            description = "How long to wait (default: ${DEFAULT-VALUE}).")
    int waitSeconds;

    @Option(names = "--no-balance", description = "Do not wait for the preferred leaders; only for caught-up replicas.")
    boolean noBalance;

    @Override
    void validate() {
        if (waitSeconds <= 0) {
            throw usage("Invalid value for option '--wait': must be > 0, got " + waitSeconds);
        }
    }

    @Override
    int execute(CohortClient client) {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(waitSeconds);
        long nextProgress = start + TimeUnit.MILLISECONDS.toNanos(PROGRESS_INTERVAL_MS);
        List<Integer> nodeIds = List.copyOf(client.nodes().keySet());
        while (true) {
            Map<Integer, ClusterStatusResponse> earlier = ask(client, nodeIds);
            Map<Integer, ClusterStatusResponse> later = ask(client, nodeIds);
            List<String> waiting = RollReadiness.waitingFor(nodeIds, earlier, later, !noBalance);
            long now = System.nanoTime();
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(now - start);
            if (waiting.isEmpty()) {
                print(true, waitedMs, nodeIds.size(), waiting);
                return 0;
            }
            if (now >= deadline) {
                print(false, waitedMs, nodeIds.size(), waiting);
                report(new CliFailure("cluster wait-ready: not ready after " + waitSeconds + " s: "
                        + String.join("; ", waiting),
                        "check the nodes' logs (logs/node-<id>.log) and 'cohort cluster status'; a node that is "
                                + "down or cannot catch up keeps the cluster from being ready"));
                return 1;
            }
            if (now >= nextProgress) {
                err().println("cohort: waiting " + waitedMs / 1000 + " s for: " + String.join("; ", waiting));
                err().flush();
                nextProgress = now + TimeUnit.MILLISECONDS.toNanos(PROGRESS_INTERVAL_MS);
            }
            try {
                Thread.sleep(POLL_INTERVAL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliFailure("interrupted", null);
            }
        }
    }

    /** One round: ClusterStatus of every node that answers; a node that does not is left out. */
    private static Map<Integer, ClusterStatusResponse> ask(CohortClient client, List<Integer> nodeIds) {
        Map<Integer, ClusterStatusResponse> answers = new LinkedHashMap<>();
        for (int id : nodeIds) {
            try {
                answers.put(id, client.clusterStatus(id, false));
            } catch (CohortException e) {
                // Down or starting: RollReadiness reports it as not answering.
            }
        }
        return answers;
    }

    private void print(boolean ready, long waitedMs, int nodes, List<String> waiting) {
        if (format() == OutputFormat.JSON) {
            out().print(Json.write(Json.obj().put("ready", ready).put("waited_ms", waitedMs).put("nodes", nodes)
                    .put("waiting_for", Json.array(waiting))));
        } else if (ready) {
            out().printf("ready after %d ms: %d nodes caught up%s%n", waitedMs, nodes,
                    noBalance ? "" : ", every partition led by its preferred leader");
        } else {
            out().printf("not ready after %d ms; waiting for:%n", waitedMs);
            waiting.forEach(w -> out().println("  " + w));
        }
    }
}
