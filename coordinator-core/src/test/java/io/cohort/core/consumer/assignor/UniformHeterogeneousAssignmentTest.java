package io.cohort.core.consumer.assignor;

import static io.cohort.core.consumer.assignor.AssignorFixtures.A;
import static io.cohort.core.consumer.assignor.AssignorFixtures.B;
import static io.cohort.core.consumer.assignor.AssignorFixtures.C;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T1;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T2;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T3;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T4;
import static io.cohort.core.consumer.assignor.AssignorFixtures.UNKNOWN;
import static io.cohort.core.consumer.assignor.AssignorFixtures.assertValid;
import static io.cohort.core.consumer.assignor.AssignorFixtures.assignment;
import static io.cohort.core.consumer.assignor.AssignorFixtures.rackedTopic;
import static io.cohort.core.consumer.assignor.AssignorFixtures.spec;
import static io.cohort.core.consumer.assignor.AssignorFixtures.topic;
import static io.cohort.core.consumer.assignor.AssignorFixtures.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.consumer.Assignment;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The uniform assignor when members subscribe to different topics (mirrors Kafka's
 * UniformHeterogeneousAssignmentBuilderTest): exact expected assignments, worked out by hand from
 * the rules in {@link UniformHeterogeneousBuilder}.
 */
class UniformHeterogeneousAssignmentTest {
    private final UniformAssignor assignor = new UniformAssignor();

    private GroupAssignment assign(AssignmentSpec spec) {
        GroupAssignment result = assignor.assign(spec);
        assertValid(spec, result);
        return result;
    }

