package io.cohort.cli;

import io.cohort.api.v1.AlterTopicsRequest;
import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.PartitionRacks;
import io.cohort.api.v1.TopicDescription;
import io.cohort.api.v1.TopicResult;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cohort topics create|alter|delete|list}: the topic registry the consumer protocol's server
 * assignors read (docs/OPERATIONS.md, "Topic registry"). Changes need ALTER on the cluster, listing
 * DESCRIBE. A topic the cluster refuses is printed on stderr with its Kafka error name, and the exit
 * code is 1.
 */
@Command(name = "topics", description = "Creates, changes, deletes and lists the topics of the topic registry.",
        subcommands = {TopicsCommand.Create.class, TopicsCommand.Alter.class, TopicsCommand.Delete.class,
                TopicsCommand.ListTopics.class})
final class TopicsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** A change: prints the topics that took it, reports the refused ones, exit 1 if any was refused. */
    abstract static class ChangeCommand extends AdminCommand {
        int print(String what, String key, List<TopicResult> results) {
            List<TopicDescription> changed = new ArrayList<>();
            boolean refused = false;
            for (TopicResult result : results) {
                if (result.getErrorCode() == io.cohort.api.v1.ErrorCode.NONE) {
                    changed.add(result.getTopic());
                } else {
                    refused = true;
                    report(new CliFailure(what + " " + result.getName() + ": " + result.getErrorCode().name() + " ("
                            + result.getErrorCode().getNumber() + "): " + result.getErrorMessage(), null));
                }
            }
            if (!changed.isEmpty() || !refused) {
                out().print(render(format(), key, changed));
            }
            return refused ? 1 : 0;
        }
    }

    /** {@code cohort topics create orders --partitions 6 [--racks a,b;c,d;...]}. */
    @Command(name = "create", description = "Creates a topic.")
    static final class Create extends ChangeCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "1-249 characters of [a-zA-Z0-9._-].")
        String name;

        @Option(names = "--partitions", paramLabel = "N", required = true, description = "The partition count (>= 1).")
        int partitions;

        @Option(names = "--racks", paramLabel = "R0A,R0B;R1A,...", description = "The racks of each partition's "
                + "replicas: partitions separated by ';', racks by ','; one entry per partition.")
        String racks;

        @Option(names = "--validate-only", description = "Check the topic against the registry; create nothing.")
        boolean validateOnly;

        @Override
        int execute(CohortClient client) {
            CreateTopicsRequest.NewTopic topic = CreateTopicsRequest.NewTopic.newBuilder().setName(name)
                    .setPartitionCount(partitions).addAllPartitionRacks(parseRacks(racks)).build();
            try {
                return print("creating topic", validateOnly ? "validated" : "created",
                        client.createTopics(List.of(topic), validateOnly).getResultsList());
            } catch (CohortException e) {
                throw CliFailure.of("creating topic " + name, e);
            }
        }
    }

    /** {@code cohort topics alter orders --partitions 12 [--racks ...]}: partitions are only ever added. */
    @Command(name = "alter", description = "Raises a topic's partition count (never lowers it) and sets its racks.")
    static final class Alter extends ChangeCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--partitions", paramLabel = "N", required = true,
                description = "The new partition count (not lower than the current one).")
        int partitions;

        @Option(names = "--racks", paramLabel = "R0A,R0B;R1A,...",
                description = "The racks of each partition, as for create; without it the topic keeps no racks.")
        String racks;

        @Option(names = "--validate-only", description = "Check the change; change nothing.")
        boolean validateOnly;

        @Override
        int execute(CohortClient client) {
            AlterTopicsRequest.TopicChange change = AlterTopicsRequest.TopicChange.newBuilder().setName(name)
                    .setPartitionCount(partitions).addAllPartitionRacks(parseRacks(racks)).build();
            try {
                return print("changing topic", validateOnly ? "validated" : "altered",
                        client.alterTopics(List.of(change), validateOnly).getResultsList());
            } catch (CohortException e) {
                throw CliFailure.of("changing topic " + name, e);
            }
        }
    }

    /** {@code cohort topics delete orders [more ...]}. */
    @Command(name = "delete", description = "Deletes topics from the registry.")
    static final class Delete extends ChangeCommand {
        @Parameters(arity = "1..*", paramLabel = "NAME")
        List<String> names;

        @Override
        int execute(CohortClient client) {
            try {
                return print("deleting topic", "deleted", client.deleteTopics(names).getResultsList());
            } catch (CohortException e) {
                throw CliFailure.of("deleting topics " + String.join(",", names), e);
            }
        }
    }

    /** {@code cohort topics list [NAME ...] [--output json]}. */
    @Command(name = "list", description = "Lists the registry's topics (all, or those named), sorted by name.")
    static final class ListTopics extends AdminCommand {
        @Parameters(arity = "0..*", paramLabel = "NAME")
        List<String> names = new ArrayList<>();

        @Override
        int execute(CohortClient client) {
            try {
                out().print(render(format(), "topics", client.listTopics(names)));
            } catch (CohortException e) {
                throw CliFailure.of("listing topics", e);
            }
            return 0;
        }
    }

    /** {@code a,b;c} -> [[a, b], [c]]; null or blank -> no racks. */
    static List<PartitionRacks> parseRacks(String racks) {
        List<PartitionRacks> parsed = new ArrayList<>();
        if (racks == null || racks.isBlank()) {
            return parsed;
        }
        for (String partition : racks.split(";", -1)) {
            PartitionRacks.Builder builder = PartitionRacks.newBuilder();
            for (String rack : partition.split(",", -1)) {
                if (!rack.isBlank()) {
                    builder.addRacks(rack.strip());
                }
            }
            parsed.add(builder.build());
        }
        return parsed;
    }

    /** A table (NAME, TOPIC_ID, PARTITIONS, RACKS) or JSON {@code {"<key>": [...]}}. */
    static String render(OutputFormat format, String key, List<TopicDescription> topics) {
        if (format == OutputFormat.JSON) {
            return Json.write(Json.obj().put(key, Json.array(topics.stream().map(TopicsCommand::json).toList())));
        }
        Table table = new Table("NAME", "TOPIC_ID", "PARTITIONS", "RACKS");
        for (TopicDescription topic : topics) {
            List<String> racks = topic.getPartitionRacksList().stream()
                    .map(p -> String.join(",", p.getRacksList())).toList();
            table.row(topic.getName(), topicId(topic), Integer.toString(topic.getPartitionCount()),
                    racks.isEmpty() ? "-" : String.join(";", racks));
        }
        return table.render();
    }

    private static Json.Obj json(TopicDescription topic) {
        return Json.obj().put("name", topic.getName()).put("topic_id", topicId(topic))
                .put("partition_count", topic.getPartitionCount())
                .put("partition_racks", Json.array(topic.getPartitionRacksList().stream()
                        .map(p -> Json.array(p.getRacksList())).toList()));
    }

    private static String topicId(TopicDescription topic) {
        if (topic.getTopicId().size() != 16) {
            return "";
        }
        ByteBuffer id = topic.getTopicId().asReadOnlyByteBuffer();
        return new UUID(id.getLong(), id.getLong()).toString();
    }
}
