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
import static io.cohort.core.consumer.assignor.AssignorFixtures.rackedTopic;
import static io.cohort.core.consumer.assignor.AssignorFixtures.spec;
import static io.cohort.core.consumer.assignor.AssignorFixtures.topic;
import static io.cohort.core.consumer.assignor.AssignorFixtures.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.consumer.Assignment;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The uniform assignor when every member subscribes to the same topics (mirrors Kafka's
 * OptimizedUniformAssignmentBuilderTest / UniformHomogeneousAssignmentBuilder cases): exact
 * expected assignments, worked out by hand from the rules in {@link UniformHomogeneousBuilder}.
 */
class UniformHomogeneousAssignmentTest {
    private final UniformAssignor assignor = new UniformAssignor();

    private GroupAssignment assign(AssignmentSpec spec) {
        GroupAssignment result = assignor.assign(spec);
        assertValid(spec, result);
        return result;
    }

    @Test
    void testNameIsUniform() {
        assertThat(assignor.name()).isEqualTo("uniform");
    }

    @Test
    void testNoMembers() {
        assertThat(assign(spec().topics(topic(T1, 3)).build()).members()).isEmpty();
    }

    @Test
    void testOneMemberNoTopicSubscription() {
        GroupAssignment result = assign(spec().topics(topic(T1, 3)).member(A, Set.of()).build());
        assertThat(result.members()).isEqualTo(Map.of(A, Assignment.EMPTY));
    }

    @Test
    void testOneMemberSubscribedToNonexistentTopicGetsNothing() {
        // Kafka throws here; the contract of AssignmentSpec says an unknown topic is skipped.
        GroupAssignment result = assign(spec().topics(topic(T1, 3)).member(A, Set.of(UNKNOWN)).build());
        assertThat(result.members()).isEqualTo(Map.of(A, Assignment.EMPTY));
    }

