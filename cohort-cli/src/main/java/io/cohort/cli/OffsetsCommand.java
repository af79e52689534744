package io.cohort.cli;

import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.cli.Model.GroupOffsets;
import io.cohort.cli.Model.OffsetDeletion;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cohort offsets get|set|delete}. */
@Command(name = "offsets", description = "Reads, sets and deletes the committed offsets of a group.",
        subcommands = {OffsetsCommand.GetOffsets.class, OffsetsCommand.SetOffsets.class,
                OffsetsCommand.DeleteOffsets.class, OffsetsResetCommand.class})
final class OffsetsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** The committed offsets of {@code group}, of one topic if {@code topic} is not null. */
    static SortedMap<TopicPartition, OffsetAndMetadata> committed(CohortClient client, String group, String topic) {
        SortedMap<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        client.fetchOffsets(group).forEach((tp, offset) -> {
            if (topic == null || topic.equals(tp.topic())) {
                offsets.put(tp, offset);
            }
        });
        return offsets;
    }

    /** {@code cohort offsets get GROUP [--topic T]}. */
    @Command(name = "get", description = {"Prints the committed offsets of a group (OffsetFetch, linearizable), "
            + "sorted by topic and partition.", "An unknown group has none."})
    static final class GetOffsets extends AdminCommand {
        @Parameters(index = "0", paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(names = "--topic", paramLabel = "TOPIC", description = "Only the offsets of this topic.")
        String topic;

        @Override
        int execute(CohortClient client) {
            try {
                out().print(Render.offsets(format(), new GroupOffsets(group, committed(client, group, topic))));
            } catch (CohortException e) {
                throw CliFailure.of("fetching the offsets of group '" + group + "'", e);
            }
            return 0;
        }
    }

    /** {@code cohort offsets set GROUP TOPIC:PARTITION=OFFSET...}. */
    @Command(name = "set",
            description = {"Commits offsets for a group as an admin tool (like kafka-consumer-groups.sh "
                    + "--reset-offsets --execute): only on an Empty or unknown group (an unknown group is created, "
                    + "Empty). Leader epochs and metadata are cleared.",
                    "Prints the offsets set."})
    static final class SetOffsets extends AdminCommand {
        @Parameters(index = "0", paramLabel = "GROUP", description = "The group.")
        String group;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = OffsetArg.FORM, converter = OffsetArg.Converter.class,
                description = "The offset to set, e.g. orders:0=42 (the next record the group consumes).")
        List<OffsetArg> offsets;

        private final SortedMap<TopicPartition, OffsetAndMetadata> toCommit = new TreeMap<>();

        @Override
        void validate() {
            toCommit.clear();
            for (OffsetArg arg : offsets) {
                if (toCommit.put(arg.partition(), new OffsetAndMetadata(arg.offset())) != null) {
                    throw usage("partition " + arg.partition() + " is given more than once");
                }
            }
        }

        @Override
        int execute(CohortClient client) {
            Optional<DescribeGroupsResponse.Group> described;
            try {
                described = client.describeGroup(group);
            } catch (CohortException e) {
                throw CliFailure.of("describing group '" + group + "'", e);
            }
            if (described.isPresent() && !"Empty".equals(described.get().getGroupState())) {
                int members = described.get().getMembersCount();
                throw new CliFailure("group '" + group + "' is " + described.get().getGroupState() + " with "
                        + members + (members == 1 ? " member" : " members")
                        + "; offsets can be set only on an Empty or unknown group: stop its consumers first", null);
            }
            try {
                client.commitOffsets(group, toCommit);
            } catch (CohortException e) {
                // A member joined between the check and the commit: the coordinator refuses it too.
                throw CliFailure.of("setting the offsets of group '" + group + "'", e);
            }
            out().print(Render.offsets(format(), new GroupOffsets(group, toCommit)));
            return 0;
        }
    }

    /** {@code cohort offsets delete GROUP --topic T [--partition P]...}. */
    @Command(name = "delete",
            description = {"Deletes committed offsets of a group (OffsetDelete): of the given partitions of the "
                    + "topic, or without --partition of every partition of it that has one.",
                    "Allowed on an Empty group, and on a consumer group whose members do not subscribe to the topic. "
                            + "Prints each partition's result; exit code 1 if some were not deleted."})
    static final class DeleteOffsets extends AdminCommand {
        @Parameters(index = "0", paramLabel = "GROUP", description = "The group.")
        String group;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
        String topic;

        @Option(names = "--partition", paramLabel = "P",
                description = "A partition of the topic (repeatable); default: every partition with a committed offset.")
        List<Integer> partitions = new ArrayList<>();

        @Override
        void validate() {
            for (int p : partitions) {
                if (p < 0) {
                    throw usage("Invalid value for option '--partition': must be >= 0, got " + p);
                }
            }
        }

        @Override
        int execute(CohortClient client) {
            String what = "deleting the offsets of group '" + group + "'";
            TreeSet<TopicPartition> targets = new TreeSet<>();
            try {
                if (partitions.isEmpty()) {
                    targets.addAll(committed(client, group, topic).keySet());
                    if (targets.isEmpty()) {
                        if (client.describeGroup(group).isEmpty()) {
                            throw new CliFailure("group '" + group + "' does not exist",
                                    "'cohort groups list' lists the groups");
                        }
                        err().println("cohort: group '" + group + "' has no committed offsets of topic '" + topic
                                + "'; nothing to delete");
                    }
                } else {
                    partitions.forEach(p -> targets.add(new TopicPartition(topic, p)));
                }
                SortedMap<TopicPartition, ErrorCode> results = new TreeMap<>();
                if (!targets.isEmpty()) {
                    results.putAll(client.deleteOffsets(group, targets));
                }
                out().print(Render.offsetsDelete(format(), new OffsetDeletion(group, results)));
                List<TopicPartition> failed = new ArrayList<>();
                ErrorCode firstError = null;
                for (Map.Entry<TopicPartition, ErrorCode> result : results.entrySet()) {
                    if (result.getValue() != ErrorCode.NONE) {
                        failed.add(result.getKey());
                        firstError = firstError == null ? result.getValue() : firstError;
                    }
                }
                if (firstError != null) {
                    report(CliFailure.of(what, new CohortException(firstError, failed.size() + " of " + results.size()
                            + " partitions not deleted: " + failed.stream().map(TopicPartition::toString).toList()
                            + (firstError == ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                                    ? "; the group is subscribed to topic '" + topic + "'" : ""))));
                    return 1;
                }
                return 0;
            } catch (CohortException e) {
                throw CliFailure.of(what, e);
            }
        }
    }
}
