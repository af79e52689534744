package io.cohort.core.simulation;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.consumer.assignor.ServerAssignor;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.ConsumerGroupHeartbeatResponse;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import io.cohort.core.shard.RoundRobinTestAssignor;
import io.cohort.core.shard.TimerOp;
import io.cohort.core.topic.TopicMetadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A seeded simulation of consumer-protocol (KIP-848) members against one shard, as the leader runs
 * it: a heartbeat is handled on the applied state first and logged only if it produces records;
 * timers fire as the clock moves; topics grow; the leader restarts from a snapshot (a new leader
 * re-arms timers from state). A follower replays only the logged commands.
 *
 * <p>Checked after every step: (a) no partition is owned (assigned or pending revocation) by two
 * members in the coordinator's state; (b) no partition is believed owned by two clients that are
 * still members, and what a member's client believes it owns is a subset of what the coordinator
 * records for it (revoke before assign, seen from the clients); (c) the handled and applied results
 * of a logged command are the same; at the end, (d) the follower's snapshot equals the leader's.
 */
final class ConsumerProtocolSimulation {
    static final int DEFAULT_STEPS = 400;
    private static final String GROUP = "sim-group";
    private static final int CLIENTS = 6;
    private static final GroupConfig CONFIG = GroupConfig.defaults().withConsumerSettings(45_000, 5_000, 5,
            List.of("roundrobin"));

    private final Random random;
    private GroupCoordinatorShard leader;
    private final GroupCoordinatorShard follower;
    private final Map<String, TimerOp.Schedule> timers = new TreeMap<>();
    private final Map<String, TopicMetadata> registry = new TreeMap<>();
    private final List<Client> clients = new ArrayList<>();
    private final Map<String, Integer> counts = new TreeMap<>();
    private long nowMs;

    /** One consumer: what it believes (its epoch, the partitions it owns), as a client would. */
    private static final class Client {
        final String instanceId;
        String memberId;
        int generation;
        boolean joined;
        int epoch;
        Assignment owned = Assignment.EMPTY;
        /** Partitions it was told to give up but still holds for a while (a slow commit). */
        int revocationDelay;
        /** The last assignment received, adopted when the delay ends. */
        Assignment pendingTarget;

        Client(String instanceId) {
            this.instanceId = instanceId;
        }
    }

    ConsumerProtocolSimulation(long seed) {
        this.random = new Random(seed);
        this.leader = newShard();
        this.follower = newShard();
        createTopic("alpha", 4);
        createTopic("beta", 3);
        for (int i = 0; i < CLIENTS; i++) {
            Client client = new Client(i % 3 == 0 ? "static-" + i : null);
            client.memberId = "c" + i + "-g0";
            clients.add(client);
        }
    }

    private static GroupCoordinatorShard newShard() {
        return new GroupCoordinatorShard(CONFIG, List.<ServerAssignor>of(new RoundRobinTestAssignor("roundrobin")));
    }

    private void createTopic(String name, int partitions) {
        UUID id = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
        registry.put(name, new TopicMetadata(id, name, partitions, List.of()));
    }

    ConsumerProtocolSimulation run(int steps) {
        for (int step = 0; step < steps; step++) {
            step();
            checkInvariants(step);
        }
        if (!follower.snapshot().equals(leader.snapshot())) {
            throw new AssertionError("follower diverged from the leader");
        }
        return this;
    }

    Map<String, Integer> counts() {
        return counts;
    }

    private void count(String what) {
        counts.merge(what, 1, Integer::sum);
    }

    private void step() {
        int dice = random.nextInt(100);
        Client client = clients.get(random.nextInt(clients.size()));
        if (dice < 55) {
            heartbeat(client);
        } else if (dice < 62) {
            leave(client);
        } else if (dice < 85) {
            advanceClock(random.nextInt(20_000));
        } else if (dice < 88) {
            String topic = random.nextBoolean() ? "alpha" : "beta";
            createTopic(topic, registry.get(topic).partitionCount() + 1);
            count("topic grew");
        } else if (dice < 92) {
            restartLeader();
        } else {
            commitOffset(client);
        }
    }

    private void heartbeat(Client client) {
        ConsumerGroupHeartbeat request;
        if (!client.joined) {
            List<String> topics = random.nextInt(4) == 0 ? List.of("alpha") : List.of("alpha", "beta");
            request = request(client, 0, 300_000, topics, Assignment.EMPTY);
        } else {
            Assignment owned = random.nextInt(5) == 0 ? null : client.owned;
            request = request(client, client.epoch, -1, null, owned);
        }
        ConsumerGroupHeartbeatResponse response = (ConsumerGroupHeartbeatResponse) propose(request)
                .immediateResponse();
        count("heartbeat " + response.error());
        if (response.error() == ErrorCode.FENCED_MEMBER_EPOCH || response.error() == ErrorCode.UNKNOWN_MEMBER_ID) {
            reset(client, false);
            return;
        }
        if (response.error() != ErrorCode.NONE) {
            return;
        }
        if (client.joined && random.nextInt(10) == 0) {
            // The answer is lost: the client keeps its epoch and partitions (the previous-epoch acceptance,
            // fencing and stale commits follow).
            count("lost answer");
            return;
        }
        client.joined = true;
        client.epoch = response.memberEpoch();
        if (response.assignment() != null) {
            Assignment target = response.assignment();
            // New partitions are taken at once; revoked ones are sometimes held for a few heartbeats.
            boolean delay = random.nextInt(3) == 0 && client.revocationDelay == 0;
            client.owned = delay ? union(client.owned, target) : target;
            client.revocationDelay = delay ? 1 + random.nextInt(3) : 0;
            client.pendingTarget = target;
        } else if (client.revocationDelay > 0 && --client.revocationDelay == 0 && client.pendingTarget != null) {
            client.owned = client.pendingTarget;
        }
    }

