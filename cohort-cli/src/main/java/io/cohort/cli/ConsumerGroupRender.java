package io.cohort.cli;

import io.cohort.cli.Model.ConsumerGroupDescription;
import io.cohort.cli.Model.ConsumerMember;
import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code groups describe} of a consumer-protocol (KIP-848) group: the group's epochs, assignor and
 * state, and per member its epoch, state, and current vs target assignment. Pure functions beside
 * {@link Render}, golden-tested the same way.
 */
final class ConsumerGroupRender {
    private ConsumerGroupRender() {
    }

    static String table(ConsumerGroupDescription g) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("group", g.groupId());
        fields.put("coordinator", g.coordinator() == null ? "-"
                : g.coordinator().nodeId() + " (" + Render.endpoint(g.coordinator()) + ")");
        fields.put("type", "consumer");
        fields.put("state", g.state());
        fields.put("group-epoch", Integer.toString(g.groupEpoch()));
        fields.put("assignment-epoch", Integer.toString(g.assignmentEpoch()));
        fields.put("assignor", Render.orDash(g.assignor()));
        fields.put("members", Integer.toString(g.members().size()));
        int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0);
        StringBuilder out = new StringBuilder();
        fields.forEach((key, value) -> out.append((key + ":" + " ".repeat(width - key.length()) + "  "
                + Table.escape(value)).stripTrailing()).append('\n'));
        if (!g.members().isEmpty()) {
            Table table = new Table("MEMBER-ID", "INSTANCE-ID", "CLIENT-ID", "HOST", "EPOCH", "STATE", "ASSIGNMENT",
                    "TARGET-ASSIGNMENT");
            for (ConsumerMember m : g.members()) {
                table.row(m.memberId(), m.instanceId(), Render.orDash(m.clientId()), Render.orDash(m.host()),
                        Integer.toString(m.memberEpoch()), Render.orDash(m.state()), partitionsText(m.assignment()),
                        partitionsText(m.targetAssignment()));
            }
            out.append('\n').append(table.render());
        }
        return out.toString();
    }

    static Json.Obj json(ConsumerGroupDescription g) {
        List<Object> members = new ArrayList<>();
        for (ConsumerMember m : g.members()) {
            members.add(Json.obj().put("member_id", m.memberId()).put("group_instance_id", m.instanceId())
                    .put("rack_id", m.rackId()).put("client_id", m.clientId()).put("client_host", m.host())
                    .put("member_epoch", m.memberEpoch()).put("member_state", m.state())
                    .put("member_type", m.memberType()).put("subscribed_topics", Json.array(m.subscribedTopics()))
                    .put("subscribed_topic_regex", m.subscribedRegex())
                    .put("assignment", partitionsJson(m.assignment()))
                    .put("target_assignment", partitionsJson(m.targetAssignment())));
        }
        return Json.obj().put("group_id", g.groupId()).put("coordinator", Render.coordinatorJson(g.coordinator()))
                .put("type", "consumer").put("state", g.state()).put("group_epoch", g.groupEpoch())
                .put("assignment_epoch", g.assignmentEpoch()).put("assignor", g.assignor()).put("members", members);
    }

    /** "orders:0-2,5 audit:1", "-" if empty (as the classic describe's assignments). */
    static String partitionsText(List<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return "-";
        }
        List<String> topics = new ArrayList<>();
        Render.byTopic(partitions).forEach((topic, list) -> topics.add(topic + ":" + Render.ranges(list)));
        return String.join(" ", topics);
    }

    private static List<Object> partitionsJson(List<TopicPartition> partitions) {
        List<Object> topics = new ArrayList<>();
        Render.byTopic(partitions).forEach((topic, list) -> topics.add(Json.obj().put("topic", topic)
                .put("partitions", Json.array(list))));
        return topics;
    }
}
