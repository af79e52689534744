package io.cohort.cli;

import io.cohort.cli.Model.GroupCoordinator;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code cohort find-coordinator GROUP...}. */
@Command(name = "find-coordinator",
        description = {"Prints each group's offsets partition and coordinator: the node leading that partition "
                + "(FindCoordinator). The group need not exist.",
                "A group whose partition has no leader within --timeout is reported on stderr (exit code 1)."})
final class FindCoordinatorCommand extends AdminCommand {
    @Parameters(arity = "1..*", paramLabel = "GROUP", description = "The groups.")
    List<String> groups;

    @Override
    int execute(CohortClient client) {
        List<GroupCoordinator> rows = new ArrayList<>();
        int exit = 0;
        for (String group : new LinkedHashSet<>(groups)) {
            try {
                rows.add(new GroupCoordinator(group, client.findCoordinator(group)));
            } catch (CohortException e) {
                report(CliFailure.of("finding the coordinator of group '" + group + "'", e));
                exit = 1;
            }
        }
        out().print(Render.findCoordinator(format(), rows));
        return exit;
    }
}
