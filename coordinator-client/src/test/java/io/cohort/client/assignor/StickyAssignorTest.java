package io.cohort.client.assignor;

import static io.cohort.client.assignor.AssignorTesting.assertNoSingleMoveHelps;
import static io.cohort.client.assignor.AssignorTesting.assertValid;
import static io.cohort.client.assignor.AssignorTesting.assignablePartitions;
import static io.cohort.client.assignor.AssignorTesting.forEachSeed;
import static io.cohort.client.assignor.AssignorTesting.moves;
import static io.cohort.client.assignor.AssignorTesting.owners;
import static io.cohort.client.assignor.AssignorTesting.owning;
import static io.cohort.client.assignor.AssignorTesting.scenario;
import static io.cohort.client.assignor.AssignorTesting.scenarioWithOwnership;
import static io.cohort.client.assignor.AssignorTesting.spread;
import static io.cohort.client.assignor.AssignorTesting.subscriptions;
import static io.cohort.client.assignor.AssignorTesting.tp;
import static io.cohort.client.assignor.AssignorTesting.validPreviousOwners;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.TopicPartition;
import io.cohort.client.assignor.AssignorTesting.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StickyAssignorTest {
    private final StickyAssignor assignor = new StickyAssignor();

    @Test
    void nameAndProtocols() {
        assertThat(assignor.name()).isEqualTo("sticky");
        assertThat(assignor.supportedProtocols()).containsExactly(RebalanceProtocol.EAGER);
    }

    /** Kafka's StickyAssignor documentation, first example: same subscriptions, then C1 leaves. */
    @Test
    void kafkaExampleSameSubscriptions() {
        Map<String, Integer> partitions = Map.of("t0", 2, "t1", 2, "t2", 2, "t3", 2);
        List<String> all = List.of("t0", "t1", "t2", "t3");
        Map<String, Assignment> first = assignor.assign(partitions, subscriptions("C0", all, "C1", all, "C2", all));
        assertThat(first.get("C0").partitions()).containsExactly(tp("t0", 0), tp("t1", 1), tp("t3", 0));
        assertThat(first.get("C1").partitions()).containsExactly(tp("t0", 1), tp("t2", 0), tp("t3", 1));
        assertThat(first.get("C2").partitions()).containsExactly(tp("t1", 0), tp("t2", 1));

        // C1 leaves: C0 and C2 keep everything and split C1's three partitions.
        Map<String, Subscription> afterLeave = new TreeMap<>(Map.of(
                "C0", new Subscription(all, first.get("C0").partitions(), 1),
                "C2", new Subscription(all, first.get("C2").partitions(), 1)));
        Map<String, Assignment> second = assignor.assign(partitions, afterLeave);
        assertThat(second.get("C0").partitions()).containsExactly(tp("t0", 0), tp("t1", 1), tp("t2", 0), tp("t3", 0));
        assertThat(second.get("C2").partitions()).containsExactly(tp("t0", 1), tp("t1", 0), tp("t2", 1), tp("t3", 1));
    }

    /** Kafka's StickyAssignor documentation, second example: different subscriptions, then C0 leaves. */
    @Test
    void kafkaExampleDifferentSubscriptions() {
        Map<String, Integer> partitions = Map.of("t0", 1, "t1", 2, "t2", 3);
        SortedMap<String, Subscription> subscriptions = subscriptions(
                "C0", List.of("t0"), "C1", List.of("t0", "t1"), "C2", List.of("t0", "t1", "t2"));
        Map<String, Assignment> first = assignor.assign(partitions, subscriptions);
        assertThat(first.get("C0").partitions()).containsExactly(tp("t0", 0));
        assertThat(first.get("C1").partitions()).containsExactly(tp("t1", 0), tp("t1", 1));
        assertThat(first.get("C2").partitions()).containsExactly(tp("t2", 0), tp("t2", 1), tp("t2", 2));

        SortedMap<String, Subscription> afterLeave = owning(subscriptions, first, 1);
        afterLeave.remove("C0");
        Map<String, Assignment> second = assignor.assign(partitions, afterLeave);
        assertThat(second.get("C1").partitions()).containsExactly(tp("t0", 0), tp("t1", 0), tp("t1", 1));
        assertThat(second.get("C2").partitions()).containsExactly(tp("t2", 0), tp("t2", 1), tp("t2", 2));
    }

    @Test
    void theNewerGenerationWinsAConflictingClaim() {
        Map<String, Integer> partitions = Map.of("t", 3);
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a", new Subscription(t),
                "b", new Subscription(t, List.of(tp("t", 0), tp("t", 1)), 5),
                "z", new Subscription(t, List.of(tp("t", 0)), 6)));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        assertThat(result.get("z").partitions()).containsExactly(tp("t", 0));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 1));
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 2));
    }

    @Test
    void claimsOfTheSameGenerationCancelOut() {
        Map<String, Integer> partitions = Map.of("t", 3);
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a", new Subscription(t),
                "b", new Subscription(t, List.of(tp("t", 0), tp("t", 1)), 5),
                "z", new Subscription(t, List.of(tp("t", 0)), 5)));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        // t:0 is nobody's: it goes to the least loaded member with the smallest id, a; b keeps t:1.
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 1));
        assertThat(result.get("z").partitions()).containsExactly(tp("t", 2));
    }

    @Test
    void aStaleMemberKeepsWhatNobodyNewerClaims() {
        Map<String, Integer> partitions = Map.of("t", 4);
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a", new Subscription(t, List.of(tp("t", 0), tp("t", 3)), 9),
                "b", new Subscription(t, List.of(tp("t", 0), tp("t", 2)), 7)));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0), tp("t", 3));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 1), tp("t", 2));
    }

    @Test
    void ignoresClaimsOfUnsubscribedUnknownAndVanishedPartitions() {
        Map<String, Integer> partitions = Map.of("t", 2, "u", 2);
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                // a owns u:0 but no longer subscribes to u; t:5 and gone:0 no longer exist
                "a", new Subscription(List.of("t"), List.of(tp("u", 0), tp("t", 5), tp("gone", 0), tp("t", 1)), 3),
                "b", new Subscription(List.of("t", "u", "missing"))));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        assertValid(partitions, subscriptions, result, true);
        // u has one subscriber, so b gets it first; t:0 then goes to the less loaded a.
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0), tp("t", 1));
        assertThat(result.get("b").partitions()).containsExactly(tp("u", 0), tp("u", 1));
    }

    @Test
    void emptyGroupAndMembersWithoutTopics() {
        assertThat(assignor.assign(Map.of("t", 3), Map.of())).isEmpty();
        Map<String, Assignment> result = assignor.assign(Map.of("t", 3),
                subscriptions("a", List.of(), "b", List.of("missing"), "c", List.of("t")));
        assertThat(result.get("a").partitions()).isEmpty();
        assertThat(result.get("b").partitions()).isEmpty();
        assertThat(result.get("c").partitions()).hasSize(3);
    }

    // ---------------------------------------------------------------- properties

    /**
     * With the same subscription everywhere, each member keeps at least
     * {@code min(validly owned, floor(partitions / members))} of its valid partitions.
     */
    @Test
    void keepsValidOwnershipWithinQuota() {
        forEachSeed("sticky: keeps owned within quota", random -> {
            Scenario scenario = scenarioWithOwnership(random, true);
            Map<String, Assignment> result = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
            Map<TopicPartition, String> valid = validPreviousOwners(scenario.partitionsPerTopic(), scenario.subscriptions());
            int floor = assignablePartitions(scenario.partitionsPerTopic(), scenario.subscriptions()).size()
                    / scenario.subscriptions().size();
            scenario.subscriptions().keySet().forEach(member -> {
                List<TopicPartition> owned = new ArrayList<>();
                valid.forEach((tp, owner) -> {
                    if (owner.equals(member)) {
                        owned.add(tp);
                    }
                });
                long kept = owned.stream().filter(result.get(member).partitions()::contains).count();
                assertThat(kept).as("%s kept of its valid %s; got %s\n%s", member, owned,
                        result.get(member).partitions(), scenario).isGreaterThanOrEqualTo(Math.min(owned.size(), floor));
            });
        });
    }

    /** A balanced assignment of an unchanged group comes back unchanged: zero moves. */
    @Test
    void unchangedGroupKeepsItsAssignment() {
        forEachSeed("sticky: fixpoint", random -> {
            Scenario scenario = scenarioWithOwnership(random, random.nextBoolean());
            Map<String, Assignment> first = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
            SortedMap<String, Subscription> next = owning(scenario.subscriptions(), first, 100);
            Map<String, Assignment> second = assignor.assign(scenario.partitionsPerTopic(), next);
            assertThat(second).as("%s", scenario).isEqualTo(first);
        });
    }

    /**
     * One member joins a balanced group: at most {@code ceil(P / M_new) + 1} partitions move (the
     * newcomer's share). One member leaves: only its partitions move.
     */
    @Test
    void oneMemberJoiningOrLeavingMovesLittle() {
        forEachSeed("sticky: join/leave moves", random -> {
            Scenario scenario = scenario(random, true);
            Map<String, Assignment> balanced = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
            SortedMap<String, Subscription> owning = owning(scenario.subscriptions(), balanced, 1);
            Map<TopicPartition, String> before = owners(balanced);
            int partitions = before.size();

            SortedMap<String, Subscription> joined = new TreeMap<>(owning);
            joined.put("member-new", new Subscription(scenario.subscriptions().values().iterator().next().topics()));
            Map<String, Assignment> afterJoin = assignor.assign(scenario.partitionsPerTopic(), joined);
            assertValid(scenario.partitionsPerTopic(), joined, afterJoin, true);
            assertThat(spread(afterJoin)).isLessThanOrEqualTo(1);
            int ceil = (partitions + joined.size() - 1) / joined.size();
            assertThat(moves(before, afterJoin)).as("moves after a join\n%s", scenario).isLessThanOrEqualTo(ceil + 1);

            if (owning.size() > 1) {
                SortedMap<String, Subscription> left = new TreeMap<>(owning);
                String leaver = new ArrayList<>(left.keySet()).get(random.nextInt(left.size()));
                left.remove(leaver);
                Map<String, Assignment> afterLeave = assignor.assign(scenario.partitionsPerTopic(), left);
                assertValid(scenario.partitionsPerTopic(), left, afterLeave, true);
                assertThat(spread(afterLeave)).isLessThanOrEqualTo(1);
                assertThat(moves(before, afterLeave)).as("moves after %s left\n%s", leaver, scenario)
                        .isEqualTo(balanced.get(leaver).partitions().size());
            }
        });
    }

    /** Different subscriptions: a member that leaves only takes its own partitions along. */
    @Test
    void differentSubscriptionsStayValidAndBalancedAcrossMembershipChanges() {
        forEachSeed("sticky: non-uniform membership change", random -> {
            Scenario scenario = scenario(random, false);
            Map<String, Assignment> first = assignor.assign(scenario.partitionsPerTopic(), scenario.subscriptions());
            SortedMap<String, Subscription> next = owning(scenario.subscriptions(), first, 1);
            if (next.size() > 1) {
                next.remove(new ArrayList<>(next.keySet()).get(random.nextInt(next.size())));
            }
            next.put("member-new", new Subscription(List.of("t0")));
            Map<String, Assignment> second = assignor.assign(scenario.partitionsPerTopic(), next);
            assertValid(scenario.partitionsPerTopic(), next, second, true);
            assertNoSingleMoveHelps(next, second);
        });
    }
}
