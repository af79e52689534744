package io.cohort.client.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;

/**
 * Seeded scenario generator and checks for the assignor property tests.
 *
 * <p>Every property runs over {@value #DEFAULT_SEEDS} seeds (override the count with
 * {@code -Dcohort.assignor.seeds=N}); a failure names its seed, and {@code -Dcohort.assignor.seed=N}
 * replays that seed alone.
 */
final class AssignorTesting {
    static final int DEFAULT_SEEDS = 500;

    /** A topic that members subscribe to but whose metadata the leader lacks: must be ignored. */
    static final String UNKNOWN_TOPIC = "unknown";
    /** A topic the leader knows but nobody subscribes to: must not be assigned. */
    static final String UNSUBSCRIBED_TOPIC = "unsubscribed";
    /** A topic members may still claim partitions of but which no longer exists. */
    static final String DELETED_TOPIC = "deleted";

    private AssignorTesting() {
    }

    /** One generated assignor input. */
    record Scenario(SortedMap<String, Integer> partitionsPerTopic, SortedMap<String, Subscription> subscriptions,
            boolean uniform) {
        Scenario withSubscriptions(SortedMap<String, Subscription> newSubscriptions) {
            return new Scenario(partitionsPerTopic, newSubscriptions, uniform);
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("partitionsPerTopic=").append(partitionsPerTopic).append('\n');
            subscriptions.forEach((member, s) -> text.append("  ").append(member)
                    .append(" topics=").append(s.topics())
                    .append(" gen=").append(s.generationId())
                    .append(s.groupInstanceId().map(i -> " instance=" + i).orElse(""))
                    .append(" owned=").append(s.ownedPartitions()).append('\n'));
            return text.toString();
        }
    }

    /** A property checked for one seed; gets a Random seeded with it. */
    interface SeedCheck {
        void check(Random random) throws Exception;
    }

    /** The seeds to run: the replayed one, or 0 until the configured count. */
    static long[] seeds() {
        String replay = System.getProperty("cohort.assignor.seed");
        if (replay != null && !replay.isBlank()) {
            return new long[] {Long.parseLong(replay.trim())};
        }
        return LongStream.range(0, Integer.getInteger("cohort.assignor.seeds", DEFAULT_SEEDS)).toArray();
    }

    /** Runs {@code check} for every seed; a failure is rethrown naming the seed and how to replay it. */
    static void forEachSeed(String property, SeedCheck check) {
        for (long seed : seeds()) {
            try {
                check.check(new Random(seed));
            } catch (AssertionError | Exception e) {
                throw new AssertionError(property + " failed for seed " + seed
                        + " (replay with -Dcohort.assignor.seed=" + seed + "):\n" + e.getMessage(), e);
            }
        }
    }

    // ---------------------------------------------------------------- generation

    /** A random group: 1-5 topics of 1-40 partitions, 1-30 members, subscriptions uniform or not. */
    static Scenario scenario(Random random, boolean uniform) {
        SortedMap<String, Integer> partitionsPerTopic = new TreeMap<>();
        int topicCount = 1 + random.nextInt(5);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            topics.add("t" + t);
            partitionsPerTopic.put("t" + t, 1 + random.nextInt(40));
        }
        if (random.nextInt(5) == 0) {
            partitionsPerTopic.put(UNSUBSCRIBED_TOPIC, 1 + random.nextInt(10));
        }
        boolean withUnknownTopic = random.nextInt(5) == 0;

