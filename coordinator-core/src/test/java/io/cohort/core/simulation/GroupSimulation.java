package io.cohort.core.simulation;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.command.Heartbeat;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroup.JoinedMember;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.DeleteGroupsResponse;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.OffsetDeleteResponse;
import io.cohort.core.response.PartitionError;
import io.cohort.core.response.SyncGroupResponse;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.ParkKey;
import io.cohort.core.shard.Result;
import io.cohort.core.shard.TimerOp;
import io.cohort.core.simulation.SimClient.Phase;
import io.cohort.core.simulation.SimulationModel.ExpectedOffset;
import io.cohort.core.simulation.SimulationModel.GenerationKey;
import io.cohort.core.simulation.SimulationModel.Violation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A seeded simulation of one {@link GroupCoordinatorShard} under a crowd of consumers (STYLE.md 13,
 * TigerBeetle's VOPR): a manual clock, a leader timer service that fires due timers after every clock
 * move, 2-3 consumer groups, a simple (commit-only) group and up to 8 clients that behave like real
 * consumers (JoinGroup v3/v4/v5/v9 with the MEMBER_ID_REQUIRED round trip, static members, the
 * leader's assignment, heartbeats, commits, leaving, crashing, restarting). Between client actions it
 * moves the clock (a little, past session and rebalance timeouts, or by hours so offsets expire), runs
 * admin requests, lets the network redeliver stale requests, and replaces the shard as a new Raft
 * leader would: a fresh shard restored from the old one's snapshot, or a follower that applied the
 * whole command log; timers are re-armed from {@code onLeaderReady} and clients resend their lost
 * parked calls.
 *
 * <p>Invariants, checked after every command (a) or every step (all):
 * <ul>
 *   <li>(a) group consistency: Empty has no members; CompletingRebalance/Stable have a selected
 *       protocol every member supports and a leader that is a member; parked-call flags match the
 *       state; join and sync timers are stored when needed and armed at the stored deadlines; every
 *       member not waiting on a parked call has a session timer; generations never decrease per group
 *       id unless the group is deleted;</li>
 *   <li>(b) every member answered NONE by SyncGroup gets exactly what its generation's leader assigned
 *       it, and no partition has two owners in one generation;</li>
 *   <li>(c) the generations a member id is told never go back;</li>
 *   <li>(d) an acknowledged commit is what OffsetFetch returns until a later acknowledged commit, an
 *       OffsetDelete or DeleteGroups of it, or an expiration tombstone that retention allows;</li>
 *   <li>(e) {@code restore(snapshot())} on a fresh shard gives the same snapshot;</li>
 *   <li>per command: only the records the command may write, completions only for calls that were
 *       parked, no timer armed in the past; per step, ListGroups and DescribeGroups agree with the
 *       state;</li>
 *   <li>(f) at the end, with every running client acting normally, each group settles: Stable, its
 *       members exactly the running clients, every partition assigned.</li>
 * </ul>
 * A failure names the seed and step, says how to replay, and prints the last steps. Every command is
 * logged with its leader time and result, for {@code ReplicaEqualityTest}.
 */
public final class GroupSimulation {
    public static final int DEFAULT_STEPS = 300;
    static final String SIMPLE_GROUP = "simple";
    private static final String UNKNOWN_GROUP = "never-created";
    private static final int TRACE_STEPS = 20;
    private static final int SETTLE_ROUND_MS = 200;
    private static final int SETTLE_MAX_ROUNDS = 1_500;
    private static final int MAX_TIMER_FIRINGS_PER_STEP = 10_000;
    private static final long OFFSETS_RETENTION_MS = 3_600_000L;

    /** One command as the Raft log carries it: the command, the leader's time, and what it produced. */
    public record LoggedCommand(long nowMs, Command command, Result result) {
    }

    private final long seed;
    private final Random random;
    private final GroupConfig config;
    private final SimulationModel model;
    private final List<String> consumerGroups = new ArrayList<>();
    private final List<SimClient> clients = new ArrayList<>();
    private final List<LoggedCommand> log = new ArrayList<>();
    private final Map<String, TimerOp.Schedule> timers = new TreeMap<>();
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private final long startMs;
    private GroupCoordinatorShard shard;
    private long nowMs;
    private int suffixCounter;
    private int restarts;
    private int settleRounds;
    private int quietRounds;
    private int steps;
    private StringBuilder stepTrace = new StringBuilder();

    public GroupSimulation(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        this.config = new GroupConfig(10, 600_000, pick(0, 500, 3_000),
                pick(Integer.MAX_VALUE, Integer.MAX_VALUE, 3, 5),
                pick(GroupConfig.NEW_MEMBER_JOIN_TIMEOUT_MS, 20_000), OFFSETS_RETENTION_MS,
                GroupConfig.DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS, GroupConfig.DEFAULT_OFFSET_METADATA_MAX_BYTES,
                stateLimits(seed));
        this.model = new SimulationModel(config);
        this.startMs = 1_700_000_000_000L + random.nextInt(1_000_000);
        this.nowMs = startMs;
        int groupCount = 2 + random.nextInt(2);
        for (int i = 0; i < groupCount; i++) {
            consumerGroups.add("g" + i);
        }
        int clientCount = 2 + random.nextInt(7);
        for (int i = 0; i < clientCount; i++) {
            clients.add(newClient(i));
        }
        consumerGroups.forEach(model::knowGroup);
        model.knowGroup(SIMPLE_GROUP);
        model.knowGroup(UNKNOWN_GROUP);
        shard = new GroupCoordinatorShard(config);
        absorbTimers(shard.onLeaderReady(nowMs));
    }

    private SimClient newClient(int index) {
        boolean isStatic = random.nextInt(10) < 3;
        short version = (short) (isStatic ? pick(5, 9) : pick(3, 4, 4, 9));
        SimClient client = new SimClient(index, consumerGroups.get(random.nextInt(consumerGroups.size())),
                isStatic ? "i" + index : null, version, randomProtocols(), randomTopics(),
                pick(3_000, 6_000, 10_000, 20_000), pick(3_000, 8_000, 15_000));
        client.phase = random.nextInt(4) < 3 ? Phase.UNJOINED : Phase.STOPPED;
        return client;
    }

    private List<String> randomProtocols() {
        int roll = random.nextInt(10);
        if (roll < 4) {
            return List.of("range", "roundrobin");
        } else if (roll < 8) {
            return List.of("roundrobin", "range");
        }
        return List.of(roll == 8 ? "range" : "roundrobin");
    }

    private List<String> randomTopics() {
        List<String> topics = new ArrayList<>();
        for (String topic : SimCodec.TOPICS) {
            if (random.nextBoolean()) {
                topics.add(topic);
            }
        }
        return topics.isEmpty() ? List.of(SimCodec.TOPICS.get(random.nextInt(SimCodec.TOPICS.size()))) : topics;
    }

    private int pick(int... values) {
        return values[random.nextInt(values.length)];
    }

    public long seed() {
        return seed;
    }

    public GroupConfig config() {
        return config;
    }

    /** The shard as it is now (after restarts, the latest restored one). */
    public GroupCoordinatorShard shard() {
        return shard;
    }

    /** Every command applied so far, with its leader time and result, in log order. */
    public List<LoggedCommand> commandLog() {
        return List.copyOf(log);
    }

    public int restarts() {
        return restarts;
    }

    /** How many rounds the final settling took. */
    public int settleRounds() {
        return settleRounds;
    }

    // ----- the run ------------------------------------------------------------------------------

    /** Runs {@code stepCount} random steps, then lets the clients settle; throws AssertionError on a violation. */
    public GroupSimulation run(int stepCount) {
        this.steps = stepCount;
        for (int i = 1; i <= stepCount; i++) {
            runStep("step " + i, this::randomStep);
        }
        settle();
        return this;
    }

    /**
     * One seed in three runs with tight state limits, so refusals (and state over a limit after a
     * restart) meet the invariants. Drawn from their own Random, so the seeds' command streams stay
     * what they were.
     */
    private static StateLimits stateLimits(long seed) {
        Random limits = new Random(seed * 31 + 7);
        if (limits.nextInt(3) != 0) {
            return StateLimits.defaults();
        }
        return new StateLimits(2 + limits.nextInt(6), 1 + limits.nextInt(3), 3 + limits.nextInt(12),
                limits.nextInt(400));
    }

    private void runStep(String label, Runnable action) {
        stepTrace = new StringBuilder(label + " (t=+" + (nowMs - startMs) + "ms)");
        try {
            action.run();
            model.checkTimers(shard, timers);
            model.checkOffsets(shard);
            model.checkReads(shard);
            model.checkSnapshotRoundTrip(shard);
        } catch (RuntimeException | AssertionError e) {
            pushTrace();
            throw failure(label, e);
        }
        pushTrace();
    }

    private void pushTrace() {
        String step = stepTrace.toString();
        if (step.startsWith("settle") && step.lines().skip(1).allMatch(line -> line.endsWith("Heartbeat -> NONE"))) {
            // Settling rounds where every client only heartbeats are folded, so a liveness failure
            // still shows the steps that led to it.
            quietRounds++;
            return;
        }
        if (quietRounds > 0) {
            trace.addLast("(" + quietRounds + " settle rounds with nothing but successful heartbeats)");
            quietRounds = 0;
        }
        trace.addLast(step);
        while (trace.size() > TRACE_STEPS) {
            trace.removeFirst();
        }
    }

    private AssertionError failure(String label, Throwable cause) {
        StringBuilder message = new StringBuilder("Group simulation failed: seed=" + seed + ", " + label + " of "
                + steps + " steps\n  " + (cause instanceof Violation ? cause.getMessage() : cause.toString())
                + "\nReplay exactly this run with:\n  mvn -B -o -pl coordinator-core test -Djacoco.skip=true"
                + " '-Dtest=GroupSimulationTest#invariantsHoldAfterEveryStep' -Dcohort.sim.seed=" + seed
                + " -Dcohort.sim.steps=" + steps
                + "\nConfig: " + config + "\nClients: " + clients + "\nLast " + trace.size() + " steps:\n");
        trace.forEach(step -> message.append(step).append('\n'));
        if (quietRounds > 0) {
            message.append("(").append(quietRounds).append(" settle rounds with nothing but successful heartbeats)\n");
        }
        return new AssertionError(message.toString(), cause);
    }

    private void note(String line) {
        stepTrace.append("\n    ").append(line);
    }

    private void randomStep() {
        advance(random.nextInt(50));
        int roll = random.nextInt(1_000);
        if (roll < 580) {
            clientAction(pickClient());
        } else if (roll < 715) {
            advance(10 + random.nextInt(500));
        } else if (roll < 730) {
            advance(3_000 + random.nextInt(22_000));
        } else if (roll < 745) {
            restart();
        } else if (roll < 800) {
            lifecycle(pickClient());
        } else if (roll < 840) {
            simpleCommit();
        } else if (roll < 865) {
            deleteGroups();
        } else if (roll < 895) {
            deleteOffsets();
        } else if (roll < 925) {
            adminCommit();
        } else if (roll < 928) {
            advance(OFFSETS_RETENTION_MS + random.nextInt((int) OFFSETS_RETENTION_MS));
        } else if (roll < 950) {
            adminRemoveStatic();
        } else if (roll < 975) {
            redeliver(pickClient());
        } else {
            resubscribe(pickClient());
        }
    }

    private SimClient pickClient() {
        return clients.get(random.nextInt(clients.size()));
    }

    // ----- clock, timers, commands --------------------------------------------------------------

    /** Moves the clock, then fires every due timer in deadline order at the new time (as GroupShardTestContext). */
    private void advance(long ms) {
        if (ms >= 1_000) {
            note("clock +" + ms + "ms");
        }
        nowMs += ms;
        fireDueTimers();
    }

    private void fireDueTimers() {
        for (int fired = 0; ; fired++) {
            SimulationModel.check(fired < MAX_TIMER_FIRINGS_PER_STEP,
                    () -> "timers keep firing at " + nowMs + ": " + timers);
            TimerOp.Schedule due = null;
            for (TimerOp.Schedule timer : timers.values()) {
                if (timer.deadlineMs() <= nowMs && (due == null || timer.deadlineMs() < due.deadlineMs())) {
                    due = timer;
                }
            }
            if (due == null) {
                return;
            }
            timers.remove(due.key());
            Result result = apply(due.command(), "timer " + due.key());
            SimulationModel.check(result.reply() instanceof Result.Reply.None,
                    () -> "timer command answered " + result.reply());
            deliver(result);
        }
    }

    private void absorbTimers(List<TimerOp> ops) {
        for (TimerOp op : ops) {
            if (op instanceof TimerOp.Schedule schedule) {
                timers.put(schedule.key(), schedule);
            } else {
                timers.remove(op.key());
            }
        }
    }

    /** Applies one command at the current time: logs it, arms its timers, checks (a) and its records. */
    private Result apply(Command command, String description) {
        Map<String, ClassicGroup> before = new TreeMap<>();
        shard.groupIds().forEach(id -> before.put(id, shard.group(id)));
        Result result = shard.apply(command, nowMs);
        log.add(new LoggedCommand(nowMs, command, result));
        absorbTimers(result.timers());
        note(description + " -> " + SimTrace.describe(result));
        if (refusedByLimit(result)) {
            // A refusal changes nothing, and only a seed with tight limits meets one.
            SimulationModel.check(!config.limits().equals(StateLimits.defaults()) && result.records().isEmpty()
                    && result.timers().isEmpty() && result.completions().isEmpty(),
                    () -> "a state-limit refusal with defaults or with effects: " + result);
        }
        model.checkCommand(command, result, before, nowMs);
        model.checkGroups(shard);
        return result;
    }

    /** Whether {@code result} is a refusal for a state limit (its message names one). */
    private static boolean refusedByLimit(Result result) {
        String message;
        if (result.immediateResponse() instanceof OffsetCommitResponse r) {
            message = r.errorMessage();
        } else if (result.immediateResponse() instanceof JoinGroupResponse r) {
            message = r.errorMessage();
        } else if (result.immediateResponse() instanceof SyncGroupResponse r) {
            message = r.errorMessage();
        } else {
            message = null;
        }
        return message != null && List.of(StateLimits.MAX_OFFSETS_PER_GROUP, StateLimits.MAX_GROUPS_PER_PARTITION,
                StateLimits.MAX_OFFSETS_PER_PARTITION, StateLimits.MAX_METADATA_BYTES_PER_PARTITION).stream()
                .anyMatch(key -> message.startsWith(key + "="));
    }

    /** Hands every completion to the client whose call is parked under its key (none after a restart). */
    private void deliver(Result result) {
        for (Result.Completion completion : result.completions()) {
            SimClient target = null;
            for (SimClient client : clients) {
                if (completion.key().equals(client.parked)) {
                    target = client;
                }
            }
            if (target == null) {
                note("  (no caller for " + completion.key().kind() + " " + completion.key().memberId() + ": "
                        + SimTrace.describe(completion.response()) + ")");
                continue;
            }
            note("  => " + target.clientId + ": " + SimTrace.describe(completion.response()));
            if (completion.key().kind() == ParkKey.Kind.JOIN) {
                SimulationModel.check(completion.response() instanceof JoinGroupResponse,
                        () -> "join completion " + completion);
                onJoinResponse(target, (JoinGroupResponse) completion.response());
            } else {
                SimulationModel.check(completion.response() instanceof SyncGroupResponse,
                        () -> "sync completion " + completion);
                onSyncResponse(target, (SyncGroupResponse) completion.response());
            }
        }
    }

    /**
     * A new leader takes over: the shard is replaced by a fresh one restored from the old one's
     * snapshot, or by a follower that applied the whole command log (which must reproduce every
     * logged result); the timers are re-armed from the state, and parked calls are lost (their
     * clients resend).
     */
    private void restart() {
        List<CoordinatorRecord> snapshot = shard.snapshot();
        GroupCoordinatorShard next = new GroupCoordinatorShard(config);
        boolean fromLog = random.nextBoolean();
        if (fromLog) {
            for (int i = 0; i < log.size(); i++) {
                LoggedCommand entry = log.get(i);
                Result replayed = next.apply(entry.command(), entry.nowMs());
                int index = i;
                SimulationModel.check(replayed.equals(entry.result()) && SimulationModel.memberOrder(replayed.records())
                        .equals(SimulationModel.memberOrder(entry.result().records())), () -> "a follower replaying"
                        + " the log diverged at command #" + index + " " + entry.command() + ":\n  leader   "
                        + entry.result() + "\n  follower " + replayed);
            }
            SimulationModel.check(next.snapshot().equals(snapshot), () -> "a follower that applied the whole log"
                    + " holds " + next.snapshot() + " but the leader holds " + snapshot);
        } else {
            next.restore(snapshot);
        }
        shard = next;
        timers.clear();
        absorbTimers(shard.onLeaderReady(nowMs));
        restarts++;
        note("RESTART: new leader " + (fromLog ? "applied the log of " + log.size() + " commands"
                : "restored a snapshot of " + snapshot.size() + " records") + "; timers re-armed: " + timers.keySet());
        for (SimClient client : clients) {
            if (client.phase == Phase.JOIN_PARKED) {
                // A client that had no member id yet (v3 or static first join) resends with "" again.
                client.rejoin();
            } else if (client.phase == Phase.SYNC_PARKED) {
                client.phase = Phase.SYNC_NEEDED;
                client.parked = null;
            }
        }
        model.checkGroups(shard);
        fireDueTimers();
    }

    // ----- client behaviour ---------------------------------------------------------------------

    private void clientAction(SimClient client) {
        int roll = random.nextInt(100);
        switch (client.phase) {
            case STOPPED -> note(client.clientId + " is stopped");
            case UNJOINED -> sendJoin(client);
            case JOIN_PARKED -> {
                if (roll < 15) {
                    commitAsMember(client);
                } else if (roll < 25) {
                    // The client-side request timeout ran out before the rebalance timeout: it resends.
                    note(client.clientId + " times out waiting for its JoinGroup and resends it");
                    client.rejoin();
                    sendJoin(client);
                } else {
                    note(client.clientId + " waits for its JoinGroup");
                }
            }
            case SYNC_NEEDED -> {
                if (roll < 80) {
                    sendSync(client);
                } else {
                    heartbeat(client);
                }
            }
            case SYNC_PARKED -> {
                if (roll < 10) {
                    note(client.clientId + " times out waiting for its SyncGroup and resends it");
                    client.phase = Phase.SYNC_NEEDED;
                    client.parked = null;
                    sendSync(client);
                } else {
                    heartbeat(client);
                }
            }
            case STABLE -> {
                if (roll < 55) {
                    heartbeat(client);
                } else if (roll < 88) {
                    commitAsMember(client);
                } else if (roll < 94) {
                    note(client.clientId + " rejoins voluntarily");
                    client.rejoin();
                    sendJoin(client);
                } else {
                    leave(client);
                }
            }
            default -> throw new IllegalStateException(client.phase.toString());
        }
    }

    /** The action a live consumer's poll loop takes next (used while settling). */
    private void naturalAction(SimClient client) {
        switch (client.phase) {
            case UNJOINED -> sendJoin(client);
            case SYNC_NEEDED -> sendSync(client);
            case SYNC_PARKED, STABLE -> heartbeat(client);
            default -> {
            }
        }
    }

    private void lifecycle(SimClient client) {
        int roll = random.nextInt(100);
        if (client.phase == Phase.STOPPED) {
            // A static member restarted with another subscription replaces its old self without a
            // rebalance while the selected protocol stays (KIP-345, as Kafka), keeping a stale
            // assignment; only dynamic clients come back with a new configuration.
            if (roll < 30 && !client.isStatic()) {
                client.protocolNames = randomProtocols();
                client.topics = randomTopics();
            }
            note(client.clientId + " starts with " + client.protocolNames + " " + client.topics);
            client.phase = Phase.UNJOINED;
        } else if (roll < 40) {
            if (!client.isStatic() && !client.memberId.isEmpty()) {
                // Consumer.close(): a dynamic member leaves; a static one does not (Java client default).
                leave(client);
            } else {
                note(client.clientId + " closes without leaving");
                client.stop();
            }
        } else if (roll < 70) {
            note(client.clientId + " crashes");
            client.stop();
        } else {
            note(client.clientId + " restarts (process restart, same instance id)");
            client.stop();
            client.phase = Phase.UNJOINED;
        }
    }

    private void resubscribe(SimClient client) {
        if (client.phase == Phase.JOIN_PARKED || client.phase == Phase.SYNC_PARKED) {
            note(client.clientId + " keeps its subscription while a call is parked");
            return;
        }
        if (client.isStatic() && client.memberId.isEmpty()) {
            // Its next JoinGroup ("" and a known instance id) would replace its old self in a Stable
            // group without a rebalance (KIP-345, as Kafka), leaving the assignment stale.
            note(client.clientId + " keeps its subscription until it has a member id");
            return;
        }
        client.topics = randomTopics();
        if (random.nextInt(3) == 0) {
            client.sessionTimeoutMs = pick(3_000, 6_000, 10_000, 20_000);
            client.rebalanceTimeoutMs = pick(3_000, 8_000, 15_000);
        }
        note(client.clientId + " subscribes to " + client.topics + " (session " + client.sessionTimeoutMs
                + " ms, rebalance " + client.rebalanceTimeoutMs + " ms)");
        if (client.phase == Phase.STABLE || client.phase == Phase.SYNC_NEEDED) {
            client.rejoin();
            sendJoin(client);
        }
    }

    private void sendJoin(SimClient client) {
        Command.JoinGroup join = new Command.JoinGroup(client.groupId, client.memberId, client.instanceId,
                ClassicGroup.CONSUMER_PROTOCOL_TYPE, client.protocols(), client.sessionTimeoutMs,
                client.rebalanceTimeoutMs, client.clientId, "/10.0.0." + client.index, "sim", client.joinVersion,
                "s" + (++suffixCounter));
        client.lastRequest = join;
        Result result = apply(join, client + " JoinGroup " + client.protocolNames + client.topics);
        if (result.reply() instanceof Result.Reply.Parked parked) {
            client.parked = parked.key();
            client.phase = Phase.JOIN_PARKED;
        } else {
            SimulationModel.check(result.immediateResponse() instanceof JoinGroupResponse,
                    () -> "JoinGroup answered " + result);
            onJoinResponse(client, (JoinGroupResponse) result.immediateResponse());
        }
        deliver(result);
    }

    private void onJoinResponse(SimClient client, JoinGroupResponse response) {
        client.parked = null;
        switch (response.error()) {
            case NONE -> joined(client, response);
            case MEMBER_ID_REQUIRED -> {
                SimulationModel.check(!client.isStatic() && client.joinVersion >= 4 && !response.memberId().isEmpty(),
                        () -> client + " got " + response);
                client.memberId = response.memberId();
                client.phase = Phase.UNJOINED;
            }
            case UNKNOWN_MEMBER_ID -> {
                client.resetMembership();
                client.phase = Phase.UNJOINED;
            }
            case FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED -> {
                // Fatal for a Java consumer: it stops (and may be started again later).
                client.stop();
            }
            default -> throw new Violation(client + " got an unexpected JoinGroup answer " + response);
        }
    }

    private void joined(SimClient client, JoinGroupResponse response) {
        client.memberId = response.memberId();
        client.generation = response.generationId();
        client.protocolName = response.protocolName();
        client.leader = response.memberId().equals(response.leader());
        client.skipAssignment = response.skipAssignment();
        client.leaderMembers = response.members();
        client.assignment = List.of();
        client.phase = Phase.SYNC_NEEDED;
        model.joinedGeneration(response.memberId(), response.generationId(), shard.group(client.groupId));
        SimulationModel.check(ClassicGroup.CONSUMER_PROTOCOL_TYPE.equals(response.protocolType())
                && client.protocolNames.contains(response.protocolName()), () -> client + " joined with " + response);
        if (!client.leader) {
            SimulationModel.check(response.members().isEmpty(),
                    () -> "follower " + client + " got members " + response);
            return;
        }
        ClassicGroup group = shard.group(client.groupId);
        SimulationModel.check(response.members().stream().map(JoinedMember::memberId).toList()
                .equals(List.copyOf(group.members().keySet())), () -> "leader " + client + " got member list "
                + response.members().stream().map(JoinedMember::memberId).toList() + " but the group has "
                + group.members().keySet());
        for (JoinedMember member : response.members()) {
            SimulationModel.check(member.metadata() != null, () -> "leader got no metadata for " + member);
            SimCodec.Subscription subscription = SimCodec.parseSubscription(member.metadata());
            SimulationModel.check(response.protocolName().equals(subscription.userData()), () -> "leader " + client
                    + " got " + member.memberId() + "'s metadata for " + subscription.userData() + ", not for the"
                    + " selected protocol " + response.protocolName());
        }
    }

    private void sendSync(SimClient client) {
        List<Command.MemberAssignment> assignments = new ArrayList<>();
        Map<String, Bytes> byOwner = null;
        if (client.leader && !client.skipAssignment) {
            Map<String, List<String>> subscriptions = new TreeMap<>();
            Map<String, String> instanceIds = new LinkedHashMap<>();
            for (JoinedMember member : client.leaderMembers) {
                subscriptions.put(member.memberId(), SimCodec.parseSubscription(member.metadata()).topics());
                instanceIds.put(member.memberId(), member.groupInstanceId());
            }
            byOwner = new TreeMap<>();
            for (Map.Entry<String, List<TopicPartition>> entry
                    : SimCodec.assign(client.protocolName, subscriptions).entrySet()) {
                Bytes bytes = SimCodec.assignment(entry.getValue());
                assignments.add(new Command.MemberAssignment(entry.getKey(), bytes));
                byOwner.put(SimClient.ownerKey(entry.getKey(), instanceIds.get(entry.getKey())), bytes);
            }
        }
        boolean withProtocol = random.nextBoolean();
        Command.SyncGroup sync = new Command.SyncGroup(client.groupId, client.generation, client.memberId,
                client.instanceId, withProtocol ? ClassicGroup.CONSUMER_PROTOCOL_TYPE : null,
                withProtocol ? client.protocolName : null, assignments);
        client.lastRequest = sync;
        Result result = apply(sync, client + " SyncGroup" + (byOwner != null ? " as leader" : ""));
        if (result.reply() instanceof Result.Reply.Parked parked) {
            SimulationModel.check(!client.leader || client.skipAssignment, () -> "the leader's SyncGroup was parked");
            client.parked = parked.key();
            client.phase = Phase.SYNC_PARKED;
        } else {
            SimulationModel.check(result.immediateResponse() instanceof SyncGroupResponse,
                    () -> "SyncGroup answered " + result);
            SyncGroupResponse response = (SyncGroupResponse) result.immediateResponse();
            if (response.error() == ErrorCode.NONE && byOwner != null) {
                ClassicGroup group = shard.group(client.groupId);
                SimulationModel.check(group.isInState(ClassicGroupState.STABLE)
                        && group.generationId() == client.generation, () -> "leader sync NONE but group is " + group);
                model.assignmentAccepted(new GenerationKey(client.groupId, client.generation), byOwner);
            }
            onSyncResponse(client, response);
        }
        deliver(result);
    }

    private void onSyncResponse(SimClient client, SyncGroupResponse response) {
        client.parked = null;
        switch (response.error()) {
            case NONE -> {
                SimulationModel.check(client.protocolName.equals(response.protocolName()),
                        () -> client + " synced " + response);
                model.assignmentDelivered(new GenerationKey(client.groupId, client.generation), client.ownerKey(),
                        response.assignment());
                client.assignment = SimCodec.parseAssignment(response.assignment());
                client.phase = Phase.STABLE;
            }
            case REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION -> client.rejoin();
            case UNKNOWN_MEMBER_ID -> {
                client.resetMembership();
                client.rejoin();
            }
            // Fatal for a Java consumer, as for JoinGroup: the leader's assignments exceeded a state limit.
            case FENCED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED -> client.stop();
            default -> throw new Violation(client + " got an unexpected SyncGroup answer " + response);
        }
    }

    private void heartbeat(SimClient client) {
        GroupCoordinatorShard.HeartbeatResult result = shard.heartbeat(
                new Heartbeat(client.groupId, client.generation, client.memberId, client.instanceId), nowMs);
        absorbTimers(result.timers());
        ErrorCode error = result.response().error();
        note(client + " Heartbeat -> " + error);
        switch (error) {
            case NONE -> {
            }
            case REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION -> client.rejoin();
            case UNKNOWN_MEMBER_ID -> {
                client.resetMembership();
                client.rejoin();
            }
            case FENCED_INSTANCE_ID -> client.stop();
            default -> throw new Violation(client + " got an unexpected Heartbeat answer " + error);
        }
    }

    private void leave(SimClient client) {
        Command.LeaveGroup leave = new Command.LeaveGroup(client.groupId,
                List.of(new Command.LeavingMember(client.memberId, client.instanceId, "closing")));
        client.stop();
        client.lastRequest = leave;
        Result result = apply(leave, client.clientId + " LeaveGroup " + leave.members().get(0).memberId());
        deliver(result);
    }

    private void adminRemoveStatic() {
        List<SimClient> statics = clients.stream().filter(SimClient::isStatic).toList();
        if (statics.isEmpty()) {
            note("no static member to remove");
            return;
        }
        SimClient client = statics.get(random.nextInt(statics.size()));
        Result result = apply(new Command.LeaveGroup(client.groupId,
                List.of(new Command.LeavingMember("", client.instanceId, "admin"))),
                "admin removes instance " + client.instanceId + " from " + client.groupId);
        deliver(result);
    }

    // ----- offsets ------------------------------------------------------------------------------

    private void commitAsMember(SimClient client) {
        List<TopicPartition> partitions = client.assignment.isEmpty() ? List.of(randomPartition(client.topics))
                : client.assignment;
        Result result = commit(client.groupId, client.generation, client.memberId, client.instanceId, partitions,
                client + " OffsetCommit");
        client.lastRequest = log.get(log.size() - 1).command();
        ErrorCode groupError = firstGroupLevelError((OffsetCommitResponse) result.immediateResponse());
        switch (groupError) {
            case NONE -> {
            }
            case ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS -> {
                if (client.phase == Phase.STABLE || client.phase == Phase.SYNC_NEEDED) {
                    client.rejoin();
                }
            }
            case UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND -> {
                if (client.phase == Phase.STABLE || client.phase == Phase.SYNC_NEEDED) {
                    client.resetMembership();
                    client.rejoin();
                }
            }
            case FENCED_INSTANCE_ID -> client.stop();
            case INVALID_COMMIT_OFFSET_SIZE -> SimulationModel.check(refusedByLimit(result),
                    () -> client + " got INVALID_COMMIT_OFFSET_SIZE without a limit: " + result.reply());
            default -> throw new Violation(client + " got an unexpected OffsetCommit answer " + result.reply());
        }
    }

    /** A "simple" consumer with manual assignment: generation -1 to a group that never has members. */
    private void simpleCommit() {
        commit(SIMPLE_GROUP, -1, "", null, randomPartitions(), "simple OffsetCommit");
    }

    /** An admin tool commits with generation -1: accepted only if the group is Empty or unknown. */
    private void adminCommit() {
        String groupId = consumerGroups.get(random.nextInt(consumerGroups.size()));
        ClassicGroup before = shard.group(groupId);
        Result result = commit(groupId, -1, "", null, randomPartitions(), "admin OffsetCommit to " + groupId);
        ErrorCode expected = before == null || before.isInState(ClassicGroupState.EMPTY)
                ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
        ErrorCode actual = firstGroupLevelError((OffsetCommitResponse) result.immediateResponse());
        SimulationModel.check(actual == expected || refusedByLimit(result), () -> "admin commit to " + before
                + " answered " + actual
                + ", expected " + expected);
    }

    /** Commits {@code partitions} and records every partition acknowledged NONE in the model. */
    private Result commit(String groupId, int generationId, String memberId, String instanceId,
                          List<TopicPartition> partitions, String description) {
        Map<String, List<Command.PartitionCommit>> byTopic = new TreeMap<>();
        Map<TopicPartition, ExpectedOffset> values = new TreeMap<>();
        int retentionRoll = random.nextInt(20);
        long retentionMs = retentionRoll == 0 ? 600_000L + random.nextInt(3_000_000) : -1L;
        for (TopicPartition partition : new TreeSet<>(partitions)) {
            ExpectedOffset previous = model.expected(groupId, partition);
            long offset = Math.max(0, (previous == null ? 0 : previous.offset()) + random.nextInt(100) - 5);
            int leaderEpoch = random.nextBoolean() ? -1 : random.nextInt(5);
            int metadataRoll = random.nextInt(20);
            String metadata = metadataRoll == 0 ? "x".repeat(config.offsetMetadataMaxBytes() + 1)
                    : metadataRoll < 5 ? null : "m" + suffixCounter;
            byTopic.computeIfAbsent(partition.topic(), t -> new ArrayList<>())
                    .add(new Command.PartitionCommit(partition.partition(), offset, leaderEpoch, metadata));
            values.put(partition, new ExpectedOffset(offset, leaderEpoch, metadata == null ? "" : metadata, nowMs,
                    retentionMs >= 0 ? nowMs + retentionMs : -1L));
        }
        List<Command.TopicCommit> topics = byTopic.entrySet().stream()
                .map(e -> new Command.TopicCommit(e.getKey(), e.getValue())).toList();
        short version = (short) pick(8, 9);
        Result result = apply(new Command.OffsetCommit(groupId, generationId, memberId, instanceId, retentionMs,
                topics, version), description + " " + values.keySet());
        acknowledge(groupId, values, result);
        if (SIMPLE_GROUP.equals(groupId)) {
            SimulationModel.check(firstGroupLevelError((OffsetCommitResponse) result.immediateResponse())
                    == ErrorCode.NONE || refusedByLimit(result),
                    () -> "a simple-group commit failed: " + result.reply());
        }
        return result;
    }

    /** Records in the model every partition of a commit that the shard acknowledged with NONE. */
    private void acknowledge(String groupId, Map<TopicPartition, ExpectedOffset> values, Result result) {
        SimulationModel.check(result.immediateResponse() instanceof OffsetCommitResponse,
                () -> "OffsetCommit answered " + result);
        for (PartitionError.TopicErrors topic : ((OffsetCommitResponse) result.immediateResponse()).topics()) {
            for (PartitionError partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.topic(), partition.partition());
                ExpectedOffset value = values.get(tp);
                boolean tooLarge = value.metadata().length() > config.offsetMetadataMaxBytes();
                if (partition.error() == ErrorCode.NONE) {
                    SimulationModel.check(!tooLarge, () -> "a commit with too large metadata was accepted for " + tp);
                    model.committed(groupId, tp, value);
                } else if (tooLarge && partition.error() != ErrorCode.OFFSET_METADATA_TOO_LARGE) {
                    SimulationModel.check(firstGroupLevelError((OffsetCommitResponse) result.immediateResponse())
                            == partition.error(), () -> "partition " + tp + " failed with " + partition.error());
                }
            }
        }
    }

    /**
     * The network delivers the client's last request again, late (a retry whose first copy got
     * through). The client has moved on and never sees the answer; a parked call of the client under
     * the same key is superseded by the copy (its connection fails), so the client resends later.
     * Acknowledged commits still count: the shard stored them.
     */
    private void redeliver(SimClient client) {
        Command request = client.lastRequest;
        if (request == null) {
            note(client.clientId + " has sent nothing to redeliver");
            return;
        }
        if (request instanceof Command.JoinGroup join) {
            request = new Command.JoinGroup(join.groupId(), join.memberId(), join.groupInstanceId(),
                    join.protocolType(), join.protocols(), join.sessionTimeoutMs(), join.rebalanceTimeoutMs(),
                    join.clientId(), join.clientHost(), join.reason(), join.apiVersion(), "s" + (++suffixCounter));
        }
        Result result = apply(request, "network redelivers " + client.clientId + "'s "
                + request.getClass().getSimpleName() + " " + redeliveredKey(request));
        ParkKey key = result.reply() instanceof Result.Reply.Parked parked ? parked.key() : redeliveredKey(request);
        for (SimClient other : clients) {
            if (key != null && key.equals(other.parked)) {
                note("  " + other.clientId + "'s parked call is superseded; it will resend");
                if (other.phase == Phase.JOIN_PARKED) {
                    other.rejoin();
                } else {
                    other.phase = Phase.SYNC_NEEDED;
                    other.parked = null;
                }
            }
        }
        if (request instanceof Command.OffsetCommit commit) {
            Map<TopicPartition, ExpectedOffset> values = new TreeMap<>();
            for (Command.TopicCommit topic : commit.topics()) {
                for (Command.PartitionCommit partition : topic.partitions()) {
                    values.put(new TopicPartition(topic.topic(), partition.partition()), new ExpectedOffset(
                            partition.offset(), partition.leaderEpoch(),
                            partition.metadata() == null ? "" : partition.metadata(), nowMs,
                            commit.retentionTimeMs() >= 0 ? nowMs + commit.retentionTimeMs() : -1L));
                }
            }
            acknowledge(commit.groupId(), values, result);
        }
        deliver(result);
    }

    /** The key a redelivered Join or Sync would park under, if it names its member. */
    private static ParkKey redeliveredKey(Command request) {
        if (request instanceof Command.JoinGroup join && !join.memberId().isEmpty()) {
            return ParkKey.join(join.groupId(), join.memberId());
        } else if (request instanceof Command.SyncGroup sync) {
            return ParkKey.sync(sync.groupId(), sync.memberId());
        }
        return null;
    }

    /** The error of the first partition whose error is not about its own metadata (NONE if none). */
    private static ErrorCode firstGroupLevelError(OffsetCommitResponse response) {
        for (PartitionError.TopicErrors topic : response.topics()) {
            for (PartitionError partition : topic.partitions()) {
                if (partition.error() != ErrorCode.NONE && partition.error() != ErrorCode.OFFSET_METADATA_TOO_LARGE) {
                    return partition.error();
                }
            }
        }
        return ErrorCode.NONE;
    }

    private TopicPartition randomPartition(List<String> topics) {
        String topic = topics.get(random.nextInt(topics.size()));
        return new TopicPartition(topic, random.nextInt(SimCodec.PARTITIONS.get(topic)));
    }

    private List<TopicPartition> randomPartitions() {
        List<TopicPartition> partitions = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            partitions.add(randomPartition(SimCodec.TOPICS));
        }
        return partitions;
    }

    private String randomAdminGroup() {
        int roll = random.nextInt(consumerGroups.size() + 2);
        if (roll < consumerGroups.size()) {
            return consumerGroups.get(roll);
        }
        return roll == consumerGroups.size() ? SIMPLE_GROUP : UNKNOWN_GROUP;
    }

    private void deleteGroups() {
        Set<String> groupIds = new TreeSet<>();
        int count = 1 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
            groupIds.add(randomAdminGroup());
        }
        Map<String, ClassicGroup> before = new TreeMap<>();
        groupIds.forEach(id -> before.put(id, shard.group(id)));
        Result result = apply(new Command.DeleteGroups(List.copyOf(groupIds)), "admin DeleteGroups " + groupIds);
        for (DeleteGroupsResponse.GroupResult group : ((DeleteGroupsResponse) result.immediateResponse()).results()) {
            ClassicGroup previous = before.get(group.groupId());
            ErrorCode expected = previous == null ? ErrorCode.GROUP_ID_NOT_FOUND
                    : previous.isInState(ClassicGroupState.EMPTY) ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
            SimulationModel.check(group.error() == expected, () -> "DeleteGroups of " + previous + " answered "
                    + group.error() + ", expected " + expected);
            if (group.error() == ErrorCode.NONE) {
                model.groupOffsetsDeleted(group.groupId());
                SimulationModel.check(shard.group(group.groupId()) == null,
                        () -> "deleted group " + group.groupId() + " exists");
            }
        }
        deliver(result);
    }

    private void deleteOffsets() {
        String groupId = randomAdminGroup();
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (TopicPartition partition : randomPartitions()) {
            byTopic.computeIfAbsent(partition.topic(), t -> new ArrayList<>()).add(partition.partition());
        }
        List<Command.TopicPartitions> topics = byTopic.entrySet().stream()
                .map(e -> new Command.TopicPartitions(e.getKey(), e.getValue().stream().distinct().toList())).toList();
        boolean existed = shard.group(groupId) != null;
        Result result = apply(new Command.OffsetDelete(groupId, topics),
                "admin OffsetDelete " + groupId + " " + byTopic);
        OffsetDeleteResponse response = (OffsetDeleteResponse) result.immediateResponse();
        SimulationModel.check(existed || response.error() == ErrorCode.GROUP_ID_NOT_FOUND,
                () -> "OffsetDelete of unknown group answered " + response);
        for (PartitionError.TopicErrors topic : response.topics()) {
            for (PartitionError partition : topic.partitions()) {
                if (partition.error() == ErrorCode.NONE) {
                    model.offsetDeleted(groupId, new TopicPartition(topic.topic(), partition.partition()));
                }
            }
        }
        deliver(result);
    }

    // ----- (f) settling -------------------------------------------------------------------------

    /**
     * Liveness: stops the chaos and lets every running client act as a live consumer's poll loop would,
     * every {@value #SETTLE_ROUND_MS} ms, until each group is Stable with exactly the running clients as
     * members, all at its generation, and every subscribed partition assigned.
     */
    private void settle() {
        for (int round = 1; round <= SETTLE_MAX_ROUNDS; round++) {
            settleRounds = round;
            runStep("settle round " + round, () -> {
                advance(SETTLE_ROUND_MS);
                for (SimClient client : clients) {
                    naturalAction(client);
                }
            });
            String unsettled = SimulationModel.unsettled(consumerGroups, clients, shard);
            if (unsettled == null) {
                return;
            }
            if (round == SETTLE_MAX_ROUNDS) {
                throw failure("settle round " + round, new Violation("(f) the groups did not settle within "
                        + SETTLE_MAX_ROUNDS * SETTLE_ROUND_MS + " ms: " + unsettled));
            }
        }
    }

    /** For tests and reports: how many commands each kind of command contributed. */
    public SortedMap<String, Integer> commandCounts() {
        SortedMap<String, Integer> counts = new TreeMap<>();
        log.forEach(entry -> counts.merge(entry.command().getClass().getSimpleName(), 1, Integer::sum));
        return counts;
    }
}
