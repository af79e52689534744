package io.cohort.cli;

import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cohort offsets reset}: kafka-consumer-groups.sh {@code --reset-offsets} (KIP-122) for a
 * coordinator without topic logs. Same scope options ({@code --all-topics}, {@code --topic
 * T[:P,P..]}, {@code --from-file}), the specifications that need only committed offsets
 * ({@code --to-offset}, {@code --shift-by}, {@code --to-current}, {@code --from-file}), the same
 * plan, {@code --dry-run} by default, {@code --execute}, and {@code --export} as Kafka's CSV
 * ({@code topic,partition,offset}, which {@code --from-file} reads back). Kafka's rule: only an
 * inactive group (Empty, Dead or unknown) is reset, with Kafka's words otherwise; and the commit is
 * an admin commit (generation -1, no member), which the coordinator itself refuses with
 * UNKNOWN_MEMBER_ID once the group has members, so a consumer that joins between the check and the
 * commit is not overwritten.
 */
@Command(name = "reset", sortOptions = false,
        description = {"Resets the committed offsets of an inactive group, like kafka-consumer-groups.sh "
                + "--reset-offsets: prints the plan (GROUP, TOPIC, PARTITION, CURRENT-OFFSET, NEW-OFFSET) and commits "
                + "it only with --execute.",
                "Only for a group that is Empty, Dead or unknown; otherwise: \"Assignments can only be reset if the "
                        + "group 'G' is inactive, but the current state is Stable.\"",
                "Cohort has no topic logs: it cannot clamp a new offset to a partition's log start or end as Kafka "
                        + "does (--shift-by only stops at 0), it cannot list a topic's partitions (--topic T covers "
                        + "the partitions the group has committed offsets for; name others as T:0,1,2), and "
                        + "--to-earliest, --to-latest, --to-datetime and --by-duration, which read the topic's log, "
                        + "are refused."})
final class OffsetsResetCommand extends AdminCommand {
    static final String NO_TOPIC_LOGS = "needs the topic's log (its start, end or timestamps), which a Cohort "
            + "coordinator does not have; use --to-offset, --shift-by or --from-file with offsets you took from "
            + "the topic (e.g. kafka-get-offsets.sh)";

    @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The group.")
    String group;

    @Option(names = "--all-topics", description = "Every partition the group has a committed offset for.")
    boolean allTopics;

    @Option(names = "--topic", paramLabel = "TOPIC[:P,P..]",
            description = "A topic, or some of its partitions (repeatable).")
    List<String> topics = new ArrayList<>();

    @Option(names = "--to-offset", paramLabel = "N", description = "Reset to offset N (>= 0).")
    Long toOffset;

    @Option(names = "--shift-by", paramLabel = "N",
            description = "Move each committed offset by N (may be negative); never below 0. A partition without a "
                    + "committed offset cannot be shifted.")
    Long shiftBy;

    @Option(names = "--to-current", description = "Keep the committed offsets (a plan of the scope as it is).")
    boolean toCurrent;

    @Option(names = "--from-file", paramLabel = "CSV",
            description = "Reset to the offsets in a CSV file of topic,partition,offset lines (as --export writes; "
                    + "also group,topic,partition,offset lines for this group). Its partitions are the scope.")
    Path fromFile;

    @Option(names = "--to-earliest", description = "Refused: " + NO_TOPIC_LOGS + ".")
    boolean toEarliest;

    @Option(names = "--to-latest", description = "Refused: " + NO_TOPIC_LOGS + ".")
    boolean toLatest;

    @Option(names = "--to-datetime", paramLabel = "DATETIME", description = "Refused: " + NO_TOPIC_LOGS + ".")
    String toDatetime;

    @Option(names = "--by-duration", paramLabel = "DURATION", description = "Refused: " + NO_TOPIC_LOGS + ".")
    String byDuration;

    @Option(names = "--dry-run", description = "Only print the plan (the default).")
    boolean dryRun;

    @Option(names = "--execute", description = "Commit the plan.")
    boolean execute;

    @Option(names = "--export", description = "Print the plan as CSV (topic,partition,offset), for --from-file.")
    boolean export;

    private SortedMap<TopicPartition, Long> fileOffsets;

