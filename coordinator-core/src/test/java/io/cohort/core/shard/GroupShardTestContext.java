package io.cohort.core.shard;

import io.cohort.core.Bytes;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.command.Heartbeat;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.Protocol;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.HeartbeatResponse;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.Response;
import io.cohort.core.response.SyncGroupResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A shard with a manual clock and a leader's timer service, as Kafka's GroupMetadataManagerTestContext:
 * {@link #apply} runs a command at the current time and replays what it returns; {@link #sleep}
 * advances the clock and fires every timer due by then (after moving the clock, so a timer re-armed
 * by a firing is anchored at the new time), replaying their records too. Responses to parked calls
 * are collected by key, as the front end would deliver them.
 */
public final class GroupShardTestContext {
    /** The reference's test defaults: session/rebalance 500 ms, delay 3000 ms, session bounds 10..600000. */
    public static final GroupConfig TEST_CONFIG = GroupConfig.defaults().withSessionTimeoutBounds(10, 600_000)
            .withInitialRebalanceDelayMs(3_000);

    private final GroupCoordinatorShard shard;
    private long nowMs;
    private int memberIdCounter;
    private final Map<String, TimerOp.Schedule> timers = new LinkedHashMap<>();
    private final Map<ParkKey, Response> delivered = new HashMap<>();
    private final List<Result> firedResults = new ArrayList<>();

    public GroupShardTestContext() {
        this(TEST_CONFIG);
    }

    public GroupShardTestContext(GroupConfig config) {
        this(config, 0L);
    }

    public GroupShardTestContext(GroupConfig config, long startMs) {
        this.shard = new GroupCoordinatorShard(config);
        this.nowMs = startMs;
    }

    public GroupCoordinatorShard shard() {
        return shard;
    }

    public long nowMs() {
        return nowMs;
    }

    /** Applies a command at the current time: handle, replay, timer ops, parked deliveries. */
    public Result apply(Command command) {
        Result result = shard.apply(command, nowMs);
        absorb(result);
        return result;
    }

    private void absorb(Result result) {
        for (TimerOp op : result.timers()) {
            if (op instanceof TimerOp.Schedule schedule) {
                timers.put(schedule.key(), schedule);
            } else {
                timers.remove(op.key());
            }
        }
        for (Result.Completion completion : result.completions()) {
            delivered.put(completion.key(), completion.response());
        }
        if (result.reply() instanceof Result.Reply.Now now && now.response() instanceof Response) {
            // Immediate answers are returned to the caller, not delivered by key.
            return;
        }
    }

    /** Advances the clock by {@code ms} and fires all timers due by then, in deadline order. */
    public List<Result> sleep(long ms) {
        nowMs += ms;
        List<Result> fired = new ArrayList<>();
        while (true) {
            Optional<TimerOp.Schedule> due = timers.values().stream()
                    .filter(t -> t.deadlineMs() <= nowMs)
                    .min(Comparator.comparingLong(TimerOp.Schedule::deadlineMs));
            if (due.isEmpty()) {
                break;
            }
            timers.remove(due.get().key());
            Result result = apply(due.get().command());
            fired.add(result);
            firedResults.add(result);
        }
        return fired;
    }

    /** The armed timer under {@code key}, if any. */
    public Optional<TimerOp.Schedule> timer(String key) {
        return Optional.ofNullable(timers.get(key));
    }

    /** Whether a response was delivered to the parked call, consuming it. */
    public Optional<Response> takeDelivered(ParkKey key) {
        return Optional.ofNullable(delivered.remove(key));
    }

    public JoinGroupResponse takeJoin(String groupId, String memberId) {
        return (JoinGroupResponse) takeDelivered(ParkKey.join(groupId, memberId)).orElse(null);
    }

    public SyncGroupResponse takeSync(String groupId, String memberId) {
        return (SyncGroupResponse) takeDelivered(ParkKey.sync(groupId, memberId)).orElse(null);
    }

    public ClassicGroup group(String groupId) {
        return shard.group(groupId);
    }

    public HeartbeatResponse heartbeat(String groupId, String memberId, int generationId) {
        return heartbeat(groupId, memberId, null, generationId);
    }

    public HeartbeatResponse heartbeat(String groupId, String memberId, String instanceId, int generationId) {
        GroupCoordinatorShard.HeartbeatResult result =
                shard.heartbeat(new Heartbeat(groupId, generationId, memberId, instanceId), nowMs);
        for (TimerOp op : result.timers()) {
            if (op instanceof TimerOp.Schedule schedule) {
                timers.put(schedule.key(), schedule);
            }
        }
        return result.response();
    }

    /** Replays a record directly (to set up states commands cannot reach, such as Dead). */
    public void replay(CoordinatorRecord record) {
        shard.replay(record);
    }

    // ----- request builders -------------------------------------------------------------------

    /** A fresh unique suffix for a member id minted by a JoinGroup. */
    public String nextSuffix() {
        return "id" + (++memberIdCounter);
    }

    public static List<Protocol> protocols(String... names) {
        List<Protocol> protocols = new ArrayList<>();
        for (String name : names) {
            protocols.add(new Protocol(name, Bytes.copyOf(name.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        }
        return protocols;
    }

    public JoinBuilder join(String groupId) {
        return new JoinBuilder(groupId);
    }

    /** Builds a JoinGroup with the reference's test defaults (v3 unless told otherwise). */
    public final class JoinBuilder {
        private final String groupId;
        private String memberId = "";
        private String instanceId;
        private String protocolType = "consumer";
        private List<Protocol> protocols = GroupShardTestContext.protocols("range");
        private int sessionTimeoutMs = 500;
        private int rebalanceTimeoutMs = 500;
        private String clientId = "client";
        private short apiVersion = 3;

        JoinBuilder(String groupId) {
            this.groupId = groupId;
        }

        public JoinBuilder memberId(String value) {
            this.memberId = value;
            return this;
        }

        public JoinBuilder instanceId(String value) {
            this.instanceId = value;
            return this;
        }

        public JoinBuilder protocolType(String value) {
            this.protocolType = value;
            return this;
        }

        public JoinBuilder protocols(List<Protocol> value) {
            this.protocols = value;
            return this;
        }

        public JoinBuilder sessionTimeoutMs(int value) {
            this.sessionTimeoutMs = value;
            return this;
        }

        public JoinBuilder rebalanceTimeoutMs(int value) {
            this.rebalanceTimeoutMs = value;
            return this;
        }

        public JoinBuilder clientId(String value) {
            this.clientId = value;
            return this;
        }

        public JoinBuilder version(int value) {
            this.apiVersion = (short) value;
            return this;
        }

        public Command.JoinGroup build() {
            return new Command.JoinGroup(groupId, memberId, instanceId, protocolType, protocols, sessionTimeoutMs,
                    rebalanceTimeoutMs, clientId, "/127.0.0.1", null, apiVersion, nextSuffix());
        }

        /** Applies the JoinGroup and returns its result. */
        public Result send() {
            return apply(build());
        }
    }

    public Result sync(String groupId, String memberId, int generationId, List<Command.MemberAssignment> assignments) {
        return apply(new Command.SyncGroup(groupId, generationId, memberId, null, null, null, assignments));
    }

    public Result commit(String groupId, String memberId, int generationId, String topic, int partition, long offset) {
        return apply(new Command.OffsetCommit(groupId, generationId, memberId, null, -1L,
                List.of(new Command.TopicCommit(topic, List.of(new Command.PartitionCommit(partition, offset, -1, null)))),
                Command.OFFSET_COMMIT_LATEST_VERSION));
    }

    /**
     * Joins {@code groupId} with one dynamic member through the v4 MEMBER_ID_REQUIRED round trip and
     * waits out the initial delay: generation 1, CompletingRebalance. Returns the member id.
     */
    public String joinedLeaderInCompletingRebalance(String groupId) {
        Result first = join(groupId).version(4).send();
        String memberId = ((JoinGroupResponse) first.immediateResponse()).memberId();
        Result second = join(groupId).version(4).memberId(memberId).send();
        if (!(second.reply() instanceof Result.Reply.Parked)) {
            throw new AssertionError("second join should park, got " + second.reply());
        }
        sleep(TEST_CONFIG.initialRebalanceDelayMs());
        JoinGroupResponse response = takeJoin(groupId, memberId);
        if (response == null || response.generationId() != 1) {
            throw new AssertionError("join did not complete: " + response);
        }
        return memberId;
    }

    /** As {@link #joinedLeaderInCompletingRebalance} then the leader's SyncGroup: Stable at generation 1. */
    public String stableGroupWithOneMember(String groupId) {
        String memberId = joinedLeaderInCompletingRebalance(groupId);
        Result sync = sync(groupId, memberId, 1,
                List.of(new Command.MemberAssignment(memberId, Bytes.copyOf(new byte[] {1}))));
        if (!(sync.immediateResponse() instanceof SyncGroupResponse response) || response.error().code() != 0) {
            throw new AssertionError("sync failed: " + sync.reply());
        }
        return memberId;
    }
}
