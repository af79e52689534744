package io.cohort.core.consumer.assignor;

import static io.cohort.core.consumer.assignor.AssignorFixtures.UNKNOWN;
import static io.cohort.core.consumer.assignor.AssignorFixtures.assertValid;
import static io.cohort.core.consumer.assignor.AssignorFixtures.minimumMovesForBalance;
import static io.cohort.core.consumer.assignor.AssignorFixtures.movedPartitions;
import static io.cohort.core.consumer.assignor.AssignorFixtures.withCurrentTargets;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Properties of both assignors over seeded random groups (a failure names its seed, and the same
 * seed rebuilds the same group): validity, balance, stickiness after one member joins or leaves,
 * stability, determinism, and range's co-partitioning and contiguity.
 */
class AssignorPropertiesTest {
    private static final int SEEDS = 300;
    private static final String[] RACKS = {"r0", "r1", "r2"};

    private final UniformAssignor uniform = new UniformAssignor();
    private final RangeAssignor range = new RangeAssignor();

    @Test
    void testUniformHomogeneousIsValidBalancedAndStable() {
        for (int seed = 0; seed < SEEDS; seed++) {
            AssignmentSpec spec = randomSpec(new Random(seed), true, seed % 2 == 0);
            GroupAssignment result = uniform.assign(spec);
            assertValid(spec, result);
            assertThat(spread(result)).as("seed %d: max - min partitions", seed).isLessThanOrEqualTo(1);
            assertThat(uniform.assign(withCurrentTargets(spec, result))).as("seed %d: stable", seed)
                    .isEqualTo(result);
        }
    }

    @Test
    void testUniformHeterogeneousIsValidAsBalancedAsSubscriptionsAllowAndStable() {
        for (int seed = 0; seed < SEEDS; seed++) {
            AssignmentSpec spec = randomSpec(new Random(seed), false, seed % 2 == 0);
            GroupAssignment result = uniform.assign(spec);
            assertValid(spec, result);
            assertNoCostReducingPath(seed, spec, result);
            assertThat(uniform.assign(withCurrentTargets(spec, result))).as("seed %d: stable", seed)
                    .isEqualTo(result);
        }
    }

