package io.cohort.cli;

import io.cohort.api.v1.ErrorCode;
import io.cohort.cli.Model.ClusterView;
import io.cohort.cli.Model.ConsumerGroupDescription;
import io.cohort.cli.Model.DescribedGroup;
import io.cohort.cli.Model.GroupCoordinator;
import io.cohort.cli.Model.GroupDeletion;
import io.cohort.cli.Model.GroupDescription;
import io.cohort.cli.Model.GroupListing;
import io.cohort.cli.Model.GroupOffsets;
import io.cohort.cli.Model.Member;
import io.cohort.cli.Model.NodeRow;
import io.cohort.cli.Model.OffsetDeletion;
import io.cohort.cli.Model.PartitionRow;
import io.cohort.cli.Model.Transfer;
import io.cohort.client.Coordinator;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Turns gathered values ({@link Model}) into the text a command prints on stdout: pure functions,
 * golden-tested with fixed data (RenderGoldenTest). Every result ends with a newline.
 *
 * <p>Tables: the columns of kafka-consumer-groups.sh's style (see {@link Table}); an unknown or
 * empty value prints as "-". JSON: one document per command with stable snake_case keys; unknown
 * values are {@code null}, strings are given as received (so "" stays "").
 */
final class Render {
    private Render() {
    }

    // ---------------------------------------------------------------------------------------------
    // groups

    static String groupsList(OutputFormat format, List<GroupListing> groups) {
        if (format == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            for (GroupListing g : groups) {
                list.add(Json.obj().put("group_id", g.groupId()).put("state", g.state())
                        .put("protocol_type", g.protocolType()));
            }
            return Json.write(Json.obj().put("groups", list));
        }
        Table table = new Table("GROUP", "STATE", "PROTOCOL-TYPE");
        for (GroupListing g : groups) {
            table.row(g.groupId(), g.state(), orDash(g.protocolType()));
        }
        return table.render();
    }

    static String groupsDescribe(OutputFormat format, List<? extends DescribedGroup> groups) {
        if (format == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            for (DescribedGroup g : groups) {
                list.add(g instanceof ConsumerGroupDescription consumer ? ConsumerGroupRender.json(consumer)
                        : describeJson((GroupDescription) g));
            }
            return Json.write(Json.obj().put("groups", list));
        }
        StringBuilder out = new StringBuilder();
        for (DescribedGroup g : groups) {
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append(g instanceof ConsumerGroupDescription consumer ? ConsumerGroupRender.table(consumer)
                    : describeTable((GroupDescription) g));
        }
        return out.toString();
    }

