package io.cohort.core.simulation;

import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroup.JoinedMember;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.Response;
import io.cohort.core.response.SyncGroupResponse;
import io.cohort.core.shard.Result;

/** Short, readable descriptions of results and answers for the simulation's step trace. */
final class SimTrace {
    private SimTrace() {
    }

    static String describe(Result result) {
        StringBuilder out = new StringBuilder();
        if (result.reply() instanceof Result.Reply.Now now) {
            out.append(describe(now.response()));
        } else if (result.reply() instanceof Result.Reply.Parked parked) {
            out.append("parked ").append(parked.key().memberId());
        } else {
            out.append("-");
        }
        out.append(" [").append(result.records().size()).append(" records");
        for (CoordinatorRecord record : result.records()) {
            if (record instanceof CoordinatorRecord.GroupValue value) {
                ClassicGroup group = value.group();
                out.append(", ").append(group.groupId()).append(' ').append(group.state()).append(" gen ")
                        .append(group.generationId()).append(" members ").append(group.members().keySet());
            } else if (!(record instanceof CoordinatorRecord.OffsetValue)) {
                out.append(", ").append(record);
            }
        }
        return out.append(']').toString();
    }

    static String describe(Response response) {
        if (response instanceof JoinGroupResponse join) {
            return "Join " + join.error() + " member=" + join.memberId() + " gen=" + join.generationId()
                    + " protocol=" + join.protocolName() + " leader=" + join.leader()
                    + (join.skipAssignment() ? " skipAssignment" : "")
                    + (join.members().isEmpty() ? "" : " members=" + join.members().stream()
                            .map(JoinedMember::memberId).toList());
        } else if (response instanceof SyncGroupResponse sync) {
            return "Sync " + sync.error() + " " + SimCodec.parseAssignment(sync.assignment());
        } else if (response instanceof OffsetCommitResponse commit) {
            return "Commit " + commit.topics().stream().flatMap(t -> t.partitions().stream()
                    .map(p -> t.topic() + "-" + p.partition() + ":" + p.error())).toList();
        }
        return response.toString();
    }
}