    @Test
    void testTwoMembersSubscribedToNonexistentTopics() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3))
                .member(A, Set.of(UNKNOWN)).member(B, Set.of(new UUID(0, 98))).build());
        assertThat(result.members()).isEqualTo(Map.of(A, Assignment.EMPTY, B, Assignment.EMPTY));
    }

    @Test
    void testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3))
                .member(A, Set.of(T1)).member(B, Set.of()).build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0, 1, 2)), B, Assignment.EMPTY));
    }

    @Test
    void testMemberWhoseOnlyTopicIsUnknownGetsNothing() {
        // After skipping the unknown topic the subscriptions differ: the heterogeneous path.
        GroupAssignment result = assign(spec().topics(topic(T1, 3))
                .member(A, Set.of(T1)).member(B, Set.of(UNKNOWN)).build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0, 1, 2)), B, Assignment.EMPTY));
    }

    @Test
    void testFirstAssignmentTwoMembersTwoTopics() {
        // T1 (3 per subscriber, 1 subscriber) before T3 (3 per subscriber, 2 subscribers): A takes
        // T1; T3's 6 go one by one to the least loaded: B, B, B, A, B, A -> A 2, B 4, in runs.
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T3, 6))
                .member(A, Set.of(T1, T3)).member(B, Set.of(T3)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2), tp(T3, 0, 1)),
                B, assignment(tp(T3, 2, 3, 4, 5))));
    }

    @Test
    void testFirstAssignmentNumMembersGreaterThanTotalNumPartitions() {
        GroupAssignment result = assign(spec().topics(topic(T3, 1), topic(T1, 2))
                .member(A, Set.of(T3)).member(B, Set.of(T3)).member(C, Set.of(T1)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T3, 0)), B, Assignment.EMPTY, C, assignment(tp(T1, 0, 1))));
    }

    @Test
    void testReassignmentGivenUnbalancedPrevAssignment() {
        // Kafka's case: A {T1} 3, B {T1,T2} 2, C {T1,T2,T3} 9 -> 14 partitions, A 4 / B 5 / C 5 at best.
        GroupAssignment result = assign(spec().topics(topic(T1, 6), topic(T2, 4), topic(T3, 4))
                .member(A, Set.of(T1), assignment(tp(T1, 0, 1, 2)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 3), tp(T2, 0)))
                .member(C, Set.of(T1, T2, T3), assignment(tp(T1, 4, 5), tp(T2, 1, 2, 3), tp(T3, 0, 1, 2, 3)))
                .build());
        // Optimal loads are 5/5/4 in some order. Shortest chains from the most loaded (C, 9): C->A on
        // T1 twice (A is the first subscriber of T1 reachable below the level), then C->B on T2
        // twice; every moved partition is C's lowest of that topic. Four moves, as Kafka's result.
        assertThat(AssignorFixtures.loads(result)).isEqualTo(Map.of(A, 5, B, 4, C, 5));
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2, 4, 5)),
                B, assignment(tp(T1, 3), tp(T2, 0, 1, 2)),
                C, assignment(tp(T2, 3), tp(T3, 0, 1, 2, 3))));
    }

    @Test
    void testChainOfTwoHopsBalancesWhatPerTopicMovesCannot() {
        // A {T1} 9, B {T1,T2} 10, C {T2} 11: each topic's subscribers differ by one, so Kafka's
        // per-topic balancing stops; the chain C -T2-> B -T1-> A gives 10/10/10.
        GroupAssignment result = assign(spec().topics(topic(T1, 14), topic(T2, 16))
                .member(A, Set.of(T1), assignment(tp(T1, 0, 1, 2, 3, 4, 5, 6, 7, 8)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 9, 10, 11, 12, 13), tp(T2, 0, 1, 2, 3, 4)))
                .member(C, Set.of(T2), assignment(tp(T2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)),
                B, assignment(tp(T1, 10, 11, 12, 13), tp(T2, 0, 1, 2, 3, 4, 5)),
                C, assignment(tp(T2, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))));
    }

    @Test
    void testReassignmentWhenPartitionsAreAddedForTwoMembers() {
        GroupAssignment result = assign(spec().topics(topic(T1, 6), topic(T2, 5), topic(T3, 3), topic(T4, 3))
                .member(A, Set.of(T1, T3), assignment(tp(T1, 0, 1, 2, 3), tp(T3, 0, 1)))
                .member(B, Set.of(T1, T2, T3, T4), assignment(tp(T2, 0, 1, 2), tp(T4, 0, 1, 2)))
                .build());
        // Topic order: T2 (5 per subscriber), T4 (3, one subscriber), T1 (3, two), T3 (1.5).
        // T2-3,4 -> B (8); T1-4,5: A 6 < B 8 -> A twice; T3-2: A 8 vs B 8 -> A. 9/8, as Kafka.
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2, 3, 4, 5), tp(T3, 0, 1, 2)),
                B, assignment(tp(T2, 0, 1, 2, 3, 4), tp(T4, 0, 1, 2))));
    }

    @Test
    void testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T2, 8), topic(T3, 3))
                .member(A, Set.of(T1, T3), assignment(tp(T1, 0, 1, 2), tp(T3, 0, 1)))
                .member(B, Set.of(T2), assignment(tp(T2, 3, 4, 5, 6)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2), tp(T3, 0, 1, 2)),
                B, assignment(tp(T2, 0, 1, 2, 3, 4, 5, 6, 7))));
    }

    @Test
    void testReassignmentWhenOneSubscriptionRemoved() {
        GroupAssignment result = assign(spec().topics(topic(T1, 2), topic(T2, 2))
                .member(A, Set.of(T1), assignment(tp(T1, 0), tp(T2, 0)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 1), tp(T2, 1)))
                .build());
        // A loses T2-0; B takes it (only subscriber); then B 3 vs A 1: B passes T1-1 to A.
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1)),
                B, assignment(tp(T2, 0, 1))));
    }

    @Test
    void testRacksPreferredWithinTheCountsBalanceGives() {
        // T2 (1 subscriber) before T1 (2): A takes T2 on its rack. T1's 4: counts B, B, A, B ->
        // A 1, B 3; p0 (rack a) -> A, p1 (rack a) -> A is full -> B later, p2, p3 (rack b) -> B.
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "a", "a", "b", "b"), rackedTopic(T2, "a", "a"))
                .member(A, "a", Set.of(T1, T2), Assignment.EMPTY)
                .member(B, "b", Set.of(T1), Assignment.EMPTY)
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0), tp(T2, 0, 1)),
                B, assignment(tp(T1, 1, 2, 3))));
    }

    @Test
    void testRacksBalancingPassesAPartitionOnTheTakersRack() {
        // A {T1} holds all 4 of T1 (racks b, a, b, a), B {T1, T2} holds T2-0: A passes one partition;
        // all of A's are in its current target, so the one on B's rack: T1-0.
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "b", "a", "b", "a"), topic(T2, 1))
                .member(A, "a", Set.of(T1), assignment(tp(T1, 0, 1, 2, 3)))
                .member(B, "b", Set.of(T1, T2), assignment(tp(T2, 0)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 1, 2, 3)),
                B, assignment(tp(T1, 0), tp(T2, 0))));
    }
}
