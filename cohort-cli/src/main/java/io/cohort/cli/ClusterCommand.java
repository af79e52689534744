package io.cohort.cli;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.cli.Model.ClusterView;
import io.cohort.cli.Model.Transfer;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code cohort cluster status|transfer-leader}. */
@Command(name = "cluster", description = "Shows the nodes and Raft partitions, moves partition leadership.",
        subcommands = {ClusterCommand.Status.class, ClusterCommand.TransferLeader.class, ClusterConfigCommand.class,
                WaitReadyCommand.class, MembershipCommands.AddNode.class, MembershipCommands.RemoveNode.class,
                MembershipCommands.Members.class})
final class ClusterCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** {@code cohort cluster status}. */
    @Command(name = "status",
            description = {"Asks every node for its view (ClusterStatus) and prints the nodes (a node that does not "
                    + "answer is DOWN) and, per partition, its leader, the leader's term and commit index, and each "
                    + "node's applied index.",
                    "Exit code 0 if at least one node answered and every partition has a ready leader, else 1."})
    static final class Status extends AdminCommand {
        @Override
        int execute(CohortClient client) {
            ClusterView view;
            try {
                view = Gather.clusterStatus(client);
            } catch (CohortException e) {
                throw CliFailure.of("asking for the cluster status", e);
            }
            out().print(Render.clusterStatus(format(), view));
            if (!view.anyNodeUp()) {
                report(new CliFailure("cluster status: no node answered", CliFailure.UNREACHABLE_HINT));
                return 1;
            }
            List<Integer> unled = view.partitionsWithoutReadyLeader();
            if (!unled.isEmpty() || view.partitions().isEmpty()) {
                report(new CliFailure("cluster status: " + unled.size() + " of " + view.partitions().size()
                        + " partitions have no ready leader: " + unled.stream().map(String::valueOf)
                        .collect(Collectors.joining(",")),
                        "an election may be under way: retry in a few seconds; if it persists, check that a majority "
                                + "of the nodes runs (logs/node-<id>.log)"));
                return 1;
            }
            return 0;
        }
    }

    /** {@code cohort cluster transfer-leader --partition P --to NODE [--wait SECONDS]}. */
    @Command(name = "transfer-leader",
            description = "Moves the leadership of a partition to a node and waits until that node leads it "
                    + "(TransferLeadership).")
    static final class TransferLeader extends AdminCommand {
        private static final Duration RETRY_BACKOFF = Duration.ofMillis(250);

        @Option(names = "--partition", required = true, paramLabel = "P", description = "The partition.")
        int partition;

        @Option(names = "--to", required = true, paramLabel = "NODE", description = "The id of the node to lead it.")
        int node;

        @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "10",
                description = "How long to wait for the new leader (default: ${DEFAULT-VALUE}).")
        int waitSeconds;

        @Override
        void validate() {
            if (partition < 0) {
                throw usage("Invalid value for option '--partition': must be >= 0, got " + partition);
            }
            if (waitSeconds <= 0) {
                throw usage("Invalid value for option '--wait': must be > 0, got " + waitSeconds);
            }
        }

        @Override
        int execute(CohortClient client) {
            String what = "moving the leadership of partition " + partition + " to node " + node;
            try {
                Integer previous = null;
                ClusterStatusResponse status = client.clusterStatus(false);
                for (PartitionStatus p : status.getPartitionsList()) {
                    if (p.getPartitionIndex() == partition && p.getLeaderNodeId() >= 0) {
                        previous = p.getLeaderNodeId();
                    }
                }
                transfer(client);
                out().print(Render.transfer(format(), new Transfer(partition, previous, node)));
                return 0;
            } catch (CohortException e) {
                throw CliFailure.of(what, e, switch (e.errorCode()) {
                    case INVALID_REQUEST -> "'cohort cluster status' lists the partitions and nodes";
                    case REQUEST_TIMED_OUT -> "the transfer may still complete: check 'cohort cluster status', "
                            + "or retry with a longer --wait";
                    default -> null;
                });
            }
        }

        /**
         * TransferLeadership, sent again while the partition has no leader (COORDINATOR_NOT_AVAILABLE,
         * e.g. during an election), until --timeout runs out: CohortClient retries only transport
         * failures of this call.
         */
        private void transfer(CohortClient client) {
            long deadline = System.nanoTime() + client.apiTimeout().toNanos();
            while (true) {
                try {
                    client.transferLeadership(partition, node, Duration.ofSeconds(waitSeconds));
                    return;
                } catch (CohortException e) {
                    if (e.errorCode() != ErrorCode.COORDINATOR_NOT_AVAILABLE
                            || System.nanoTime() + RETRY_BACKOFF.toNanos() >= deadline) {
                        throw e;
                    }
                }
                try {
                    Thread.sleep(RETRY_BACKOFF.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CliFailure("interrupted", null);
                }
            }
        }
    }
}