    @Override
    void validate() {
        List<String> refused = new ArrayList<>();
        if (toEarliest) {
            refused.add("--to-earliest");
        }
        if (toLatest) {
            refused.add("--to-latest");
        }
        if (toDatetime != null) {
            refused.add("--to-datetime");
        }
        if (byDuration != null) {
            refused.add("--by-duration");
        }
        if (!refused.isEmpty()) {
            throw usage(String.join(", ", refused) + " " + NO_TOPIC_LOGS);
        }
        int specifications = (toOffset != null ? 1 : 0) + (shiftBy != null ? 1 : 0) + (toCurrent ? 1 : 0)
                + (fromFile != null ? 1 : 0);
        if (specifications != 1) {
            throw usage("give exactly one of --to-offset, --shift-by, --to-current, --from-file");
        }
        if (dryRun && execute) {
            throw usage("--dry-run and --execute exclude each other");
        }
        if (fromFile != null && (allTopics || !topics.isEmpty())) {
            throw usage("--from-file gives the partitions itself; drop --all-topics and --topic");
        }
        if (fromFile == null && allTopics == !topics.isEmpty()) {
            throw usage("give either --all-topics or --topic (or --from-file)");
        }
        if (toOffset != null && toOffset < 0) {
            throw usage("Invalid value for option '--to-offset': must be >= 0, got " + toOffset);
        }
        for (String topic : topics) {
            parseTopic(topic);
        }
        if (fromFile != null) {
            fileOffsets = readCsv(fromFile);
        }
    }

    /** A topic and its partitions (empty: the partitions with committed offsets). */
    private record TopicScope(String topic, List<Integer> partitions) {
    }

    private TopicScope parseTopic(String text) {
        int colon = text.lastIndexOf(':');
        String topic = colon < 0 ? text : text.substring(0, colon);
        if (topic.isEmpty()) {
            throw usage("Invalid value for option '--topic': no topic name in '" + text + "'");
        }
        List<Integer> partitions = new ArrayList<>();
        if (colon >= 0) {
            for (String p : text.substring(colon + 1).split(",", -1)) {
                try {
                    int partition = Integer.parseInt(p.trim());
                    if (partition < 0) {
                        throw new NumberFormatException();
                    }
                    partitions.add(partition);
                } catch (NumberFormatException e) {
                    throw usage("Invalid value for option '--topic': expected TOPIC or TOPIC:P,P.. with partitions"
                            + " >= 0, got '" + text + "'");
                }
            }
        }
        return new TopicScope(topic, partitions);
    }

