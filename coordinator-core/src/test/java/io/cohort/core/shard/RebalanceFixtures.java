package io.cohort.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Group set-ups shared by the SyncGroup, Heartbeat, LeaveGroup and session-timeout tests, built on
 * {@link GroupShardTestContext} only through its public methods.
 */
final class RebalanceFixtures {
    static final String PROTOCOL_TYPE = "consumer";
    static final String PROTOCOL_NAME = "range";

    private RebalanceFixtures() {
    }

    /** The member id of a parked JoinGroup or SyncGroup. */
    static String parkedMemberId(Result result) {
        assertThat(result.reply()).isInstanceOf(Result.Reply.Parked.class);
        return ((Result.Reply.Parked) result.reply()).key().memberId();
    }

    /**
     * Sends every JoinGroup (each must park) at the current time, then waits out the initial delay,
     * which completes the join phase when the rebalance timeouts are at most the delay. Checks that
     * every member got NONE with generation 1 and that the first joiner leads. Returns the member
     * ids in join order (the leader first).
     */
    static List<String> joinAndCompleteInitialRebalance(GroupShardTestContext context, String groupId,
                                                        List<GroupShardTestContext.JoinBuilder> joins) {
        List<String> memberIds = new ArrayList<>();
        for (GroupShardTestContext.JoinBuilder join : joins) {
            memberIds.add(parkedMemberId(join.send()));
        }
        context.sleep(GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs());
        for (String memberId : memberIds) {
            JoinGroupResponse response = context.takeJoin(groupId, memberId);
            assertThat(response).as("join response of %s", memberId).isNotNull();
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.generationId()).isEqualTo(1);
            assertThat(response.leader()).isEqualTo(memberIds.get(0));
        }
        assertThat(context.group(groupId).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        return memberIds;
    }

    /** {@code count} dynamic v3 members: generation 1, CompletingRebalance; the leader first. */
    static List<String> dynamicMembersInCompletingRebalance(GroupShardTestContext context, String groupId, int count,
                                                            int sessionTimeoutMs, int rebalanceTimeoutMs) {
        List<GroupShardTestContext.JoinBuilder> joins = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            joins.add(context.join(groupId).sessionTimeoutMs(sessionTimeoutMs).rebalanceTimeoutMs(rebalanceTimeoutMs));
        }
        return joinAndCompleteInitialRebalance(context, groupId, joins);
    }

    /** Static v5 members with these instance ids: generation 1, CompletingRebalance; the leader first. */
    static List<String> staticMembersInCompletingRebalance(GroupShardTestContext context, String groupId,
                                                           String... instanceIds) {
        List<GroupShardTestContext.JoinBuilder> joins = new ArrayList<>();
        for (String instanceId : instanceIds) {
            joins.add(context.join(groupId).version(5).instanceId(instanceId));
        }
        return joinAndCompleteInitialRebalance(context, groupId, joins);
    }

    /** A distinct assignment per member. */
    static Bytes assignmentOf(String memberId) {
        return Bytes.copyOf(("assignment-of-" + memberId).getBytes(StandardCharsets.UTF_8));
    }

    static List<Command.MemberAssignment> assignmentsFor(List<String> memberIds) {
        return memberIds.stream().map(id -> new Command.MemberAssignment(id, assignmentOf(id))).toList();
    }

    /** The leader (first id) syncs with {@link #assignmentOf} for everyone, then every follower syncs. */
    static void syncAll(GroupShardTestContext context, String groupId, List<String> memberIds) {
        int generationId = context.group(groupId).generationId();
        SyncGroupResponse leader = (SyncGroupResponse) context.sync(groupId, memberIds.get(0), generationId,
                assignmentsFor(memberIds)).immediateResponse();
        assertThat(leader.error()).isEqualTo(ErrorCode.NONE);
        for (String follower : memberIds.subList(1, memberIds.size())) {
            SyncGroupResponse response = (SyncGroupResponse) context.sync(groupId, follower, generationId, List.of())
                    .immediateResponse();
            assertThat(response).isEqualTo(new SyncGroupResponse(ErrorCode.NONE, PROTOCOL_TYPE, PROTOCOL_NAME,
                    assignmentOf(follower)));
        }
        assertThat(context.group(groupId).state()).isEqualTo(ClassicGroupState.STABLE);
    }

    /** Kafka's Dead state, reachable only by replaying a group value in that state. */
    static void markDead(GroupShardTestContext context, String groupId) {
        ClassicGroupEditor editor = context.group(groupId).edit();
        editor.transitionTo(ClassicGroupState.DEAD, context.nowMs());
        context.replay(new CoordinatorRecord.GroupValue(editor.build()));
    }

    /** The one record a command that changes a group writes: the group's whole new value. */
    static List<CoordinatorRecord> groupValueOf(GroupShardTestContext context, String groupId) {
        return List.of(new CoordinatorRecord.GroupValue(context.group(groupId)));
    }
}
