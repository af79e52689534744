package io.cohort.cli;

import io.cohort.api.v1.DescribeMembershipResponse;
import io.cohort.api.v1.Member;
import io.cohort.api.v1.MemberProgress;
import io.cohort.api.v1.MemberRole;
import io.cohort.api.v1.MembershipChangeResponse;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cohort cluster add-node|remove-node|members}: online membership change (docs/OPERATIONS.md). */
final class MembershipCommands {
    private MembershipCommands() {
    }

    private static final String CHANGE_HINT = "re-running the same command resumes a change that stopped halfway; "
            + "'cohort cluster members' shows voters, listeners and catch-up";

    /** {@code cohort cluster add-node --id N --raft HOST:PORT --client HOST:PORT [--wait SECONDS]}. */
    @Command(name = "add-node",
            description = {"Adds a node to the cluster online (AddNode). Start the node first with "
                    + "--join HOST:CLIENT_PORT of a member (cluster.join): it takes the cluster's settings and waits. "
                    + "The node joins each of its partitions as a listener (learner), catches up (snapshot, then "
                    + "log) and is promoted to voter. With offsets.replication.factor below the node count, each "
                    + "partition then moves to where the placement over the new members puts it, between existing "
                    + "nodes too (new replicas are caught up before old ones leave). Refused if the voters that "
                    + "answer could not form the new quorum, or while another change runs.",
                    "Safe to re-run: a change stopped halfway resumes; a node already added is a no-op."})
    static final class AddNode extends AdminCommand {
        @Option(names = "--id", required = true, paramLabel = "N", description = "The new node's id.")
        int id;

        @Option(names = "--raft", required = true, paramLabel = "HOST:PORT", description = "Its Raft address.")
        String raft;

        @Option(names = "--client", required = true, paramLabel = "HOST:PORT", description = "Its client address.")
        String client;

        @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "300",
                description = "How long the change may take (default: ${DEFAULT-VALUE}).")
        int waitSeconds;

        @Override
        void validate() {
            if (id <= 0) {
                throw usage("Invalid value for option '--id': must be > 0, got " + id);
            }
        }

        @Override
        int execute(CohortClient cohort) {
            try {
                print(this, cohort.addNode(id, raft, client, Duration.ofSeconds(waitSeconds)));
                return 0;
            } catch (CohortException e) {
                throw CliFailure.of("adding node " + id, e, CHANGE_HINT);
            }
        }
    }

    /** {@code cohort cluster remove-node --id N [--wait SECONDS]}. */
    @Command(name = "remove-node",
            description = {"Removes a node from the cluster online (RemoveNode): leadership is moved off it first, "
                    + "then it leaves every partition's group; it stops serving and says so, and its data dir can be "
                    + "deleted. With offsets.replication.factor below the node count, its partitions first move to "
                    + "where the placement over the remaining members puts them. Refused if the voters left that "
                    + "answer could not form a quorum.",
                    "Safe to re-run; removing a node that is not a member is a no-op."})
    static final class RemoveNode extends AdminCommand {
        @Option(names = "--id", required = true, paramLabel = "N", description = "The node to remove.")
        int id;

        @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "120",
                description = "How long the change may take (default: ${DEFAULT-VALUE}).")
        int waitSeconds;

        @Override
        int execute(CohortClient cohort) {
            try {
                print(this, cohort.removeNode(id, Duration.ofSeconds(waitSeconds)));
                return 0;
            } catch (CohortException e) {
                throw CliFailure.of("removing node " + id, e, CHANGE_HINT);
            }
        }
    }

    /** {@code cohort cluster members}. */
    @Command(name = "members",
            description = "Lists the members (voters and listeners, from partition 0's Raft configuration) and, per "
                    + "partition led by a node, each replica's match index and lag (DescribeMembership).")
    static final class Members extends AdminCommand {
        @Override
        int execute(CohortClient cohort) {
            try {
                DescribeMembershipResponse first = cohort.describeMembership();
                out().printf("members (configuration index %d, as node %d sees them):%n",
                        first.getConfigurationIndex(), first.getNodeId());
                for (Member m : first.getMembersList()) {
                    out().printf("  node %d  %s  raft %s:%d  client %s:%d%n", m.getNodeId(), role(m.getRole()),
                            m.getHost(), m.getRaftPort(), m.getHost(), m.getClientPort());
                }
                out().println("catch-up per partition (from its leader):");
                for (Map.Entry<Integer, String> node : cohort.nodes().entrySet()) {
                    DescribeMembershipResponse view;
                    try {
                        view = cohort.describeMembership(node.getKey());
                    } catch (CohortException e) {
                        out().printf("  node %d: DOWN (%s)%n", node.getKey(), e.getMessage());
                        continue;
                    }
                    if (view.getRemoved()) {
                        out().printf("  node %d: REMOVED from the cluster (serves nothing; delete its data dir)%n",
                                node.getKey());
                    }
                    for (MemberProgress p : view.getProgressList()) {
                        out().printf("  partition %d  node %d  %s  match index %d  lag %d%n", p.getPartitionIndex(),
                                p.getNodeId(), role(p.getRole()), p.getMatchIndex(), p.getLagEntries());
                    }
                }
                return 0;
            } catch (CohortException e) {
                throw CliFailure.of("describing the membership", e);
            }
        }
    }

    private static String role(MemberRole role) {
        return role == MemberRole.MEMBER_ROLE_LISTENER ? "listener" : "voter";
    }

    private static void printTo(java.io.PrintWriter out, MembershipChangeResponse response) {
        for (String step : response.getStepsList()) {
            out.println(step);
        }
        out.print("members:");
        for (Member m : response.getMembersList()) {
            out.print(" " + m.getNodeId() + (m.getRole() == MemberRole.MEMBER_ROLE_LISTENER ? "(listener)" : ""));
        }
        out.println();
    }

    static void print(AdminCommand command, MembershipChangeResponse response) {
        printTo(command.out(), response);
    }
}
