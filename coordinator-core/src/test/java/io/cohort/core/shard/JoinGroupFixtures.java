package io.cohort.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroup.JoinedMember;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.SyncGroupResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Set-ups and small helpers shared by the JoinGroup tests (validation, rebalance timing, group
 * max size, static membership), built on the public methods of {@link GroupShardTestContext}.
 */
final class JoinGroupFixtures {
    static final String GROUP_ID = "group-id";
    static final String CONSUMER = "consumer";
    static final String LEADER_INSTANCE_ID = "leader-instance-id";
    static final String FOLLOWER_INSTANCE_ID = "follower-instance-id";

    private JoinGroupFixtures() {
    }

    /** The caller's immediate JoinGroup answer; fails if the call was parked. */
    static JoinGroupResponse joinResponse(Result result) {
        assertThat(result.reply()).as("reply").isInstanceOf(Result.Reply.Now.class);
        return (JoinGroupResponse) result.immediateResponse();
    }

    /** The member id of a parked JoinGroup; fails if the call was answered at once. */
    static String parkedMemberId(Result result) {
        assertThat(result.reply()).as("reply").isInstanceOf(Result.Reply.Parked.class);
        ParkKey key = ((Result.Reply.Parked) result.reply()).key();
        assertThat(key.kind()).isEqualTo(ParkKey.Kind.JOIN);
        return key.memberId();
    }

    /** The id a JoinGroup with member id "" mints: client id (or instance id), "-", its suffix. */
    static String mintedMemberId(Command.JoinGroup join) {
        String prefix = join.groupInstanceId() != null ? join.groupInstanceId() : join.clientId();
        return prefix + "-" + join.memberIdSuffix();
    }

    /** The metadata {@link GroupShardTestContext#protocols} gives a protocol: its name's bytes. */
    static Bytes metadataOf(String protocolName) {
        return Bytes.copyOf(protocolName.getBytes(StandardCharsets.UTF_8));
    }

    static JoinedMember joined(String memberId, String instanceId, String protocolName) {
        return new JoinedMember(memberId, instanceId, metadataOf(protocolName));
    }

    /** A successful join answer of generation {@code generationId}. */
    static JoinGroupResponse success(int generationId, String protocolName, String leaderId, String memberId,
                                     List<JoinedMember> members) {
        return new JoinGroupResponse(ErrorCode.NONE, generationId, CONSUMER, protocolName, leaderId, false, memberId,
                members);
    }

    /** The records of a command that changed one group: exactly that group's new value. */
    static List<CoordinatorRecord> groupValueOf(GroupShardTestContext context, String groupId) {
        return List.of(new CoordinatorRecord.GroupValue(context.group(groupId)));
    }

    /** All records the fired timers wrote, in order. */
    static List<CoordinatorRecord> recordsOf(List<Result> fired) {
        List<CoordinatorRecord> records = new ArrayList<>();
        fired.forEach(r -> records.addAll(r.records()));
        return records;
    }

    /**
     * Replays {@code groupId} moved through {@code states} (the state machine is enforced), to reach
     * states commands cannot, as Kafka's tests do with {@code group.transitionTo}.
     */
    static void replayTransitions(GroupShardTestContext context, String groupId, ClassicGroupState... states) {
        ClassicGroupEditor editor = context.group(groupId).edit();
        for (ClassicGroupState state : states) {
            editor.transitionTo(state, context.nowMs());
        }
        context.replay(new CoordinatorRecord.GroupValue(editor.build()));
    }

    /** Replays an empty group at generation 0, as Kafka's {@code createClassicGroup}. */
    static void createEmptyGroup(GroupShardTestContext context, String groupId) {
        context.replay(new CoordinatorRecord.GroupValue(ClassicGroup.newEmpty(groupId, context.nowMs())));
    }

    /**
     * Sends the JoinGroups (each must park), then waits out initial-delay firings until the join phase
     * completes; checks generation 1 and that the first joiner leads. Returns the ids, leader first.
     */
    static List<String> joinAndCompleteInitialRebalance(GroupShardTestContext context, String groupId,
                                                        List<GroupShardTestContext.JoinBuilder> joins) {
        List<String> memberIds = new ArrayList<>();
        for (GroupShardTestContext.JoinBuilder join : joins) {
            memberIds.add(parkedMemberId(join.send()));
        }
        int delayMs = context.shard().config().initialRebalanceDelayMs();
        for (int firing = 0; firing < 20 && !context.group(groupId).isInState(ClassicGroupState.COMPLETING_REBALANCE);
                firing++) {
            context.sleep(delayMs);
        }
        for (String memberId : memberIds) {
            JoinGroupResponse response = context.takeJoin(groupId, memberId);
            assertThat(response).as("join answer of %s", memberId).isNotNull();
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.generationId()).isEqualTo(1);
            assertThat(response.leader()).isEqualTo(memberIds.get(0));
        }
        assertThat(context.group(groupId).state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        return memberIds;
    }

