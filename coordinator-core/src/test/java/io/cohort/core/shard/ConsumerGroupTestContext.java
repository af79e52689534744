package io.cohort.core.shard;

import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.consumer.assignor.ServerAssignor;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.ConsumerGroupHeartbeatResponse;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A shard with consumer-group assignors, a manual clock, a leader's timer service and a topic
 * registry the test controls (what the leader would look up before proposing). As Kafka's
 * GroupMetadataManagerTestContext: {@link #heartbeat} runs the command and replays its records;
 * {@link #sleep} fires due timers. After every command it checks that a snapshot restores to the
 * same state (replay is the only path).
 */
final class ConsumerGroupTestContext {
    static final GroupConfig CONFIG = GroupConfig.defaults().withConsumerSettings(45_000, 5_000,
            Integer.MAX_VALUE, List.of("mock", "roundrobin"));

    final MockPartitionAssignor assignor = new MockPartitionAssignor("mock");
    private final GroupCoordinatorShard shard;
    private long nowMs;
    private final Map<String, TimerOp.Schedule> timers = new LinkedHashMap<>();
    /** The topic registry, by name. */
    final Map<String, TopicMetadata> registry = new TreeMap<>();
    /** Regex resolutions the "leader" supplies, by regex. */
    final Map<String, Set<String>> regexResolutions = new TreeMap<>();
    Result lastResult;

    ConsumerGroupTestContext() {
        this(CONFIG);
    }

    ConsumerGroupTestContext(GroupConfig config) {
        this.shard = new GroupCoordinatorShard(config, List.<ServerAssignor>of(assignor,
                new RoundRobinTestAssignor("roundrobin")));
    }

    GroupCoordinatorShard shard() {
        return shard;
    }

    long nowMs() {
        return nowMs;
    }

    static UUID topicId(String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Adds or replaces a topic in the registry. */
    TopicMetadata createTopic(String name, int partitions) {
        TopicMetadata topic = new TopicMetadata(topicId(name), name, partitions, List.of());
        registry.put(name, topic);
        return topic;
    }

    /** What the leader looks up for a heartbeat: the group's interest plus the request's names and regex. */
    TopicLookup lookupFor(String groupId, List<String> names, String regex) {
        GroupCoordinatorShard.ConsumerGroupInterest interest = shard.consumerGroupInterest(groupId);
        Set<String> lookedUp = new TreeSet<>(interest.subscribedTopicNames());
        if (names != null) {
            lookedUp.addAll(names);
        }
        Set<String> regexes = new TreeSet<>(interest.regexes());
        if (regex != null && !regex.isEmpty()) {
            regexes.add(regex);
        }
        Map<String, Set<String>> resolved = new TreeMap<>();
        for (String r : regexes) {
            Set<String> matched = regexResolutions.getOrDefault(r, Set.of());
            resolved.put(r, matched);
            lookedUp.addAll(matched);
        }
        return TopicLookup.of(lookedUp, registry, resolved);
    }

    /** Applies a command at the current time and absorbs its timers; checks snapshot round trip. */
    Result apply(Command command) {
        Result result = shard.apply(command, nowMs);
        lastResult = result;
        for (TimerOp op : result.timers()) {
            if (op instanceof TimerOp.Schedule schedule) {
                timers.put(schedule.key(), schedule);
            } else {
                timers.remove(op.key());
            }
        }
        assertSnapshotRestoresSameState();
        return result;
    }

    private void assertSnapshotRestoresSameState() {
        List<CoordinatorRecord> snapshot = shard.snapshot();
        GroupCoordinatorShard copy = new GroupCoordinatorShard(CONFIG, List.of());
        copy.restore(snapshot);
        for (String groupId : shard.consumerGroupIds()) {
            if (!shard.consumerGroup(groupId).equals(copy.consumerGroup(groupId))) {
                throw new AssertionError("snapshot does not restore " + shard.consumerGroup(groupId) + ", got "
                        + copy.consumerGroup(groupId));
            }
        }
        if (!copy.snapshot().equals(snapshot)) {
            throw new AssertionError("snapshot of the restored shard differs");
        }
    }

    ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeat request) {
        return (ConsumerGroupHeartbeatResponse) apply(request).immediateResponse();
    }

    List<CoordinatorRecord> lastRecords() {
        return lastResult.records();
    }

    /** Advances the clock and fires every timer due, in deadline order. */
    List<Result> sleep(long ms) {
        nowMs += ms;
        List<Result> fired = new ArrayList<>();
        while (true) {
            Optional<TimerOp.Schedule> due = timers.values().stream().filter(t -> t.deadlineMs() <= nowMs)
                    .min(Comparator.comparingLong(TimerOp.Schedule::deadlineMs));
            if (due.isEmpty()) {
                return fired;
            }
            timers.remove(due.get().key());
            fired.add(apply(due.get().command()));
        }
    }

    /**
     * Moves the clock without firing timers (as if the members kept heartbeating without a log write
     * all along, which only re-arms their sessions): for waits far longer than a session.
     */
    void jumpClock(long ms) {
        nowMs += ms;
        timers.replaceAll((key, t) -> new TimerOp.Schedule(key, t.deadlineMs() + ms, t.command()));
    }

    Optional<TimerOp.Schedule> timer(String key) {
        return Optional.ofNullable(timers.get(key));
    }

    ConsumerGroup group(String groupId) {
        return shard.consumerGroup(groupId);
    }

    HeartbeatBuilder member(String groupId, String memberId) {
        return new HeartbeatBuilder(groupId, memberId);
    }

    /** Partitions of topics by name: {@code assignment("foo", 0, 1)}; chain with {@link #and}. */
    static AssignmentBuilder assignment(String topic, Integer... partitions) {
        return new AssignmentBuilder().and(topic, partitions);
    }

    static final class AssignmentBuilder {
        private final Map<UUID, SortedSet<Integer>> partitions = new TreeMap<>();

        AssignmentBuilder and(String topic, Integer... parts) {
            partitions.computeIfAbsent(topicId(topic), t -> new TreeSet<>()).addAll(List.of(parts));
            return this;
        }

        Assignment build() {
            return Assignment.of(partitions);
        }
    }

    /** A heartbeat request; unset fields are "unchanged" (null / -1). */
    final class HeartbeatBuilder {
        private final String groupId;
        private final String memberId;
        private int memberEpoch;
        private String instanceId;
        private String rackId;
        private int rebalanceTimeoutMs = -1;
        private List<String> topics;
        private String regex;
        private String assignor;
        private Assignment owned;

        HeartbeatBuilder(String groupId, String memberId) {
            this.groupId = groupId;
            this.memberId = memberId;
        }

        /** A join: epoch 0, rebalance timeout 300 s, nothing owned, subscribed to {@code topicNames}. */
        HeartbeatBuilder joining(String... topicNames) {
            memberEpoch = 0;
            rebalanceTimeoutMs = 300_000;
            topics = List.of(topicNames);
            owned = Assignment.EMPTY;
            return this;
        }

        HeartbeatBuilder epoch(int value) {
            memberEpoch = value;
            return this;
        }

        HeartbeatBuilder instanceId(String value) {
            instanceId = value;
            return this;
        }

        HeartbeatBuilder rackId(String value) {
            rackId = value;
            return this;
        }

        HeartbeatBuilder rebalanceTimeoutMs(int value) {
            rebalanceTimeoutMs = value;
            return this;
        }

        HeartbeatBuilder topics(String... names) {
            topics = List.of(names);
            return this;
        }

        HeartbeatBuilder topicList(List<String> names) {
            topics = names;
            return this;
        }

        HeartbeatBuilder regex(String value) {
            regex = value;
            return this;
        }

        HeartbeatBuilder assignor(String value) {
            assignor = value;
            return this;
        }

        HeartbeatBuilder owned(Assignment value) {
            owned = value;
            return this;
        }

        ConsumerGroupHeartbeat build() {
            return new ConsumerGroupHeartbeat(groupId, memberId, memberEpoch, instanceId, rackId, rebalanceTimeoutMs,
                    topics, regex, assignor, owned, "client", "/127.0.0.1", lookupFor(groupId, topics, regex));
        }

        ConsumerGroupHeartbeatResponse send() {
            return heartbeat(build());
        }
    }
}