        int memberCount = 1 + random.nextInt(30);
        Set<String> ids = new TreeSet<>();
        while (ids.size() < memberCount) {
            ids.add("member-" + Integer.toString(random.nextInt(1_000_000), 36));
        }
        SortedMap<String, Subscription> subscriptions = new TreeMap<>();
        for (String id : ids) {
            List<String> subscribed = new ArrayList<>();
            if (uniform) {
                subscribed.addAll(topics);
            } else {
                for (String topic : topics) {
                    if (random.nextBoolean()) {
                        subscribed.add(topic);
                    }
                }
                if (subscribed.isEmpty() && random.nextInt(4) != 0) { // a few members subscribe to nothing known
                    subscribed.add(topics.get(random.nextInt(topics.size())));
                }
            }
            if (withUnknownTopic && (uniform || random.nextBoolean())) {
                subscribed.add(UNKNOWN_TOPIC);
            }
            Collections.shuffle(subscribed, random);
            Optional<String> instance = random.nextInt(4) == 0
                    ? Optional.of("instance-" + Integer.toString(random.nextInt(1_000_000), 36)) : Optional.empty();
            subscriptions.put(id, new Subscription(subscribed, ByteString.EMPTY, List.of(),
                    Subscription.NO_GENERATION, instance, Optional.empty()));
        }
        return new Scenario(partitionsPerTopic, subscriptions, uniform);
    }

    /** {@link #scenario} with random previous ownership, as {@link #withRandomOwnership} adds it. */
    static Scenario scenarioWithOwnership(Random random, boolean uniform) {
        Scenario scenario = scenario(random, uniform);
        return scenario.withSubscriptions(withRandomOwnership(random, scenario));
    }

    /**
     * Random previous ownership: partitions dealt (balanced over some members, randomly, or skewed
     * towards a few), including claims the assignors must disregard (partitions of topics the member
     * does not subscribe to, of a deleted topic, beyond the current partition count), members of
     * stale generations, and partitions claimed twice, with the same or different generations.
     */
    static SortedMap<String, Subscription> withRandomOwnership(Random random, Scenario scenario) {
        List<TopicPartition> previous = new ArrayList<>();
        scenario.partitionsPerTopic().forEach((topic, count) -> {
            int before = random.nextInt(6) == 0 ? count + 1 + random.nextInt(3) : count; // some topics shrank
            for (int p = 0; p < before; p++) {
                previous.add(new TopicPartition(topic, p));
            }
        });
        if (random.nextInt(6) == 0) {
            int deletedPartitions = 1 + random.nextInt(5);
            for (int p = 0; p < deletedPartitions; p++) {
                previous.add(new TopicPartition(DELETED_TOPIC, p));
            }
        }
        Collections.shuffle(previous, random);

        List<String> members = new ArrayList<>(scenario.subscriptions().keySet());
        Map<String, List<TopicPartition>> owned = new TreeMap<>();
        members.forEach(m -> owned.put(m, new ArrayList<>()));
        switch (random.nextInt(3)) {
            case 0 -> { // balanced over a random subset; the others are new members
                List<String> previousMembers = new ArrayList<>(members);
                Collections.shuffle(previousMembers, random);
                previousMembers = previousMembers.subList(0, 1 + random.nextInt(previousMembers.size()));
                for (int i = 0; i < previous.size(); i++) {
                    owned.get(previousMembers.get(i % previousMembers.size())).add(previous.get(i));
                }
            }
            case 1 -> { // random; some partitions belonged to members that left
                for (TopicPartition tp : previous) {
                    if (random.nextInt(5) != 0) {
                        owned.get(members.get(random.nextInt(members.size()))).add(tp);
                    }
                }
            }
            default -> { // skewed: a few members own most
                int heavy = 1 + random.nextInt(Math.min(3, members.size()));
                for (TopicPartition tp : previous) {
                    int m = random.nextInt(4) != 0 ? random.nextInt(heavy) : random.nextInt(members.size());
                    owned.get(members.get(m)).add(tp);
                }
            }
        }
        // Conflicting claims: a second member claims the partition too.
        if (members.size() > 1 && random.nextBoolean()) {
            for (TopicPartition tp : previous) {
                if (random.nextInt(8) == 0) {
                    owned.get(members.get(random.nextInt(members.size()))).add(tp);
                }
            }
        }

        int generation = 2 + random.nextInt(20);
        SortedMap<String, Subscription> subscriptions = new TreeMap<>();
        scenario.subscriptions().forEach((member, s) -> {
            List<TopicPartition> list = new ArrayList<>(new TreeSet<>(owned.get(member)));
            Collections.shuffle(list, random);
            int memberGeneration;
            if (list.isEmpty() && random.nextBoolean()) {
                memberGeneration = Subscription.NO_GENERATION;
            } else if (random.nextInt(6) == 0) {
                memberGeneration = generation - 1 - random.nextInt(2); // missed a rebalance or two
            } else {
                memberGeneration = generation;
            }
            subscriptions.put(member, new Subscription(s.topics(), s.userData(), list, memberGeneration,
                    s.groupInstanceId(), s.rackId()));
        });
        return subscriptions;
    }

    /** The subscriptions with each member owning exactly {@code assignment}'s partitions in {@code generation}. */
    static SortedMap<String, Subscription> owning(Map<String, Subscription> subscriptions,
            Map<String, Assignment> assignment, int generation) {
        SortedMap<String, Subscription> next = new TreeMap<>();
        subscriptions.forEach((member, s) -> next.put(member, new Subscription(s.topics(), s.userData(),
                assignment.get(member).partitions(), generation, s.groupInstanceId(), s.rackId())));
        return next;
    }

    /** The same subscriptions in another map order, with shuffled topic and owned lists. */
    static Map<String, Subscription> shuffled(Random random, Map<String, Subscription> subscriptions) {
        List<String> members = new ArrayList<>(subscriptions.keySet());
        Collections.shuffle(members, random);
        Map<String, Subscription> result = new LinkedHashMap<>();
        for (String member : members) {
            Subscription s = subscriptions.get(member);
            List<String> topics = new ArrayList<>(s.topics());
            List<TopicPartition> owned = new ArrayList<>(s.ownedPartitions());
            Collections.shuffle(topics, random);
            Collections.shuffle(owned, random);
            result.put(member, new Subscription(topics, s.userData(), owned, s.generationId(), s.groupInstanceId(),
                    s.rackId()));
        }
        return result;
    }

    /** Plain subscriptions without instance ids or ownership, by member id. */
    static SortedMap<String, Subscription> subscriptions(Object... memberAndTopics) {
        SortedMap<String, Subscription> result = new TreeMap<>();
        for (int i = 0; i < memberAndTopics.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> topics = (List<String>) memberAndTopics[i + 1];
            result.put((String) memberAndTopics[i], new Subscription(topics));
        }
        return result;
    }

    static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    // ---------------------------------------------------------------- expectations

    /** Every partition of a topic some member subscribes to and the leader knows, sorted. */
    static TreeSet<TopicPartition> assignablePartitions(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        TreeSet<TopicPartition> partitions = new TreeSet<>();
        subscriptions.values().forEach(s -> s.topics().forEach(topic -> {
            for (int p = 0; p < partitionsPerTopic.getOrDefault(topic, 0); p++) {
                partitions.add(new TopicPartition(topic, p));
            }
        }));
        return partitions;
    }

    /**
     * The previous owners the sticky assignors must respect, worked out independently of them:
     * claims of the member's subscribed, existing partitions; the highest generation wins; a tie at
     * the highest generation leaves the partition without owner.
     */
    static Map<TopicPartition, String> validPreviousOwners(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        Map<TopicPartition, Map<Integer, Set<String>>> claims = new TreeMap<>();
        subscriptions.forEach((member, s) -> {
            for (TopicPartition tp : s.ownedPartitions()) {
                if (s.topics().contains(tp.topic()) && tp.partition() < partitionsPerTopic.getOrDefault(tp.topic(), 0)) {
                    claims.computeIfAbsent(tp, k -> new TreeMap<>())
                            .computeIfAbsent(s.generationId(), k -> new TreeSet<>()).add(member);
                }
            }
        });
        Map<TopicPartition, String> owners = new TreeMap<>();
        claims.forEach((tp, byGeneration) -> {
            Set<String> newest = ((TreeMap<Integer, Set<String>>) byGeneration).lastEntry().getValue();
            if (newest.size() == 1) {
                owners.put(tp, newest.iterator().next());
            }
        });
        return owners;
    }

    // ---------------------------------------------------------------- checks

    /** Partition to member; fails if a partition is assigned twice. */
    static Map<TopicPartition, String> owners(Map<String, Assignment> assignment) {
        Map<TopicPartition, String> owners = new TreeMap<>();
        assignment.forEach((member, a) -> a.partitions().forEach(tp -> {
            String other = owners.put(tp, member);
            assertThat(other).as("%s assigned to both %s and %s", tp, other, member).isNull();
        }));
        return owners;
    }

    /**
     * An entry for every member and nobody else; no partition twice; only partitions of known topics
     * the member subscribes to; and, if {@code complete}, every assignable partition.
     */
    static void assertValid(Map<String, Integer> partitionsPerTopic, Map<String, Subscription> subscriptions,
            Map<String, Assignment> assignment, boolean complete) {
        assertThat(assignment.keySet()).as("members with an assignment").isEqualTo(subscriptions.keySet());
        Map<TopicPartition, String> owners = owners(assignment);
        owners.forEach((tp, member) -> {
            assertThat(subscriptions.get(member).topics()).as("%s's topics, as it got %s", member, tp)
                    .contains(tp.topic());
            assertThat(tp.partition()).as("%s exists", tp).isLessThan(partitionsPerTopic.getOrDefault(tp.topic(), 0));
        });
        Set<TopicPartition> expected = assignablePartitions(partitionsPerTopic, subscriptions);
        if (complete) {
            assertThat(owners.keySet()).as("assigned partitions").isEqualTo(expected);
        } else {
            assertThat(expected).as("assignable partitions").containsAll(owners.keySet());
        }
    }

    /** The largest minus the smallest partition count over all members. */
    static int spread(Map<String, Assignment> assignment) {
        int max = assignment.values().stream().mapToInt(a -> a.partitions().size()).max().orElse(0);
        int min = assignment.values().stream().mapToInt(a -> a.partitions().size()).min().orElse(0);
        return max - min;
    }

    /**
     * Balanced as far as single moves go: no partition could move from its member to another member
     * subscribed to its topic that has two or more partitions fewer.
     */
    static void assertNoSingleMoveHelps(Map<String, Subscription> subscriptions, Map<String, Assignment> assignment) {
        Map<String, Integer> smallestLoadByTopic = new HashMap<>();
        subscriptions.forEach((member, s) -> s.topics().forEach(topic ->
                smallestLoadByTopic.merge(topic, assignment.get(member).partitions().size(), Math::min)));
        assignment.forEach((member, a) -> a.partitions().forEach(tp ->
                assertThat(a.partitions().size() - smallestLoadByTopic.get(tp.topic()))
                        .as("%s could move from %s (%d partitions) to a subscriber with %d", tp, member,
                                a.partitions().size(), smallestLoadByTopic.get(tp.topic()))
                        .isLessThanOrEqualTo(1)));
    }

    /** How many partitions of {@code before} have another owner (or none) in {@code after}. */
    static int moves(Map<TopicPartition, String> before, Map<String, Assignment> after) {
        Map<TopicPartition, String> afterOwners = owners(after);
        int moved = 0;
        for (Map.Entry<TopicPartition, String> e : before.entrySet()) {
            if (!e.getValue().equals(afterOwners.get(e.getKey()))) {
                moved++;
            }
        }
        return moved;
    }
}