    @Test
    void testUnknownTopicIsSkippedBesideKnownOnes() {
        GroupAssignment result = assign(spec().topics(topic(T1, 2))
                .member(A, Set.of(T1, UNKNOWN)).member(B, Set.of(T1, UNKNOWN)).build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0)), B, assignment(tp(T1, 1))));
    }

    @Test
    void testFirstAssignmentTwoMembersTwoTopics() {
        // 5 partitions: the first member (all hold 0) gets the extra one; contiguous runs in order.
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T3, 2))
                .member(A, Set.of(T1, T3)).member(B, Set.of(T1, T3)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2)),
                B, assignment(tp(T3, 0, 1))));
    }

    @Test
    void testFirstAssignmentNumMembersGreaterThanTotalNumPartitions() {
        GroupAssignment result = assign(spec().topics(topic(T1, 2))
                .member(A, Set.of(T1)).member(B, Set.of(T1)).member(C, Set.of(T1)).build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0)), B, assignment(tp(T1, 1)), C, Assignment.EMPTY));
    }

    @Test
    void testReassignmentGivenUnbalancedPrevAssignment() {
        // A holds 4 of 6, B 1, T2-2 nobody: A gives up its last partition (T2-0) and nothing else moves.
        GroupAssignment result = assign(spec().topics(topic(T1, 3), topic(T2, 3))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1, 2), tp(T2, 0)))
                .member(B, Set.of(T1, T2), assignment(tp(T2, 1)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2)),
                B, assignment(tp(T2, 0, 1, 2))));
    }

    @Test
    void testReassignmentWhenPartitionsAreAdded() {
        // T1 went from 3 to 5 partitions: both keep theirs, the new ones fill the quotas of 4.
        GroupAssignment result = assign(spec().topics(topic(T1, 5), topic(T2, 3))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1, 2)))
                .member(B, Set.of(T1, T2), assignment(tp(T2, 0, 1, 2)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2, 3)),
                B, assignment(tp(T1, 4), tp(T2, 0, 1, 2))));
    }

    @Test
    void testReassignmentWhenOneMemberAdded() {
        // 8 partitions over 3: A and B (holding 4 each) keep 3, C gets the two they give up.
        GroupAssignment result = assign(spec().topics(topic(T1, 5), topic(T2, 3))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1, 2, 3)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 4), tp(T2, 0, 1, 2)))
                .member(C, Set.of(T1, T2))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2)),
                B, assignment(tp(T1, 4), tp(T2, 0, 1)),
                C, assignment(tp(T1, 3), tp(T2, 2))));
    }

    @Test
    void testExtraPartitionGoesToTheMemberHoldingMore() {
        // 7 over 3: quotas 3/2/2. Kafka hands the extra to the first member (A), which would make C
        // give one up; here C, holding 3, keeps the extra and A (holding 2) keeps its 2: nothing moves.
        GroupAssignment result = assign(spec().topics(topic(T1, 7))
                .member(A, Set.of(T1), assignment(tp(T1, 0, 1)))
                .member(B, Set.of(T1), assignment(tp(T1, 2, 3)))
                .member(C, Set.of(T1), assignment(tp(T1, 4, 5, 6)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1)), B, assignment(tp(T1, 2, 3)), C, assignment(tp(T1, 4, 5, 6))));
    }

    @Test
    void testReassignmentWhenOneMemberRemoved() {
        GroupAssignment result = assign(spec().topics(topic(T1, 5), topic(T2, 3))
                .member(A, Set.of(T1, T2), assignment(tp(T1, 0, 1, 2)))
                .member(B, Set.of(T1, T2), assignment(tp(T1, 4), tp(T2, 0, 1)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2, 3)),
                B, assignment(tp(T1, 4), tp(T2, 0, 1, 2))));
    }

    @Test
    void testReassignmentWhenOneSubscriptionRemoved() {
        // Both drop T2: B's T2 partitions go; T1's 5 split 3/2 with A (holding 4) keeping the extra.
        GroupAssignment result = assign(spec().topics(topic(T1, 5), topic(T2, 3))
                .member(A, Set.of(T1), assignment(tp(T1, 0, 1, 2, 3)))
                .member(B, Set.of(T1), assignment(tp(T1, 4), tp(T2, 0, 1, 2)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(
                A, assignment(tp(T1, 0, 1, 2)),
                B, assignment(tp(T1, 3, 4))));
    }

    @Test
    void testPartitionClaimedTwiceGoesToTheFirstMember() {
        GroupAssignment result = assign(spec().topics(topic(T1, 2))
                .member(A, Set.of(T1), assignment(tp(T1, 0)))
                .member(B, Set.of(T1), assignment(tp(T1, 0)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0)), B, assignment(tp(T1, 1))));
    }

    @Test
    void testPartitionsBeyondTheTopicsCountAreDropped() {
        GroupAssignment result = assign(spec().topics(topic(T1, 2))
                .member(A, Set.of(T1), assignment(tp(T1, 0, 1, 2, 3)))
                .member(B, Set.of(T1))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0)), B, assignment(tp(T1, 1))));
    }

    @Test
    void testRacksFirstAssignmentPutsPartitionsOnTheirMembersRack() {
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "b", "b", "a", "a"))
                .member(A, "a", Set.of(T1), Assignment.EMPTY)
                .member(B, "b", Set.of(T1), Assignment.EMPTY)
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 2, 3)), B, assignment(tp(T1, 0, 1))));
    }

    @Test
    void testWithoutMemberRacksTheSameTopicGetsPlainRuns() {
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "b", "b", "a", "a"))
                .member(A, Set.of(T1)).member(B, Set.of(T1)).build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0, 1)), B, assignment(tp(T1, 2, 3))));
    }

    @Test
    void testRacksNeverCostBalance() {
        // Every replica is on rack a: A takes its quota from rack a, B gets the rest off its rack.
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "a", "a", "a", "a"))
                .member(A, "a", Set.of(T1), Assignment.EMPTY)
                .member(B, "b", Set.of(T1), Assignment.EMPTY)
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0, 1)), B, assignment(tp(T1, 2, 3))));
    }

    @Test
    void testRacksMemberOverQuotaGivesUpOffRackPartitionsFirst() {
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "b", "a", "b", "a"))
                .member(A, "a", Set.of(T1), assignment(tp(T1, 0, 1, 2, 3)))
                .member(B, "b", Set.of(T1), Assignment.EMPTY)
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 1, 3)), B, assignment(tp(T1, 0, 2))));
    }

    @Test
    void testRacksPartitionWithReplicasOnSeveralRacksGoesToTheMemberWithMostRoom() {
        // p0 is on racks a and b; A (rack a) and B (rack b) both have room 2: the tie goes to A.
        // p1 only on b -> B; p2 on a,b -> A (room 1) vs B (room 1): A; p3 on b -> B.
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "a,b", "b", "a,b", "b"))
                .member(A, "a", Set.of(T1), Assignment.EMPTY)
                .member(B, "b", Set.of(T1), Assignment.EMPTY)
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0, 2)), B, assignment(tp(T1, 1, 3))));
    }

    @Test
    void testStickinessBeatsRacks() {
        // A holds an off-rack partition within its quota: it keeps it (no movement for rack alone).
        GroupAssignment result = assign(spec().topics(rackedTopic(T1, "b", "a"))
                .member(A, "a", Set.of(T1), assignment(tp(T1, 0)))
                .member(B, "b", Set.of(T1), assignment(tp(T1, 1)))
                .build());
        assertThat(result.members()).isEqualTo(Map.of(A, assignment(tp(T1, 0)), B, assignment(tp(T1, 1))));
    }
}
