package io.cohort.client.assignor;

import static io.cohort.client.assignor.AssignorTesting.assertValid;
import static io.cohort.client.assignor.AssignorTesting.assignablePartitions;
import static io.cohort.client.assignor.AssignorTesting.forEachSeed;
import static io.cohort.client.assignor.AssignorTesting.owners;
import static io.cohort.client.assignor.AssignorTesting.owning;
import static io.cohort.client.assignor.AssignorTesting.scenarioWithOwnership;
import static io.cohort.client.assignor.AssignorTesting.spread;
import static io.cohort.client.assignor.AssignorTesting.tp;
import static io.cohort.client.assignor.AssignorTesting.validPreviousOwners;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.TopicPartition;
import io.cohort.client.assignor.AssignorTesting.Scenario;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class CooperativeStickyAssignorTest {
    private final CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
    private final StickyAssignor sticky = new StickyAssignor();

    @Test
    void nameAndProtocols() {
        assertThat(assignor.name()).isEqualTo("cooperative-sticky");
        assertThat(assignor.supportedProtocols())
                .containsExactly(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    /** C2 joins C0 and C1: first C0 and C1 give up one partition each, then C2 gets them. */
    @Test
    void aJoiningMemberGetsMovedPartitionsOnlyInTheFollowUpRebalance() {
        Map<String, Integer> partitions = Map.of("t", 6);
        List<String> t = List.of("t");
        SortedMap<String, Subscription> round1 = new TreeMap<>(Map.of(
                "C0", new Subscription(t, List.of(tp("t", 0), tp("t", 1), tp("t", 2)), 3),
                "C1", new Subscription(t, List.of(tp("t", 3), tp("t", 4), tp("t", 5)), 3),
                "C2", new Subscription(t)));
        Map<String, Assignment> first = assignor.assign(partitions, round1);
        assertThat(first.get("C0").partitions()).containsExactly(tp("t", 0), tp("t", 1));
        assertThat(first.get("C1").partitions()).containsExactly(tp("t", 3), tp("t", 4));
        assertThat(first.get("C2").partitions()).isEmpty();

        Map<String, Assignment> second = assignor.assign(partitions, owning(round1, first, 4));
        assertThat(second.get("C0").partitions()).containsExactly(tp("t", 0), tp("t", 1));
        assertThat(second.get("C1").partitions()).containsExactly(tp("t", 3), tp("t", 4));
        assertThat(second.get("C2").partitions()).containsExactly(tp("t", 2), tp("t", 5));
    }

    @Test
    void unownedPartitionsAreAssignedAtOnce() {
        // The topic grew from 2 to 4 partitions and b is new: the new partitions go out immediately.
        Map<String, Integer> partitions = Map.of("t", 4);
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a", new Subscription(t, List.of(tp("t", 0), tp("t", 1)), 2),
                "b", new Subscription(t)));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0), tp("t", 1));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 2), tp("t", 3));
    }

    @Test
    void tiedClaimsAreWithheldFromEveryone() {
        // a and b both claim t:0 in generation 5; whoever the sticky assignment picks, the other one
        // may still be consuming it, so nobody gets it this round.
        Map<String, Integer> partitions = Map.of("t", 2);
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a", new Subscription(t, List.of(tp("t", 0)), 5),
                "b", new Subscription(t, List.of(tp("t", 0), tp("t", 1)), 5)));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        assertThat(result.get("a").partitions()).isEmpty();
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 1));
    }

    @Test
    void theNewestClaimantKeepsItsPartitionDespiteAStaleClaim() {
        Map<String, Integer> partitions = Map.of("t", 2);
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a", new Subscription(t, List.of(tp("t", 0), tp("t", 1)), 4),
                "b", new Subscription(t, List.of(tp("t", 1)), 6)));
        Map<String, Assignment> result = assignor.assign(partitions, subscriptions);
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 1));
    }

    // ---------------------------------------------------------------- properties

    /**
     * Never hands a partition to B while another member A lists it, unless B lists it too with a
     * strictly newer generation; everything else the sticky assignment decided is handed out now.
     */
    @Test
    void neverAssignsAPartitionAnotherMemberMayStillOwn() {
        forEachSeed("cooperative: no double ownership", random -> {
            Scenario scenario = scenarioWithOwnership(random, random.nextBoolean());
            Map<String, Subscription> subscriptions = scenario.subscriptions();
            Map<String, Assignment> result = assignor.assign(scenario.partitionsPerTopic(), subscriptions);
            Map<String, Assignment> eager = sticky.assign(scenario.partitionsPerTopic(), subscriptions);
            assertValid(scenario.partitionsPerTopic(), subscriptions, result, false);

            Map<TopicPartition, Set<String>> claimants = new TreeMap<>();
            subscriptions.forEach((member, s) -> s.ownedPartitions().forEach(tp ->
                    claimants.computeIfAbsent(tp, k -> new TreeSet<>()).add(member)));
            Map<TopicPartition, String> assigned = owners(result);
            assigned.forEach((tp, b) -> claimants.getOrDefault(tp, Set.of()).forEach(a -> {
                if (!a.equals(b)) {
                    Subscription of = subscriptions.get(b);
                    assertThat(of.ownedPartitions()).as("%s got %s, which %s claims", b, tp, a).contains(tp);
                    assertThat(of.generationId()).as("%s's generation; it got %s, which %s claims", b, tp, a)
                            .isGreaterThan(subscriptions.get(a).generationId());
                }
            }));
            // The rest of the sticky assignment goes out now, and every unclaimed partition with it.
            Map<TopicPartition, String> eagerOwners = owners(eager);
            eagerOwners.forEach((tp, member) -> {
                if (!assigned.containsKey(tp)) {
                    assertThat(claimants.getOrDefault(tp, Set.of())).as("claimants of withheld %s", tp)
                            .isNotEmpty().isNotEqualTo(Set.of(member));
                } else {
                    assertThat(assigned.get(tp)).as("owner of %s", tp).isEqualTo(member);
                }
            });
        });
    }

    /**
     * Round 1, then every member drops what it was not assigned, then round 2 in the next generation:
     * round 2 is complete and balanced, takes nothing away, and every partition that changed hands was
     * revoked in round 1 first. Members keep their valid partitions within quota, as with sticky.
     */
    @Test
    void twoRoundsReachABalancedAssignmentMovingOnlyRevokedPartitions() {
        forEachSeed("cooperative: two rounds", random -> {
            Scenario scenario = scenarioWithOwnership(random, true);
            Map<String, Integer> partitionsPerTopic = scenario.partitionsPerTopic();
            Map<String, Subscription> before = scenario.subscriptions();
            Map<String, Assignment> round1 = assignor.assign(partitionsPerTopic, before);
            int generation = before.values().stream().mapToInt(Subscription::generationId).max().orElse(0) + 1;
            Map<String, Assignment> round2 = assignor.assign(partitionsPerTopic, owning(before, round1, generation));

            assertValid(partitionsPerTopic, before, round2, true);
            assertThat(spread(round2)).as("spread after round 2\n%s", scenario).isLessThanOrEqualTo(1);
            Map<TopicPartition, String> finalOwners = owners(round2);
            Map<TopicPartition, String> round1Owners = owners(round1);
            before.forEach((member, s) -> {
                assertThat(round2.get(member).partitions()).as("%s in round 2 keeps its round-1 partitions", member)
                        .containsAll(round1.get(member).partitions());
                for (TopicPartition tp : s.ownedPartitions()) {
                    String newOwner = finalOwners.get(tp);
                    if (!member.equals(newOwner)) {
                        assertThat(round1.get(member).partitions()).as("%s moved from %s without revocation", tp, member)
                                .doesNotContain(tp);
                        if (newOwner != null && !before.get(newOwner).ownedPartitions().contains(tp)) {
                            // It went to a member that did not claim it: only after the revocation round.
                            assertThat(round1Owners).as("%s, claimed by %s, went to %s in round 1", tp, member, newOwner)
                                    .doesNotContainKey(tp);
                        }
                    }
                }
            });

            Map<TopicPartition, String> valid = validPreviousOwners(partitionsPerTopic, before);
            int floor = assignablePartitions(partitionsPerTopic, before).size() / before.size();
            before.keySet().forEach(member -> {
                long owned = valid.values().stream().filter(member::equals).count();
                long kept = valid.entrySet().stream()
                        .filter(e -> e.getValue().equals(member) && member.equals(finalOwners.get(e.getKey()))).count();
                assertThat(kept).as("%s kept of its %d valid partitions", member, owned)
                        .isGreaterThanOrEqualTo(Math.min(owned, floor));
            });
        });
    }
}
