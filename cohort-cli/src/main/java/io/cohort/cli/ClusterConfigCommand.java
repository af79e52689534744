package io.cohort.cli;

import io.cohort.api.v1.AlterGroupConfigResponse;
import io.cohort.api.v1.DescribeGroupConfigResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupConfigEntry;
import io.cohort.api.v1.PartitionAlterResult;
import io.cohort.api.v1.PartitionGroupConfig;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code cohort cluster config get|set}: the group settings changed online (docs/OPERATIONS.md). */
@Command(name = "config", description = {"Reads and changes the group settings online: "
        + "group.min.session.timeout.ms, group.max.session.timeout.ms, group.initial.rebalance.delay.ms, "
        + "group.max.size, offsets.retention.minutes.",
        "cluster.properties keeps the values the cluster was created with; a change is written into every "
                + "partition's log and applied in log order on every replica."},
        subcommands = {ClusterConfigCommand.Get.class, ClusterConfigCommand.Set.class})
final class ClusterConfigCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** One partition's settings as a replica reported them. */
    private record Applied(int node, long version, List<GroupConfigEntry> entries, boolean leader) {
        String key() {
            return version + " " + entries;
        }
    }

    /** {@code cohort cluster config get}. */
    @Command(name = "get", description = {"Asks every node which settings each partition it holds has applied "
            + "(DescribeGroupConfig) and prints the latest settings and, per partition, the version its leader "
            + "applied and each replica's.",
            "Exit code 1 if a partition has not applied the latest settings (run the same 'config set' again) "
                    + "or no node answered."})
    static final class Get extends AdminCommand {
        @Override
        int execute(CohortClient client) {
            Map<Integer, List<Applied>> byPartition = new TreeMap<>();
            List<String> down = new ArrayList<>();
            for (int nodeId : client.nodes().keySet()) {
                DescribeGroupConfigResponse answer;
                try {
                    answer = client.describeGroupConfig(nodeId);
                } catch (CohortException e) {
                    if (e.errorCode() == ErrorCode.CLUSTER_AUTHORIZATION_FAILED) {
                        throw CliFailure.of("reading the group settings", e);
                    }
                    down.add("node " + nodeId + ": " + e.getMessage());
                    continue;
                }
                for (PartitionGroupConfig p : answer.getPartitionsList()) {
                    byPartition.computeIfAbsent(p.getPartitionIndex(), k -> new ArrayList<>())
                            .add(new Applied(nodeId, p.getVersion(), p.getEntriesList(), p.getLeader()));
                }
            }
            down.forEach(line -> err().println("cohort: " + line));
            if (byPartition.isEmpty()) {
                report(new CliFailure("cluster config get: no node answered", CliFailure.UNREACHABLE_HINT));
                return 1;
            }
            Map<Integer, Applied> partitionView = new TreeMap<>();
            Applied latest = null;
            for (Map.Entry<Integer, List<Applied>> e : byPartition.entrySet()) {
                Applied view = e.getValue().stream().filter(Applied::leader).findFirst()
                        .orElse(e.getValue().stream().max((a, b) -> Long.compare(a.version(), b.version())).get());
                partitionView.put(e.getKey(), view);
                for (Applied replica : e.getValue()) {
                    if (latest == null || replica.version() > latest.version()) {
                        latest = replica;
                    }
                }
            }
            List<Integer> behind = new ArrayList<>();
            for (Map.Entry<Integer, Applied> e : partitionView.entrySet()) {
                if (!e.getValue().key().equals(latest.key())) {
                    behind.add(e.getKey());
                }
            }
            out().print(render(latest, byPartition, partitionView, behind));
            if (!behind.isEmpty()) {
                report(new CliFailure("cluster config get: partition" + (behind.size() == 1 ? " " : "s ")
                        + behind.stream().map(String::valueOf).collect(Collectors.joining(","))
                        + " have not applied the latest settings (version " + latest.version() + ")",
                        "run 'cohort cluster config set' again with the values to apply; it writes them to every "
                                + "partition"));
                return 1;
            }
            return 0;
        }

        private String render(Applied latest, Map<Integer, List<Applied>> byPartition,
                              Map<Integer, Applied> partitionView, List<Integer> behind) {
            if (format() == OutputFormat.JSON) {
                Json.Obj settings = Json.obj();
                latest.entries().forEach(e -> settings.put(e.getName(), e.getValue()));
                List<Object> partitions = new ArrayList<>();
                partitionView.forEach((p, view) -> {
                    List<Object> replicas = new ArrayList<>();
                    byPartition.get(p).forEach(r -> replicas.add(Json.obj().put("node_id", r.node())
                            .put("version", r.version())));
                    partitions.add(Json.obj().put("partition", p).put("version", view.version())
                            .put("up_to_date", !behind.contains(p)).put("replicas", replicas));
                });
                return Json.write(Json.obj().put("version", latest.version()).put("settings", settings)
                        .put("partitions", partitions));
            }
            Table settings = new Table("SETTING", "VALUE");
            latest.entries().forEach(e -> settings.row(e.getName(), e.getValue()));
            Table partitions = new Table("PARTITION", "VERSION", "REPLICAS(NODE:VERSION)", "STATUS");
            partitionView.forEach((p, view) -> partitions.row(p, view.version(),
                    byPartition.get(p).stream().map(r -> r.node() + ":" + r.version()).collect(Collectors.joining(" ")),
                    behind.contains(p) ? "BEHIND: has not applied version " + latest.version() : "latest"));
            return settings.render() + "(version " + latest.version() + (latest.version() == 0
                    ? ": as created, from cluster.properties" : "") + ")\n\n" + partitions.render();
        }
    }

    /** {@code cohort cluster config set KEY=VALUE...}. */
    @Command(name = "set", description = {"Changes group settings online (AlterGroupConfig, needs ALTER on the "
            + "cluster): writes the latest settings with these values, under a new version, into every "
            + "partition's Raft log. Refused unless every node runs a build that reads log format 3.",
            "Lowering group.max.size below a group's size rebalances that group: its first group.max.size "
                    + "rejoiners stay, later ones get GROUP_MAX_SIZE_REACHED (Kafka's rule).",
            "Exit code 1 if some partition did not take the change (run the command again)."})
    static final class Set extends AdminCommand {
        @Parameters(arity = "1..*", paramLabel = "KEY=VALUE",
                description = "e.g. group.max.size=100 offsets.retention.minutes=1440")
        List<String> assignments;

        private final Map<String, String> settings = new LinkedHashMap<>();

        @Override
        void validate() {
            settings.clear();
            for (String assignment : assignments) {
                int eq = assignment.indexOf('=');
                if (eq <= 0 || eq == assignment.length() - 1) {
                    throw usage("expected KEY=VALUE, got '" + assignment + "'");
                }
                if (settings.put(assignment.substring(0, eq).trim(), assignment.substring(eq + 1).trim()) != null) {
                    throw usage(assignment.substring(0, eq) + " is given more than once");
                }
            }
        }

        @Override
        int execute(CohortClient client) {
            AlterGroupConfigResponse response;
            try {
                response = client.alterGroupConfig(settings);
            } catch (CohortException e) {
                throw CliFailure.of("changing the group settings", e);
            }
            out().print(render(response));
            if (response.getErrorCode() != ErrorCode.NONE) {
                report(new CliFailure("changing the group settings: " + response.getErrorMessage(),
                        "run the same command again once every partition has a leader ('cohort cluster status')"));
                return 1;
            }
            return 0;
        }

        private String render(AlterGroupConfigResponse response) {
            if (format() == OutputFormat.JSON) {
                Json.Obj values = Json.obj();
                response.getEntriesList().forEach(e -> values.put(e.getName(), e.getValue()));
                List<Object> partitions = new ArrayList<>();
                for (PartitionAlterResult r : response.getPartitionsList()) {
                    partitions.add(Json.obj().put("partition", r.getPartitionIndex())
                            .put("error_code", r.getErrorCode().name()).put("changed", r.getChanged())
                            .put("groups_rebalanced", r.getGroupsRebalanced()));
                }
                return Json.write(Json.obj().put("version", response.getVersion()).put("settings", values)
                        .put("partitions", partitions));
            }
            Table values = new Table("SETTING", "VALUE");
            response.getEntriesList().forEach(e -> values.row(e.getName(), e.getValue()));
            Table partitions = new Table("PARTITION", "RESULT", "GROUPS-REBALANCED");
            for (PartitionAlterResult r : response.getPartitionsList()) {
                partitions.row(r.getPartitionIndex(), r.getErrorCode() != ErrorCode.NONE
                        ? r.getErrorCode() + ": " + r.getErrorMessage()
                        : r.getChanged() ? "applied" : "kept newer settings", r.getGroupsRebalanced());
            }
            return values.render() + "(version " + response.getVersion() + ")\n\n" + partitions.render();
        }
    }
}