    private ConsumerGroupHeartbeat request(Client client, int epoch, int rebalanceTimeoutMs, List<String> topics,
                                           Assignment owned) {
        GroupCoordinatorShard.ConsumerGroupInterest interest = leader.consumerGroupInterest(GROUP);
        Set<String> names = new TreeSet<>(interest.subscribedTopicNames());
        if (topics != null) {
            names.addAll(topics);
        }
        TopicLookup lookup = TopicLookup.of(names, registry, Map.of());
        return new ConsumerGroupHeartbeat(GROUP, client.memberId, epoch, client.instanceId, null, rebalanceTimeoutMs,
                topics, null, null, owned, "sim", "/sim", lookup);
    }

    private void leave(Client client) {
        if (!client.joined) {
            return;
        }
        int epoch = client.instanceId != null && random.nextBoolean()
                ? ConsumerGroupHeartbeat.LEAVE_GROUP_STATIC_MEMBER_EPOCH : ConsumerGroupHeartbeat.LEAVE_GROUP_MEMBER_EPOCH;
        propose(new ConsumerGroupHeartbeat(GROUP, client.memberId, epoch, client.instanceId, null, -1, null, null,
                null, null, "sim", "/sim", TopicLookup.NONE));
        count(epoch == -2 ? "static leave" : "leave");
        reset(client, epoch == -2);
    }

    /** The client forgets its partitions; a static member rejoins under a new member id after a -2 leave. */
    private void reset(Client client, boolean newMemberId) {
        client.joined = false;
        client.epoch = 0;
        client.owned = Assignment.EMPTY;
        client.pendingTarget = null;
        client.revocationDelay = 0;
        if (newMemberId) {
            client.generation++;
            client.memberId = client.memberId.substring(0, client.memberId.indexOf("-g")) + "-g" + client.generation;
        }
    }

    private void commitOffset(Client client) {
        Result result = propose(new Command.OffsetCommit(GROUP, client.joined ? client.epoch : -1,
                client.joined ? client.memberId : "", null, -1, List.of(new Command.TopicCommit("alpha",
                List.of(new Command.PartitionCommit(0, nowMs, -1, "")))), (short) 9));
        count("commit " + ((io.cohort.core.response.OffsetCommitResponse) result.immediateResponse()).topics().get(0)
                .partitions().get(0).error());
    }

    /** The leader's path: handle on the applied state; log (apply on both replicas) only if it writes. */
    private Result propose(Command command) {
        Result handled = leader.handle(command, nowMs);
        Result result = handled;
        if (!handled.records().isEmpty()) {
            result = leader.apply(command, nowMs);
            follower.apply(command, nowMs);
            if (!result.equals(handled)) {
                throw new AssertionError("apply differs from handle for " + command);
            }
            count("logged");
        } else {
            count("not logged");
        }
        absorbTimers(result.timers());
        return result;
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

    private void advanceClock(long ms) {
        // Live clients heartbeat in time; only some are silent (crashed or paused) and get fenced.
        nowMs += ms;
        while (true) {
            TimerOp.Schedule due = null;
            for (TimerOp.Schedule t : timers.values()) {
                if (t.deadlineMs() <= nowMs && (due == null || t.deadlineMs() < due.deadlineMs())) {
                    due = t;
                }
            }
            if (due == null) {
                return;
            }
            timers.remove(due.key());
            Result fired = propose(due.command());
            if (!fired.records().isEmpty()) {
                count("fired " + due.command().getClass().getSimpleName());
            }
        }
    }

    private void restartLeader() {
        List<CoordinatorRecord> snapshot = leader.snapshot();
        leader = newShard();
        leader.restore(snapshot);
        timers.clear();
        absorbTimers(leader.onLeaderReady(nowMs));
        count("restart");
    }

    private void checkInvariants(int step) {
        ConsumerGroup group = leader.consumerGroup(GROUP);
        Map<String, String> owners = new HashMap<>();
        if (group != null) {
            for (ConsumerGroupMember member : group.members().values()) {
                for (Assignment set : List.of(member.assignedPartitions(), member.partitionsPendingRevocation())) {
                    set.partitions().forEach((topic, parts) -> parts.forEach(p -> {
                        String previous = owners.put(topic + "-" + p, member.memberId());
                        if (previous != null && !previous.equals(member.memberId())) {
                            throw new AssertionError("step " + step + ": " + topic + "-" + p + " owned by " + previous
                                    + " and " + member.memberId());
                        }
                    }));
                }
            }
        }
        Map<String, String> believed = new HashMap<>();
        for (Client client : clients) {
            ConsumerGroupMember member = group == null ? null : group.member(client.memberId);
            if (member == null || !client.joined) {
                continue;
            }
            client.owned.partitions().forEach((topic, parts) -> parts.forEach(p -> {
                String key = topic + "-" + p;
                if (!client.memberId.equals(owners.get(key))) {
                    throw new AssertionError("step " + step + ": client " + client.memberId + " believes it owns "
                            + key + ", the coordinator says " + owners.get(key));
                }
                String previous = believed.put(key, client.memberId);
                if (previous != null) {
                    throw new AssertionError("step " + step + ": clients " + previous + " and " + client.memberId
                            + " both own " + key);
                }
            }));
        }
    }

    private static Assignment union(Assignment a, Assignment b) {
        Map<UUID, SortedSet<Integer>> all = new TreeMap<>();
        for (Assignment x : List.of(a, b)) {
            x.partitions().forEach((t, p) -> all.computeIfAbsent(t, k -> new TreeSet<>()).addAll(p));
        }
        return Assignment.of(all);
    }
}