    /** A distinct assignment per member. */
    static Bytes assignmentOf(String memberId) {
        return Bytes.copyOf(("assignment-of-" + memberId).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The leader (first id) syncs with {@link #assignmentOf} for everyone, then each follower syncs
     * (with its instance id when given); ends Stable.
     */
    static void syncAll(GroupShardTestContext context, String groupId, List<String> memberIds,
                        List<String> instanceIds) {
        int generationId = context.group(groupId).generationId();
        List<Command.MemberAssignment> assignments = memberIds.stream()
                .map(id -> new Command.MemberAssignment(id, assignmentOf(id))).toList();
        for (int i = 0; i < memberIds.size(); i++) {
            String instanceId = instanceIds == null ? null : instanceIds.get(i);
            Result result = context.apply(new Command.SyncGroup(groupId, generationId, memberIds.get(i), instanceId,
                    null, null, i == 0 ? assignments : List.of()));
            SyncGroupResponse response = (SyncGroupResponse) result.immediateResponse();
            assertThat(response).isNotNull();
            assertThat(response.error()).isEqualTo(ErrorCode.NONE);
            assertThat(response.assignment()).isEqualTo(assignmentOf(memberIds.get(i)));
        }
        assertThat(context.group(groupId).state()).isEqualTo(ClassicGroupState.STABLE);
    }

    /** Dynamic v3 members, all synced: Stable at generation 1, the first one leads. */
    static List<String> stableDynamicGroup(GroupShardTestContext context, String groupId, int count,
                                           int sessionTimeoutMs, int rebalanceTimeoutMs) {
        List<GroupShardTestContext.JoinBuilder> joins = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            joins.add(context.join(groupId).sessionTimeoutMs(sessionTimeoutMs).rebalanceTimeoutMs(rebalanceTimeoutMs));
        }
        List<String> memberIds = joinAndCompleteInitialRebalance(context, groupId, joins);
        syncAll(context, groupId, memberIds, null);
        return memberIds;
    }

    /** The two members of {@link #staticMembersJoinAndRebalance}. */
    record StaticGroup(String leaderId, String followerId) {
    }

    /**
     * Kafka's {@code staticMembersJoinAndRebalance}: a static leader and follower (v5, protocols
     * ["range", "roundrobin"]) join an empty group, the initial rebalance completes (it is extended
     * once, because the follower joined during it), both sync: Stable at generation 1, "range".
     */
    static StaticGroup staticMembersJoinAndRebalance(GroupShardTestContext context, String groupId,
                                                     int rebalanceTimeoutMs, int sessionTimeoutMs) {
        List<GroupShardTestContext.JoinBuilder> joins = new ArrayList<>();
        for (String instanceId : List.of(LEADER_INSTANCE_ID, FOLLOWER_INSTANCE_ID)) {
            joins.add(context.join(groupId).version(5).instanceId(instanceId)
                    .protocols(GroupShardTestContext.protocols("range", "roundrobin"))
                    .rebalanceTimeoutMs(rebalanceTimeoutMs).sessionTimeoutMs(sessionTimeoutMs));
        }
        List<String> memberIds = joinAndCompleteInitialRebalance(context, groupId, joins);
        syncAll(context, groupId, memberIds, List.of(LEADER_INSTANCE_ID, FOLLOWER_INSTANCE_ID));
        assertThat(context.group(groupId).protocolName()).isEqualTo("range");
        return new StaticGroup(memberIds.get(0), memberIds.get(1));
    }

    /** {@link #staticMembersJoinAndRebalance} with Kafka's defaults: rebalance 10 s, session 5 s. */
    static StaticGroup staticMembersJoinAndRebalance(GroupShardTestContext context, String groupId) {
        return staticMembersJoinAndRebalance(context, groupId, 10_000, 5_000);
    }
}
