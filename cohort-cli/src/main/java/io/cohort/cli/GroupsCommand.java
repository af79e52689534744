package io.cohort.cli;

import io.cohort.api.v1.ErrorCode;
import io.cohort.cli.Model.GroupDeletion;
import io.cohort.cli.Model.DescribedGroup;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cohort groups list|describe|delete}. */
@Command(name = "groups", description = "Lists, describes and deletes consumer groups.",
        subcommands = {GroupsCommand.ListGroups.class, GroupsCommand.DescribeGroups.class,
                GroupsCommand.DeleteGroups.class})
final class GroupsCommand implements Runnable {
    /** The group states of DescribeGroups and ListGroups, as the server spells them. */
    static final List<String> STATES = List.of("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead");

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** {@code cohort groups list [--state STATE]...}. */
    @Command(name = "list", description = "Lists the groups of the cluster (ListGroups to every node, which lists the partitions it "
            + "leads; the answers merged), sorted by group id.")
    static final class ListGroups extends AdminCommand {
        @Option(names = "--state", paramLabel = "STATE",
                description = "Only groups in this state (repeatable; case-insensitive): Empty, PreparingRebalance, "
                        + "CompletingRebalance, Stable, Dead.")
        List<String> states = new ArrayList<>();

        private final List<String> canonicalStates = new ArrayList<>();

        @Override
        void validate() {
            canonicalStates.clear();
            for (String state : states) {
                canonicalStates.add(STATES.stream().filter(s -> s.equalsIgnoreCase(state)).findFirst()
                        .orElseThrow(() -> usage("Invalid value for option '--state': '" + state
                                + "' is not a group state; expected one of " + String.join(", ", STATES))));
            }
        }

        @Override
        int execute(CohortClient client) {
            try {
                out().print(Render.groupsList(format(), Gather.listGroups(client, canonicalStates)));
            } catch (CohortException e) {
                throw CliFailure.of("listing groups", e);
            }
            return 0;
        }
    }

    /** {@code cohort groups describe GROUP...}. */
    @Command(name = "describe",
            description = {"Describes groups (DescribeGroups): coordinator, state, protocol, generation, leader and "
                    + "members with their assignments (decoded for protocol type \"consumer\").",
                    "A consumer-protocol (KIP-848) group (ConsumerGroupDescribe) shows its group epoch, assignment "
                            + "epoch, assignor and state, and each member's epoch, state, and current and target "
                            + "assignment.",
                    "An unknown group is reported on stderr (exit code 1); the others are still described."})
    static final class DescribeGroups extends AdminCommand {
        @Parameters(arity = "1..*", paramLabel = "GROUP", description = "The groups to describe.")
        List<String> groups;

        @Override
        int execute(CohortClient client) {
            List<DescribedGroup> described = new ArrayList<>();
            int exit = 0;
            for (String group : new LinkedHashSet<>(groups)) {
                try {
                    Optional<DescribedGroup> description = Gather.describeAnyGroup(client, group);
                    if (description.isPresent()) {
                        described.add(description.get());
                    } else {
                        report(new CliFailure("group '" + group + "' does not exist",
                                "'cohort groups list' lists the groups"));
                        exit = 1;
                    }
                } catch (CohortException e) {
                    report(CliFailure.of("describing group '" + group + "'", e));
                    exit = 1;
                }
            }
            out().print(Render.groupsDescribe(format(), described));
            return exit;
        }
    }

    /** {@code cohort groups delete GROUP...}. */
    @Command(name = "delete",
            description = {"Deletes Empty groups with all their committed offsets (DeleteGroups).",
                    "Prints each group's result; a group that was not deleted is also reported on stderr "
                            + "(exit code 1)."})
    static final class DeleteGroups extends AdminCommand {
        @Parameters(arity = "1..*", paramLabel = "GROUP", description = "The groups to delete.")
        List<String> groups;

        @Override
        int execute(CohortClient client) {
            List<GroupDeletion> results = new ArrayList<>();
            int exit = 0;
            for (String group : new LinkedHashSet<>(groups)) {
                String what = "deleting group '" + group + "'";
                try {
                    Map<String, ErrorCode> result = client.deleteGroups(List.of(group));
                    ErrorCode code = result.getOrDefault(group, ErrorCode.UNKNOWN_SERVER_ERROR);
                    results.add(new GroupDeletion(group, code));
                    if (code != ErrorCode.NONE) {
                        report(CliFailure.of(what, new CohortException(code, explain(code))));
                        exit = 1;
                    }
                } catch (CohortException e) {
                    report(CliFailure.of(what, e));
                    exit = 1;
                }
            }
            out().print(Render.groupsDelete(format(), results));
            return exit;
        }

        /** The server's message is not passed on by CohortClient.deleteGroups; say what the code means. */
        private static String explain(ErrorCode code) {
            return switch (code) {
                case NON_EMPTY_GROUP -> "the group has members";
                case GROUP_ID_NOT_FOUND -> "no such group";
                default -> code.name().toLowerCase(Locale.ROOT).replace('_', ' ');
            };
        }
    }
}