    /** Kafka's CsvUtils formats: topic,partition,offset (one group) or group,topic,partition,offset. */
    private SortedMap<TopicPartition, Long> readCsv(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw usage("cannot read --from-file " + file + ": " + e.getMessage());
        }
        SortedMap<TopicPartition, Long> offsets = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            String where = file + " line " + (i + 1) + " ('" + line + "')";
            if (cells.length == 4) {
                if (!cells[0].trim().equals(group)) {
                    throw usage(where + " is for group '" + cells[0].trim() + "', not '" + group + "'");
                }
                cells = new String[] {cells[1], cells[2], cells[3]};
            } else if (cells.length != 3) {
                throw usage(where + ": expected topic,partition,offset");
            }
            TopicPartition tp;
            long offset;
            try {
                tp = new TopicPartition(cells[0].trim(), Integer.parseInt(cells[1].trim()));
                offset = Long.parseLong(cells[2].trim());
            } catch (IllegalArgumentException e) {
                throw usage(where + ": expected topic,partition,offset with a numeric partition and offset");
            }
            if (tp.topic().isEmpty() || tp.partition() < 0 || offset < 0) {
                throw usage(where + ": the topic must not be empty, partition and offset must be >= 0");
            }
            if (offsets.put(tp, offset) != null) {
                throw usage(where + ": partition " + tp + " is listed twice");
            }
        }
        if (offsets.isEmpty()) {
            throw usage(file + " lists no offsets");
        }
        return offsets;
    }

    @Override
    int execute(CohortClient client) {
        String what = "resetting the offsets of group '" + group + "'";
        Optional<DescribeGroupsResponse.Group> described;
        SortedMap<TopicPartition, OffsetAndMetadata> committed;
        try {
            described = client.describeGroup(group);
            committed = new TreeMap<>(client.fetchOffsets(group));
        } catch (CohortException e) {
            throw CliFailure.of(what, e);
        }
        String state = described.map(DescribeGroupsResponse.Group::getGroupState).orElse("Dead");
        if (!"Empty".equals(state) && !"Dead".equals(state)) {
            throw new CliFailure(inactiveRule(state), "stop the group's consumers first; 'cohort groups describe "
                    + group + "' shows its members");
        }
        SortedMap<TopicPartition, Long> plan = plan(committed);
        if (export) {
            StringBuilder csv = new StringBuilder();
            plan.forEach((tp, offset) -> csv.append(tp.topic()).append(',').append(tp.partition()).append(',')
                    .append(offset).append('\n'));
            out().print(csv);
        } else {
            out().print(render(committed, plan));
        }
        if (!execute) {
            err().println("cohort: dry run (the default): nothing was committed; add --execute to commit these offsets");
            return 0;
        }
        SortedMap<TopicPartition, OffsetAndMetadata> toCommit = new TreeMap<>();
        plan.forEach((tp, offset) -> toCommit.put(tp, new OffsetAndMetadata(offset)));
        try {
            client.commitOffsets(group, toCommit);
        } catch (CohortException e) {
            if (e.errorCode() == ErrorCode.UNKNOWN_MEMBER_ID || e.errorCode() == ErrorCode.ILLEGAL_GENERATION) {
                throw new CliFailure(what + ": the group became active while resetting, and the coordinator refused"
                        + " the commit (" + e.errorCode() + "): Assignments can only be reset if the group '" + group
                        + "' is inactive; nothing was committed", "stop the group's consumers and run it again");
            }
            throw CliFailure.of(what, e);
        }
        return 0;
    }

    /** Kafka's words (ConsumerGroupCommand.resetOffsets). */
    static String inactiveRule(String group, String state) {
        return "Assignments can only be reset if the group '" + group + "' is inactive, but the current state is "
                + state + ".";
    }

    private String inactiveRule(String state) {
        return inactiveRule(group, state);
    }

    private SortedMap<TopicPartition, Long> plan(SortedMap<TopicPartition, OffsetAndMetadata> committed) {
        if (fileOffsets != null) {
            return fileOffsets;
        }
        List<TopicPartition> scope = new ArrayList<>();
        if (allTopics) {
            scope.addAll(committed.keySet());
            if (scope.isEmpty()) {
                throw new CliFailure("group '" + group + "' has no committed offsets; nothing to reset with "
                        + "--all-topics", "name the partitions with --topic TOPIC:P,P..");
            }
        }
        for (String text : topics) {
            TopicScope topic = parseTopic(text);
            if (topic.partitions().isEmpty()) {
                List<TopicPartition> ofTopic = committed.keySet().stream()
                        .filter(tp -> tp.topic().equals(topic.topic())).toList();
                if (ofTopic.isEmpty()) {
                    throw new CliFailure("group '" + group + "' has no committed offsets of topic '" + topic.topic()
                            + "', and without the topic's metadata its partitions are unknown",
                            "name them: --topic " + topic.topic() + ":0,1,2");
                }
                scope.addAll(ofTopic);
            } else {
                topic.partitions().forEach(p -> scope.add(new TopicPartition(topic.topic(), p)));
            }
        }
        SortedMap<TopicPartition, Long> plan = new TreeMap<>();
        for (TopicPartition tp : scope) {
            OffsetAndMetadata current = committed.get(tp);
            long target;
            if (toOffset != null) {
                target = toOffset;
            } else {
                if (current == null) {
                    throw new CliFailure("cannot " + (toCurrent ? "keep" : "shift") + " the offset of " + tp.topic()
                            + ":" + tp.partition() + ": group '" + group + "' has no committed offset for it",
                            "give it with --to-offset or --from-file");
                }
                target = toCurrent ? current.offset() : shifted(current.offset(), shiftBy);
            }
            plan.put(tp, target);
        }
        return plan;
    }

    /** current + by, never below 0 (Cohort cannot clamp to the log start or end: it has no topic logs). */
    static long shifted(long current, long by) {
        long sum = current + by;
        boolean overflow = ((current ^ sum) & (by ^ sum)) < 0;
        if (overflow) {
            return by < 0 ? 0 : Long.MAX_VALUE;
        }
        return Math.max(0, sum);
    }

    private String render(SortedMap<TopicPartition, OffsetAndMetadata> committed, SortedMap<TopicPartition, Long> plan) {
        if (format() == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            plan.forEach((tp, offset) -> {
                OffsetAndMetadata current = committed.get(tp);
                list.add(Json.obj().put("topic", tp.topic()).put("partition", tp.partition())
                        .put("current_offset", current == null ? null : current.offset()).put("new_offset", offset));
            });
            return Json.write(Json.obj().put("group_id", group).put("executed", execute).put("offsets", list));
        }
        Table table = new Table("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "NEW-OFFSET");
        for (Map.Entry<TopicPartition, Long> e : plan.entrySet()) {
            OffsetAndMetadata current = committed.get(e.getKey());
            table.row(group, e.getKey().topic(), e.getKey().partition(), current == null ? null : current.offset(),
                    e.getValue());
        }
        return table.render();
    }
}
