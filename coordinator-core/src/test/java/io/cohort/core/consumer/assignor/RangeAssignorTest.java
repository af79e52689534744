package io.cohort.core.consumer.assignor;

import static io.cohort.core.consumer.assignor.AssignorFixtures.A;
import static io.cohort.core.consumer.assignor.AssignorFixtures.B;
import static io.cohort.core.consumer.assignor.AssignorFixtures.C;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T1;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T2;
import static io.cohort.core.consumer.assignor.AssignorFixtures.T3;
import static io.cohort.core.consumer.assignor.AssignorFixtures.UNKNOWN;
import static io.cohort.core.consumer.assignor.AssignorFixtures.assertValid;
import static io.cohort.core.consumer.assignor.AssignorFixtures.assignment;
import static io.cohort.core.consumer.assignor.AssignorFixtures.spec;
import static io.cohort.core.consumer.assignor.AssignorFixtures.topic;
import static io.cohort.core.consumer.assignor.AssignorFixtures.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.consumer.Assignment;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The range assignor (mirrors Kafka's RangeAssignorTest). Where Kafka 4's RangeAssignor, which no
 * longer reads the previous assignment, gives a different answer than this sticky one, the test
 * says so.
 */
class RangeAssignorTest {
    private final RangeAssignor assignor = new RangeAssignor();

    private GroupAssignment assign(AssignmentSpec spec) {
        GroupAssignment result = assignor.assign(spec);
        assertValid(spec, result);
        return result;
    }

    @Test
    void testNameIsRange() {
        assertThat(assignor.name()).isEqualTo("range");
    }

    @Test
    void testNoMembers() {
        assertThat(assign(spec().topics(topic(T1, 3)).build()).members()).isEmpty();
    }

    @Test
    void testOneMemberNoTopic() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3)).member(A, Set.of()).build());
        assertThat(result.members()).isEqualTo(Map.of(A, Assignment.EMPTY));
    }

    @Test
    void testOneMemberSubscribedToNonExistentTopicGetsNothing() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3)).member(A, Set.of(UNKNOWN)).build());
        assertThat(result.members()).isEqualTo(Map.of(A, Assignment.EMPTY));
    }

    @Test
    void testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T3, 2))
                .member(A, Set.of(T1, T3)).member(B, Set.of(T1, T3)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1), tp(T3, 0)),
                B, assignment(tp(T1, 2), tp(T3, 1))));
    }

    @Test
    void testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T2, 3), topic(T3, 2))
                .member(A, Set.of(T1, T2)).member(B, Set.of(T3)).member(C, Set.of(T2, T3)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2), tp(T2, 0, 1)),
                B, assignment(tp(T3, 0)),
                C, assignment(tp(T2, 2), tp(T3, 1))));
    }

    @Test
    void testFirstAssignmentNumMembersGreaterThanNumPartitions() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T3, 2))
                .member(A, Set.of(T1, T3)).member(B, Set.of(T1, T3)).member(C, Set.of(T1, T3)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0), tp(T3, 0)),
                B, assignment(tp(T1, 1), tp(T3, 1)),
                C, assignment(tp(T1, 2))));
    }

    @Test
    void testFirstAssignmentIsContiguousRangesInMemberIdOrder() {
        // Members inserted out of order: ranges follow the member-id order, the first 10%3 get one more.
        GroupAssignment result = assign(spec().topics(topic(T1, 10))
                .member(C, Set.of(T1)).member(A, Set.of(T1)).member(B, Set.of(T1)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2, 3)),
                B, assignment(tp(T1, 4, 5, 6)),
                C, assignment(tp(T1, 7, 8, 9))));
    }

    @Test
    void testReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded() {
        GroupAssignment result = assign(spec().topics(topic(T1, 2), topic(T2, 2))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0), tp(T2, 0)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 1), tp(T2, 1)))
                .member(C, Set.of(T1, T2))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0), tp(T2, 0)),
                B, assignment(tp(T1, 1), tp(T2, 1)),
                C, Assignment.EMPTY));
    }

    @Test
    void testReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics() {
        GroupAssignment result = assign(spec().topics(topic(T1, 4), topic(T2, 4))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1), tp(T2, 0, 1)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 2), tp(T2, 2)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1), tp(T2, 0, 1)),
                B, assignment(tp(T1, 2, 3), tp(T2, 2, 3))));
    }

    @Test
    void testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics() {
        // Sticky: A keeps 0 (its quota is 1), B keeps 2, C gets the freed 1. Kafka 4 recomputes plain
        // ranges (A 0, B 1, C 2), moving B's partition as well.
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T2, 3))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1), tp(T2, 0, 1)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 2), tp(T2, 2)))
                .member(C, Set.of(T1, T2))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0), tp(T2, 0)),
                B, assignment(tp(T1, 2), tp(T2, 2)),
                C, assignment(tp(T1, 1), tp(T2, 1))));
    }

    @Test
    void testReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics() {
        // Not co-partitioned any more (4 and 3 partitions): per topic. T1: A keeps 0 and, while an
        // extra partition is left, 1; B keeps 2; C gets 3. T2: A keeps 0, B keeps 2, C gets 1.
        GroupAssignment result = assign(spec().topics(topic(T1, 4), topic(T2, 3))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1), tp(T2, 0, 1)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 2), tp(T2, 2)))
                .member(C, Set.of(T1, T2))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1), tp(T2, 0)),
                B, assignment(tp(T1, 2), tp(T2, 2)),
                C, assignment(tp(T1, 3), tp(T2, 1))));
    }

    @Test
    void testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T2, 3))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 2), tp(T2, 2)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(B, assignment(tp(T1, 0, 1, 2), tp(T2, 0, 1, 2))));
    }

    @Test
    void testReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics() {
        // Was A -> T1, T2; B -> T2; C -> T2, T3. Now A -> T1; B -> T1, T2, T3; C -> T2.
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T2, 3), topic(T3, 2))
                .member(A, Set.of(T1), assignment(tp(T1, 0, 1, 2), tp(T2, 0)))
                .member(B, Set.of(T1, T2, T3), assignment(tp(T2, 1)))
                .member(C, Set.of(T2), assignment(tp(T2, 2), tp(T3, 0, 1)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1)),
                B, assignment(tp(T1, 2), tp(T2, 0, 1), tp(T3, 0, 1)),
                C, assignment(tp(T2, 2))));
    }

    @Test
    void testCoPartitioningRestoredFromTheMostCommonOwner() {
        // Three co-partitioned topics where T3 drifted: partition 0 is A's in T1 and T2, B's in T3.
        // The most common owner of each number decides, and every topic gets the same numbers.
        GroupAssignment result = assign(spec().topics(topic(T1, 2), topic(T2, 2), topic(T3, 2))
                .member(A, Set.of(T1, T2, T3), assignment(tp(T1, 0), tp(T2, 0), tp(T3, 1)))
                .member(B, Set.of(T1, T2, T3), assignment(tp(T1, 1), tp(T2, 1), tp(T3, 0)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0), tp(T2, 0), tp(T3, 0)),
                B, assignment(tp(T1, 1), tp(T2, 1), tp(T3, 1))));
    }

    @Test
    void testCoPartitionedAfterANewTopicJoinsTheSubscription() {
        // T2 is new to both members: computed once over partition numbers, T2 follows T1's owners.
        GroupAssignment result = assign(spec().topics(topic(T1, 4), topic(T2, 4))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 2, 3)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 0, 1)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 2, 3), tp(T2, 2, 3)),
                B, assignment(tp(T1, 0, 1), tp(T2, 0, 1))));
    }
}
