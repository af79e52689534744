package io.cohort.client.assignor;

import static io.cohort.client.assignor.AssignorTesting.assertNoSingleMoveHelps;
import static io.cohort.client.assignor.AssignorTesting.assertValid;
import static io.cohort.client.assignor.AssignorTesting.forEachSeed;
import static io.cohort.client.assignor.AssignorTesting.owning;
import static io.cohort.client.assignor.AssignorTesting.scenarioWithOwnership;
import static io.cohort.client.assignor.AssignorTesting.shuffled;
import static io.cohort.client.assignor.AssignorTesting.spread;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.assignor.AssignorTesting.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Properties every assignor must have, over random groups with random previous ownership (which
 * range and round robin ignore). For the cooperative assignor "the assignment" is where the group
 * settles after the follow-up rebalances (see {@link #settle}).
 */
class AssignorPropertiesTest {

    static Stream<ConsumerPartitionAssignor> assignors() {
        return Stream.of(new RangeAssignor(), new RoundRobinAssignor(), new StickyAssignor(),
                new CooperativeStickyAssignor());
    }

    /** The result of one rebalance and, for the cooperative protocol, of the rebalances it triggers. */
    record Settled(Map<String, Assignment> assignment, int rounds) {
    }

    /**
     * Runs rebalances as the members would: each member owns what it was assigned last (it revoked
     * the rest) in the next generation, until no member lost a partition and nothing was withheld.
     * Eager assignors settle in one round.
     */
    static Settled settle(ConsumerPartitionAssignor assignor, Scenario scenario) {
        Map<String, Assignment> result = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
        if (!(assignor instanceof CooperativeStickyAssignor)) {
            return new Settled(result, 1);
        }
        int generation = scenario.subscriptions().values().stream().mapToInt(Subscription::generationId).max()
                .orElse(0) + 1;
        SortedMap<String, Subscription> current = owning(scenario.subscriptions(), result, generation);
        for (int round = 2; round <= 10; round++) {
            Map<String, Assignment> next = assignor.assign(scenario.partitionsPerTopic(), current);
            boolean revoked = false;
            for (String member : next.keySet()) {
                revoked |= !next.get(member).partitions().containsAll(result.get(member).partitions());
            }
            boolean complete = AssignorTesting.owners(next).size()
                    == AssignorTesting.assignablePartitions(scenario.partitionsPerTopic(), current).size();
            result = next;
            if (!revoked && complete) {
                return new Settled(result, round);
            }
            generation++;
            current = owning(scenario.subscriptions(), result, generation);
        }
        throw new AssertionError("the cooperative rebalances did not settle in 10 rounds");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void assignsEveryPartitionOnceToASubscriber(ConsumerPartitionAssignor assignor) {
        forEachSeed(assignor.name() + ": valid and complete", random -> {
            Scenario scenario = scenarioWithOwnership(random, random.nextBoolean());
            Settled settled = settle(assignor, scenario);
            assertValid(scenario.partitionsPerTopic(), scenario.subscriptions(), settled.assignment(), true);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void balancedWithinOneWhenSubscriptionsAreUniform(ConsumerPartitionAssignor assignor) {
        forEachSeed(assignor.name() + ": balanced", random -> {
            Scenario scenario = scenarioWithOwnership(random, true);
            Settled settled = settle(assignor, scenario);
            if (assignor instanceof RangeAssignor) {
                // Range balances each topic on its own; over several topics the first members get the
                // extra partition of every topic (Kafka's example: 4 and 2), so check per topic.
                for (String topic : scenario.partitionsPerTopic().keySet()) {
                    assertThat(spread(onlyTopic(settled.assignment(), topic)))
                            .as("max - min partitions of %s per member\n%s", topic, scenario).isLessThanOrEqualTo(1);
                }
            } else {
                assertThat(spread(settled.assignment())).as("max - min partitions per member\n%s", scenario)
                        .isLessThanOrEqualTo(1);
            }
            // Cooperative: one rebalance to revoke, one follow-up to hand out, nothing more.
            assertThat(settled.rounds()).as("rebalances").isLessThanOrEqualTo(2);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void deterministicWhateverTheInputOrder(ConsumerPartitionAssignor assignor) {
        forEachSeed(assignor.name() + ": deterministic", random -> {
            Scenario scenario = scenarioWithOwnership(random, random.nextBoolean());
            Map<String, Assignment> first = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
            Map<String, Assignment> again = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
            Map<String, Assignment> reordered = assignor.assign(scenario.partitionsPerTopic(),
                    shuffled(random, scenario.subscriptions()));
            assertThat(again).as("same input again").isEqualTo(first);
            assertThat(reordered).as("same input, other map and list orders").isEqualTo(first);
        });
    }

    /** Sticky and cooperative only: range and round robin make no balance promise here. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void stickyAssignorsBalanceDifferentSubscriptionsAsFarAsSingleMovesGo(ConsumerPartitionAssignor assignor) {
        if (!(assignor instanceof StickyAssignor) && !(assignor instanceof CooperativeStickyAssignor)) {
            return;
        }
        forEachSeed(assignor.name() + ": non-uniform balance", random -> {
            Scenario scenario = scenarioWithOwnership(random, false);
            Settled settled = settle(assignor, scenario);
            assertValid(scenario.partitionsPerTopic(), scenario.subscriptions(), settled.assignment(), true);
            assertNoSingleMoveHelps(scenario.subscriptions(), settled.assignment());
        });
    }

    /** 500 members, 2,000 partitions: correctness only, no timing. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("assignors")
    void scaleSmoke(ConsumerPartitionAssignor assignor) {
        Random random = new Random(42);
        SortedMap<String, Integer> partitionsPerTopic = new TreeMap<>();
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            topics.add("topic-" + t);
            partitionsPerTopic.put("topic-" + t, 250);
        }
        SortedMap<String, Subscription> subscriptions = new TreeMap<>();
        for (int m = 0; m < 500; m++) {
            subscriptions.put(String.format("member-%03d", m), new Subscription(topics));
        }
        Scenario scenario = new Scenario(partitionsPerTopic, subscriptions, true);

        Settled fresh = settle(assignor, scenario);
        assertValid(partitionsPerTopic, subscriptions, fresh.assignment(), true);
        assertBalanced(assignor, topics, fresh.assignment());

        // The next rebalance: 40 members left, 60 joined, the others own what they had.
        SortedMap<String, Subscription> next = new TreeMap<>();
        owning(subscriptions, fresh.assignment(), 1).forEach((member, s) -> {
            if (random.nextInt(500) >= 40) {
                next.put(member, s);
            }
        });
        for (int m = 0; m < 60; m++) {
            next.put(String.format("joined-%03d", m), new Subscription(topics, com.google.protobuf.ByteString.EMPTY,
                    List.of(), Subscription.NO_GENERATION, Optional.empty(), Optional.empty()));
        }
        Scenario rebalance = new Scenario(partitionsPerTopic, next, true);
        Settled settled = settle(assignor, rebalance);
        assertValid(partitionsPerTopic, next, settled.assignment(), true);
        assertBalanced(assignor, topics, settled.assignment());
        if (assignor instanceof StickyAssignor || assignor instanceof CooperativeStickyAssignor) {
            // Each stayer keeps min(owned, floor(2000 / members)) of its partitions.
            int floor = 2000 / next.size();
            Map<String, Assignment> after = settled.assignment();
            next.forEach((member, s) -> {
                long kept = s.ownedPartitions().stream().filter(after.get(member).partitions()::contains).count();
                assertThat(kept).as(member).isGreaterThanOrEqualTo(Math.min(s.ownedPartitions().size(), floor));
            });
        }
    }

    /** Balanced within one; for range, topic by topic (see {@link #balancedWithinOneWhenSubscriptionsAreUniform}). */
    private static void assertBalanced(ConsumerPartitionAssignor assignor, List<String> topics,
            Map<String, Assignment> assignment) {
        if (assignor instanceof RangeAssignor) {
            for (String topic : topics) {
                assertThat(spread(onlyTopic(assignment, topic))).as("spread of %s", topic).isLessThanOrEqualTo(1);
            }
        } else {
            assertThat(spread(assignment)).as("spread").isLessThanOrEqualTo(1);
        }
    }

    /** The assignment restricted to the partitions of {@code topic}. */
    private static Map<String, Assignment> onlyTopic(Map<String, Assignment> assignment, String topic) {
        Map<String, Assignment> restricted = new TreeMap<>();
        assignment.forEach((member, a) -> restricted.put(member,
                new Assignment(a.partitions().stream().filter(tp -> tp.topic().equals(topic)).toList())));
        return restricted;
    }
}