    private static String describeTable(GroupDescription g) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("group", g.groupId());
        fields.put("coordinator", g.coordinator() == null ? "-"
                : g.coordinator().nodeId() + " (" + endpoint(g.coordinator()) + ")");
        fields.put("state", g.state());
        fields.put("protocol-type", orDash(g.protocolType()));
        fields.put("protocol", orDash(g.protocol()));
        fields.put("generation", Integer.toString(g.generationId()));
        fields.put("leader", orDash(g.leaderId()));
        fields.put("members", Integer.toString(g.members().size()));
        int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0);
        StringBuilder out = new StringBuilder();
        fields.forEach((key, value) -> out.append((key + ":" + " ".repeat(width - key.length()) + "  "
                + Table.escape(value)).stripTrailing()).append('\n'));
        if (!g.members().isEmpty()) {
            Table table = new Table("MEMBER-ID", "INSTANCE-ID", "CLIENT-ID", "HOST", "ASSIGNMENT");
            for (Member m : g.members()) {
                table.row(m.memberId(), m.instanceId(), orDash(m.clientId()), orDash(m.host()), assignmentText(m));
            }
            out.append('\n').append(table.render());
        }
        return out.toString();
    }

    private static Json.Obj describeJson(GroupDescription g) {
        List<Object> members = new ArrayList<>();
        for (Member m : g.members()) {
            Object assignment = null;
            if (m.assignment() != null) {
                List<Object> topics = new ArrayList<>();
                byTopic(m.assignment()).forEach((topic, partitions) -> topics.add(Json.obj().put("topic", topic)
                        .put("partitions", Json.array(partitions))));
                assignment = topics;
            }
            members.add(Json.obj().put("member_id", m.memberId()).put("group_instance_id", m.instanceId())
                    .put("client_id", m.clientId()).put("client_host", m.host())
                    .put("assignment_bytes", m.assignmentBytes()).put("assignment", assignment));
        }
        return Json.obj().put("group_id", g.groupId()).put("coordinator", coordinatorJson(g.coordinator()))
                .put("state", g.state()).put("protocol_type", g.protocolType()).put("protocol", g.protocol())
                .put("generation_id", g.generationId()).put("leader_id", g.leaderId()).put("members", members);
    }

    static Json.Obj coordinatorJson(Coordinator c) {
        if (c == null) {
            return null;
        }
        return Json.obj().put("node_id", c.nodeId()).put("host", c.host()).put("port", c.port())
                .put("partition", c.partition());
    }

    static String groupsDelete(OutputFormat format, List<GroupDeletion> results) {
        if (format == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            for (GroupDeletion r : results) {
                list.add(Json.obj().put("group_id", r.groupId()).put("deleted", r.result() == ErrorCode.NONE)
                        .put("error_code", r.result().name()));
            }
            return Json.write(Json.obj().put("groups", list));
        }
        Table table = new Table("GROUP", "RESULT");
        for (GroupDeletion r : results) {
            table.row(r.groupId(), switch (r.result()) {
                case NONE -> "deleted";
                case GROUP_ID_NOT_FOUND -> "GROUP_ID_NOT_FOUND: no such group";
                case NON_EMPTY_GROUP -> "NON_EMPTY_GROUP: stop its members first";
                default -> r.result().name();
            });
        }
        return table.render();
    }

    /**
     * The text of one member's assignment: for a decoded one, each topic with its partitions,
     * runs of three or more written as ranges ("orders:0-2,5 audit:1"; topics in the order of the
     * assignment, "-" if empty); otherwise its size ("&lt;42 bytes&gt;").
     */
    static String assignmentText(Member m) {
        if (m.assignment() == null) {
            return "<" + m.assignmentBytes() + (m.assignmentBytes() == 1 ? " byte>" : " bytes>");
        }
        if (m.assignment().isEmpty()) {
            return "-";
        }
        List<String> topics = new ArrayList<>();
        byTopic(m.assignment()).forEach((topic, partitions) -> topics.add(topic + ":" + ranges(partitions)));
        return String.join(" ", topics);
    }

    /** Partitions by topic, topics in order of first appearance, partitions sorted and distinct. */
    static Map<String, List<Integer>> byTopic(List<TopicPartition> partitions) {
        Map<String, TreeSet<Integer>> sets = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            sets.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition());
        }
        Map<String, List<Integer>> lists = new LinkedHashMap<>();
        sets.forEach((topic, set) -> lists.put(topic, List.copyOf(set)));
        return lists;
    }

    /** "0-2,5" for [0, 1, 2, 5]: runs of three or more consecutive partitions as ranges. */
    static String ranges(List<Integer> sorted) {
        List<String> parts = new ArrayList<>();
        int i = 0;
        while (i < sorted.size()) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            if (j - i >= 2) {
                parts.add(sorted.get(i) + "-" + sorted.get(j));
            } else {
                for (int k = i; k <= j; k++) {
                    parts.add(Integer.toString(sorted.get(k)));
                }
            }
            i = j + 1;
        }
        return String.join(",", parts);
    }

    // ---------------------------------------------------------------------------------------------
    // offsets

    /** Committed offsets ({@code offsets get}) or the offsets just set ({@code offsets set}). */
    static String offsets(OutputFormat format, GroupOffsets offsets) {
        if (format == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            offsets.offsets().forEach((tp, o) -> list.add(Json.obj().put("topic", tp.topic())
                    .put("partition", tp.partition()).put("offset", o.offset())
                    .put("leader_epoch", o.leaderEpoch() < 0 ? null : o.leaderEpoch()).put("metadata", o.metadata())));
            return Json.write(Json.obj().put("group_id", offsets.groupId()).put("offsets", list));
        }
        Table table = new Table("TOPIC", "PARTITION", "OFFSET", "LEADER-EPOCH", "METADATA");
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.offsets().entrySet()) {
            OffsetAndMetadata o = e.getValue();
            table.row(e.getKey().topic(), e.getKey().partition(), o.offset(),
                    o.leaderEpoch() < 0 ? null : o.leaderEpoch(), orDash(o.metadata()));
        }
        return table.render();
    }

    static String offsetsDelete(OutputFormat format, OffsetDeletion deletion) {
        if (format == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            deletion.results().forEach((tp, code) -> list.add(Json.obj().put("topic", tp.topic())
                    .put("partition", tp.partition()).put("deleted", code == ErrorCode.NONE)
                    .put("error_code", code.name())));
            return Json.write(Json.obj().put("group_id", deletion.groupId()).put("partitions", list));
        }
        Table table = new Table("TOPIC", "PARTITION", "RESULT");
        deletion.results().forEach((tp, code) -> table.row(tp.topic(), tp.partition(), switch (code) {
            case NONE -> "deleted";
            case GROUP_SUBSCRIBED_TO_TOPIC -> "GROUP_SUBSCRIBED_TO_TOPIC: the group's members consume this topic";
            default -> code.name();
        }));
        return table.render();
    }

    // ---------------------------------------------------------------------------------------------
    // find-coordinator

    static String findCoordinator(OutputFormat format, List<GroupCoordinator> rows) {
        if (format == OutputFormat.JSON) {
            List<Object> list = new ArrayList<>();
            for (GroupCoordinator r : rows) {
                Coordinator c = r.coordinator();
                list.add(Json.obj().put("group_id", r.groupId()).put("partition", c.partition())
                        .put("node_id", c.nodeId()).put("host", c.host()).put("port", c.port()));
            }
            return Json.write(Json.obj().put("coordinators", list));
        }
        Table table = new Table("GROUP", "PARTITION", "COORDINATOR", "ENDPOINT");
        for (GroupCoordinator r : rows) {
            table.row(r.groupId(), r.coordinator().partition(), r.coordinator().nodeId(), endpoint(r.coordinator()));
        }
        return table.render();
    }

    // ---------------------------------------------------------------------------------------------
    // cluster

    static String clusterStatus(OutputFormat format, ClusterView view) {
        if (format == OutputFormat.JSON) {
            List<Object> nodes = new ArrayList<>();
            for (NodeRow n : view.nodes()) {
                nodes.add(Json.obj().put("node_id", n.nodeId()).put("client_endpoint", n.client())
                        .put("raft_port", n.raftPort()).put("role", n.role()).put("status", n.up() ? "up" : "down")
                        .put("error", n.error()));
            }
            List<Object> partitions = new ArrayList<>();
            for (PartitionRow p : view.partitions()) {
                List<Object> replicas = new ArrayList<>();
                for (NodeRow n : view.nodes()) {
                    replicas.add(Json.obj().put("node_id", n.nodeId()).put("applied_index", p.applied().get(n.nodeId())));
                }
                partitions.add(Json.obj().put("partition", p.partition()).put("leader", p.leader())
                        .put("leader_ready", p.leader() != null && p.leaderReady())
                        .put("preferred_leader", p.preferredLeader()).put("leader_keeps", p.leaderKeeps())
                        .put("term", p.term()).put("commit_index", p.commitIndex()).put("replicas", replicas));
            }
            return Json.write(Json.obj().put("healthy", view.healthy()).put("nodes", nodes)
                    .put("partitions", partitions));
        }
        Table nodes = new Table("NODE", "CLIENT", "RAFT-PORT", "ROLE", "STATUS");
        for (NodeRow n : view.nodes()) {
            nodes.row(n.nodeId(), n.client(), n.raftPort(), n.role(), n.up() ? "up" : "DOWN");
        }
        List<String> headers = new ArrayList<>(List.of("PARTITION", "LEADER", "PREFERRED", "TERM", "COMMIT-INDEX"));
        for (NodeRow n : view.nodes()) {
            headers.add("N" + n.nodeId() + "-APPLIED");
        }
        Table partitions = new Table(headers);
        for (PartitionRow p : view.partitions()) {
            List<Object> row = new ArrayList<>(List.of(p.partition(),
                    p.leader() == null ? "-" : p.leader() + (p.leaderReady() ? "" : " (not ready)")
                            + (p.leaderKeeps() ? " *" : ""),
                    p.preferredLeader() == null ? "-" : p.preferredLeader(), p.term(), p.commitIndex()));
            for (NodeRow n : view.nodes()) {
                // "-": the node holds no replica of the partition, or did not answer.
                Long applied = p.applied().get(n.nodeId());
                row.add(applied == null ? "-" : applied);
            }
            partitions.row(row);
        }
        boolean anyKeeps = view.partitions().stream().anyMatch(PartitionRow::leaderKeeps);
        return nodes.render() + "\n" + partitions.render() + (anyKeeps ? "* the leader keeps the partition "
                + "(auto.leader.rebalance.enable=false, or a single partition): it is not handed to its preferred "
                + "leader\n" : "");
    }

    static String transfer(OutputFormat format, Transfer t) {
        if (format == OutputFormat.JSON) {
            return Json.write(Json.obj().put("partition", t.partition()).put("previous_leader", t.previousLeader())
                    .put("leader", t.leader()));
        }
        return new Table("PARTITION", "PREVIOUS-LEADER", "LEADER").row(t.partition(), t.previousLeader(), t.leader())
                .render();
    }

    // ---------------------------------------------------------------------------------------------

    static String endpoint(Coordinator c) {
        return c.host().contains(":") ? "[" + c.host() + "]:" + c.port() : c.host() + ":" + c.port();
    }

    static String orDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }
}