    @Test
    void testUniformHeterogeneousBalancesFromAnyCurrentTarget() {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            AssignmentSpec spec = withRandomCurrentTargets(random, randomSpec(random, false, seed % 2 == 0));
            GroupAssignment result = uniform.assign(spec);
            assertValid(spec, result);
            assertNoCostReducingPath(seed, spec, result);
        }
    }

    @Test
    void testUniformHomogeneousMovesNoMoreThanBalanceRequiresWhenOneMemberJoins() {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            AssignmentSpec before = randomSpec(random, true, seed % 2 == 0);
            GroupAssignment first = uniform.assign(before);
            AssignmentSpec joined = join(withCurrentTargets(before, first), random);
            GroupAssignment second = uniform.assign(joined);
            assertValid(joined, second);
            assertThat(spread(second)).isLessThanOrEqualTo(1);
            List<Integer> counts = new ArrayList<>(AssignorFixtures.loads(first).values());
            counts.add(0);
            assertThat(movedPartitions(first, second)).as("seed %d: partitions moved", seed)
                    .isLessThanOrEqualTo(minimumMovesForBalance(counts, counts.size(), totalPartitions(before)));
        }
    }

    @Test
    void testUniformHomogeneousMovesNoMoreThanBalanceRequiresWhenOneMemberLeaves() {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            AssignmentSpec before = randomSpec(random, true, seed % 2 == 0);
            if (before.members().size() < 2) {
                continue;
            }
            GroupAssignment first = uniform.assign(before);
            AssignmentSpec left = leave(withCurrentTargets(before, first), random);
            GroupAssignment second = uniform.assign(left);
            assertValid(left, second);
            List<Integer> counts = new ArrayList<>();
            left.members().keySet().forEach(id -> counts.add(first.members().get(id).size()));
            assertThat(movedPartitions(first, second)).as("seed %d: partitions moved", seed)
                    .isLessThanOrEqualTo(minimumMovesForBalance(counts, counts.size(), totalPartitions(before)));
        }
    }

    @Test
    void testRangeIsValidBalancedPerTopicCoPartitionedAndStable() {
        for (int seed = 0; seed < SEEDS; seed++) {
            AssignmentSpec spec = randomSpec(new Random(seed), seed % 3 != 0, false);
            GroupAssignment result = range.assign(spec);
            assertValid(spec, result);
            assertRangeQuotas(seed, spec, result);
            assertContiguousRangesInMemberOrder(seed, spec, result);
            if (coPartitionable(spec)) {
                assertCoPartitioned(seed, result);
            }
            assertThat(range.assign(withCurrentTargets(spec, result))).as("seed %d: stable", seed)
                    .isEqualTo(result);
        }
    }

    @Test
    void testRangeMembersKeepTheirPartitionsWithinQuotaWhenOneMemberJoinsOrLeaves() {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            AssignmentSpec before = randomSpec(random, seed % 3 != 0, false);
            GroupAssignment first = range.assign(before);
            AssignmentSpec after = random.nextBoolean() || before.members().size() < 2
                    ? join(withCurrentTargets(before, first), random)
                    : leave(withCurrentTargets(before, first), random);
            GroupAssignment second = range.assign(after);
            assertValid(after, second);
            assertRangeQuotas(seed, after, second);
            if (coPartitionable(after)) {
                assertCoPartitioned(seed, second);
            }
            for (String member : after.members().keySet()) {
                Assignment was = first.members().getOrDefault(member, Assignment.EMPTY);
                for (Map.Entry<UUID, SortedSet<Integer>> topic : was.partitions().entrySet()) {
                    int subscribers = subscribersOf(after, topic.getKey()).size();
                    int minimumQuota = after.topics().get(topic.getKey()).partitionCount() / subscribers;
                    long kept = topic.getValue().stream()
                            .filter(p -> second.members().get(member).contains(topic.getKey(), p)).count();
                    assertThat(kept).as("seed %d: %s keeps of %s", seed, member, topic.getKey())
                            .isGreaterThanOrEqualTo(Math.min(topic.getValue().size(), minimumQuota));
                }
            }
        }
    }

    @Test
    void testSameSpecBuiltInAnotherInsertionOrderGivesTheSameAssignment() {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            AssignmentSpec spec = withRandomCurrentTargets(random, randomSpec(random, seed % 2 == 0, seed % 3 == 0));
            AssignmentSpec shuffled = reinserted(spec, new Random(seed + 1_000_000L));
            for (ServerAssignor assignor : ServerAssignors.defaults()) {
                GroupAssignment once = assignor.assign(spec);
                assertThat(assignor.assign(shuffled)).as("seed %d, %s", seed, assignor.name()).isEqualTo(once);
                assertThat(assignor.assign(spec)).as("seed %d, %s again", seed, assignor.name()).isEqualTo(once);
            }
        }
    }

    @Test
    void testRacksNeverCostBalance() {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            for (boolean homogeneous : new boolean[] {true, false}) {
                AssignmentSpec spec = withRandomCurrentTargets(random, randomSpec(random, homogeneous, true));
                GroupAssignment result = uniform.assign(spec);
                assertValid(spec, result);
                if (homogeneous) {
                    assertThat(spread(result)).as("seed %d", seed).isLessThanOrEqualTo(1);
                } else {
                    assertNoCostReducingPath(seed, spec, result);
                }
            }
        }
    }

    @Test
    void testFreshHomogeneousAssignmentMatchesAsManyRacksAsTheCountsAllow() {
        // With one rack per partition, the most on-rack placements for the members' partition
        // counts is, per rack, min(partitions on it, partitions its members get); the assignor must
        // reach it.
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            AssignmentSpec spec = singleRackPartitions(randomSpec(random, true, true), random);
            GroupAssignment result = uniform.assign(spec);
            assertValid(spec, result);
            Map<String, Integer> partitionsOnRack = new TreeMap<>();
            Map<String, Integer> partitionsOfRacksMembers = new TreeMap<>();
            int onRack = 0;
            for (Map.Entry<String, Assignment> e : result.members().entrySet()) {
                String rack = spec.members().get(e.getKey()).rackId();
                if (rack != null) {
                    partitionsOfRacksMembers.merge(rack, e.getValue().size(), Integer::sum);
                }
                for (Map.Entry<UUID, SortedSet<Integer>> topic : e.getValue().partitions().entrySet()) {
                    for (int p : topic.getValue()) {
                        String partitionRack = spec.topics().get(topic.getKey()).racksOf(p).get(0);
                        partitionsOnRack.merge(partitionRack, 1, Integer::sum);
                        onRack += partitionRack.equals(rack) ? 1 : 0;
                    }
                }
            }
            int best = 0;
            for (Map.Entry<String, Integer> rack : partitionsOfRacksMembers.entrySet()) {
                best += Math.min(rack.getValue(), partitionsOnRack.getOrDefault(rack.getKey(), 0));
            }
            assertThat(onRack).as("seed %d: on-rack placements", seed).isEqualTo(best);
        }
    }

    // ---- generators ----

    static AssignmentSpec randomSpec(Random random, boolean homogeneous, boolean racks) {
        int topicCount = 1 + random.nextInt(5);
        // A quarter of the groups have topics of one partition count (co-partitionable for range).
        int sharedCount = random.nextInt(4) == 0 ? 1 + random.nextInt(40) : 0;
        List<TopicMetadata> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            UUID id = new UUID(random.nextLong(), random.nextLong());
            int partitions = sharedCount > 0 ? sharedCount : 1 + random.nextInt(40);
            List<List<String>> partitionRacks = new ArrayList<>();
            if (racks) {
                for (int p = 0; p < partitions; p++) {
                    partitionRacks.add(List.copyOf(new TreeSet<>(List.of(RACKS[random.nextInt(3)],
                            RACKS[random.nextInt(3)]))));
                }
            }
            topics.add(new TopicMetadata(id, "t" + t, partitions, partitionRacks));
        }
        int memberCount = 1 + random.nextInt(15);
        TreeSet<UUID> shared = randomSubscription(random, topics);
        AssignorFixtures.Builder builder = AssignorFixtures.spec().topics(topics.toArray(new TopicMetadata[0]));
        for (int m = 0; m < memberCount; m++) {
            String rack = racks && random.nextInt(4) != 0 ? RACKS[random.nextInt(3)] : null;
            TreeSet<UUID> subscription = homogeneous ? shared : randomSubscription(random, topics);
            builder.member(String.format("m%03d", random.nextInt(1000)) + "-" + m, rack, subscription,
                    Assignment.EMPTY);
        }
        return builder.build();
    }

    private static TreeSet<UUID> randomSubscription(Random random, List<TopicMetadata> topics) {
        TreeSet<UUID> subscription = new TreeSet<>();
        subscription.add(topics.get(random.nextInt(topics.size())).topicId());
        for (TopicMetadata topic : topics) {
            if (random.nextInt(3) == 0) {
                subscription.add(topic.topicId());
            }
        }
        if (random.nextInt(8) == 0) {
            subscription.add(UNKNOWN);
        }
        return subscription;
    }

    /** Current targets of random partitions (overlapping, unsubscribed, beyond the count: all allowed). */
    static AssignmentSpec withRandomCurrentTargets(Random random, AssignmentSpec spec) {
        TreeMap<String, AssignmentSpec.MemberSpec> members = new TreeMap<>();
        spec.members().forEach((id, m) -> {
            Map<UUID, List<Integer>> current = new TreeMap<>();
            for (TopicMetadata topic : spec.topics().values()) {
                if (random.nextInt(3) == 0) {
                    List<Integer> partitions = new ArrayList<>();
                    for (int i = random.nextInt(topic.partitionCount() + 2); i > 0; i--) {
                        partitions.add(random.nextInt(topic.partitionCount() + 1));
                    }
                    current.put(topic.topicId(), partitions);
                }
            }
            members.put(id, new AssignmentSpec.MemberSpec(m.rackId(), m.subscribedTopicIds(), Assignment.of(current)));
        });
        return new AssignmentSpec(members, spec.topics());
    }

    /** A new member with no current target, subscribing as a random existing member does. */
    private static AssignmentSpec join(AssignmentSpec spec, Random random) {
        List<AssignmentSpec.MemberSpec> existing = new ArrayList<>(spec.members().values());
        AssignmentSpec.MemberSpec like = existing.get(random.nextInt(existing.size()));
        TreeMap<String, AssignmentSpec.MemberSpec> members = new TreeMap<>(spec.members());
        members.put("joiner-" + random.nextInt(1000),
                new AssignmentSpec.MemberSpec(like.rackId(), like.subscribedTopicIds(), Assignment.EMPTY));
        return new AssignmentSpec(members, spec.topics());
    }

    private static AssignmentSpec leave(AssignmentSpec spec, Random random) {
        List<String> ids = new ArrayList<>(spec.members().keySet());
        TreeMap<String, AssignmentSpec.MemberSpec> members = new TreeMap<>(spec.members());
        members.remove(ids.get(random.nextInt(ids.size())));
        return new AssignmentSpec(members, spec.topics());
    }

    /** The same spec, its members and topics put into hash maps in a shuffled order. */
    private static AssignmentSpec reinserted(AssignmentSpec spec, Random random) {
        List<String> ids = new ArrayList<>(spec.members().keySet());
        Collections.shuffle(ids, random);
        Map<String, AssignmentSpec.MemberSpec> members = new LinkedHashMap<>();
        for (String id : ids) {
            AssignmentSpec.MemberSpec m = spec.members().get(id);
            List<UUID> subscription = new ArrayList<>(m.subscribedTopicIds());
            Collections.shuffle(subscription, random);
            members.put(id, new AssignmentSpec.MemberSpec(m.rackId(), new TreeSet<>(subscription), m.currentTarget()));
        }
        List<UUID> topicIds = new ArrayList<>(spec.topics().keySet());
        Collections.shuffle(topicIds, random);
        Map<UUID, TopicMetadata> topics = new LinkedHashMap<>();
        topicIds.forEach(id -> topics.put(id, spec.topics().get(id)));
        return new AssignmentSpec(new TreeMap<>(members), new TreeMap<>(topics));
    }

    private static AssignmentSpec singleRackPartitions(AssignmentSpec spec, Random random) {
        TreeMap<UUID, TopicMetadata> topics = new TreeMap<>();
        spec.topics().forEach((id, t) -> {
            List<List<String>> racks = new ArrayList<>();
            for (int p = 0; p < t.partitionCount(); p++) {
                racks.add(List.of(RACKS[random.nextInt(RACKS.length)]));
            }
            topics.put(id, new TopicMetadata(id, t.name(), t.partitionCount(), racks));
        });
        return new AssignmentSpec(spec.members(), topics);
    }

    // ---- checks ----

    private static int spread(GroupAssignment result) {
        List<Integer> loads = new ArrayList<>(AssignorFixtures.loads(result).values());
        return loads.isEmpty() ? 0 : Collections.max(loads) - Collections.min(loads);
    }

    private static int totalPartitions(AssignmentSpec spec) {
        TreeSet<UUID> subscribed = new TreeSet<>();
        spec.members().values().forEach(m -> subscribed.addAll(m.subscribedTopicIds()));
        int total = 0;
        for (UUID id : subscribed) {
            TopicMetadata topic = spec.topics().get(id);
            total += topic == null ? 0 : topic.partitionCount();
        }
        return total;
    }

    private static List<String> subscribersOf(AssignmentSpec spec, UUID topic) {
        List<String> subscribers = new ArrayList<>();
        spec.members().forEach((id, m) -> {
            if (m.subscribedTopicIds().contains(topic)) {
                subscribers.add(id);
            }
        });
        return subscribers;
    }

    /**
     * The oracle of "as balanced as the subscriptions allow": no member can pass a partition along
     * a chain of subscriptions to a member holding two or more fewer (the optimality condition of
     * semi-matchings), checked by brute force.
     */
    private static void assertNoCostReducingPath(int seed, AssignmentSpec spec, GroupAssignment result) {
        Map<String, Integer> loads = AssignorFixtures.loads(result);
        for (String start : spec.members().keySet()) {
            ArrayDeque<String> queue = new ArrayDeque<>(List.of(start));
            TreeSet<String> seen = new TreeSet<>(List.of(start));
            while (!queue.isEmpty()) {
                String giver = queue.poll();
                for (UUID topic : result.members().get(giver).partitions().keySet()) {
                    for (String taker : subscribersOf(spec, topic)) {
                        if (seen.add(taker)) {
                            assertThat(loads.get(start) - loads.get(taker))
                                    .as("seed %d: %s (%d) can pass a partition to %s (%d)", seed, start,
                                            loads.get(start), taker, loads.get(taker))
                                    .isLessThan(2);
                            queue.add(taker);
                        }
                    }
                }
            }
        }
    }

    private static void assertRangeQuotas(int seed, AssignmentSpec spec, GroupAssignment result) {
        for (TopicMetadata topic : spec.topics().values()) {
            List<String> subscribers = subscribersOf(spec, topic.topicId());
            if (subscribers.isEmpty()) {
                continue;
            }
            int minimum = topic.partitionCount() / subscribers.size();
            int withExtra = 0;
            for (String member : subscribers) {
                int count = result.members().get(member).partitionsOf(topic.topicId()).size();
                assertThat(count).as("seed %d: %s's partitions of %s", seed, member, topic.name())
                        .isBetween(minimum, minimum + 1);
                withExtra += count - minimum;
            }
            assertThat(withExtra).isEqualTo(topic.partitionCount() % subscribers.size());
        }
    }

    /** A first assignment (no current targets): each topic's subscribers hold consecutive ranges. */
    private static void assertContiguousRangesInMemberOrder(int seed, AssignmentSpec spec, GroupAssignment result) {
        for (TopicMetadata topic : spec.topics().values()) {
            int next = 0;
            for (String member : subscribersOf(spec, topic.topicId())) {
                for (int p : result.members().get(member).partitionsOf(topic.topicId())) {
                    assertThat(p).as("seed %d: %s of %s", seed, member, topic.name()).isEqualTo(next++);
                }
            }
        }
    }

    private static boolean coPartitionable(AssignmentSpec spec) {
        TreeSet<Integer> counts = new TreeSet<>();
        TreeSet<TreeSet<UUID>> subscriptions = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
        spec.members().values().forEach(m -> {
            TreeSet<UUID> known = new TreeSet<>(m.subscribedTopicIds());
            known.retainAll(spec.topics().keySet());
            subscriptions.add(known);
            known.forEach(id -> counts.add(spec.topics().get(id).partitionCount()));
        });
        return subscriptions.size() == 1 && counts.size() == 1;
    }

    private static void assertCoPartitioned(int seed, GroupAssignment result) {
        result.members().forEach((member, assignment) -> {
            TreeSet<SortedSet<Integer>> numbers = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
            numbers.addAll(assignment.partitions().values());
            assertThat(numbers).as("seed %d: %s's partition numbers per topic", seed, member)
                    .hasSizeLessThanOrEqualTo(1);
        });
    }
}
