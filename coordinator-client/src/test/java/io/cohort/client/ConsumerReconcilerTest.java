package io.cohort.client;

import static io.cohort.client.ConsumerProtocolTesting.NAMES;
import static io.cohort.client.ConsumerProtocolTesting.TOPIC_A;
import static io.cohort.client.ConsumerProtocolTesting.TOPIC_B;
import static io.cohort.client.ConsumerProtocolTesting.error;
import static io.cohort.client.ConsumerProtocolTesting.ok;
import static io.cohort.client.ConsumerProtocolTesting.owned;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.client.ConsumerReconciler.Outcome;
import io.cohort.client.ConsumerReconciler.Reconciliation;
import io.cohort.client.ConsumerReconciler.State;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The consumer protocol's client-side state machine, fed with responses; no server, no threads. */
class ConsumerReconcilerTest {
    private static final String MEMBER = "3f5c1c1e-0000-4000-8000-000000000001";
    private static final Function<UUID, String> KNOWN = NAMES::get;

    private static ConsumerReconciler member(Optional<String> instanceId) {
        return new ConsumerReconciler(new ConsumerReconciler.Subscription("g", MEMBER, instanceId,
                Optional.of("rack-1"), 300_000, List.of("a", "b"), Optional.empty(), Optional.of("uniform"),
                "client-1", "host-1"));
    }

    private static ConsumerReconciler member() {
        return member(Optional.empty());
    }

    private static ConsumerGroupHeartbeatRequest send(ConsumerReconciler member) {
        return member.nextRequest().orElseThrow();
    }

    /** Reconciles the member completely with the last assignment, as the poll thread does. */
    private static Reconciliation reconcile(ConsumerReconciler member) {
        Reconciliation step = member.nextReconciliation(KNOWN).orElseThrow();
        member.onRevoked(step);
        member.onAssigned(step);
        return step;
    }

    private static List<String> names(SortedSet<TopicIdPartition> partitions) {
        return partitions.stream().map(tp -> tp.topic() + ":" + tp.partition()).toList();
    }

    /** Joins and reconciles {a:0, a:1, b:0} at epoch 1. */
    private static ConsumerReconciler joinedOwningThree() {
        ConsumerReconciler member = member();
        send(member);
        assertThat(member.onResponse(ok(MEMBER, 1, Map.of(TOPIC_A, new int[] {0, 1}, TOPIC_B, new int[] {0}))))
                .isEqualTo(Outcome.OK);
        reconcile(member);
        send(member);
        member.onResponse(ok(MEMBER, 1, null));
        return member;
    }

    @Test
    void testJoinIsAFullRequestWithEpochZeroAndNoOwnedPartitions() {
        ConsumerReconciler member = member();
        assertThat(member.heartbeatUrgent()).isTrue();
        ConsumerGroupHeartbeatRequest join = send(member);
        assertThat(join.getGroupId()).isEqualTo("g");
        assertThat(join.getMemberId()).isEqualTo(MEMBER);
        assertThat(join.getMemberEpoch()).isZero();
        assertThat(join.getRebalanceTimeoutMs()).isEqualTo(300_000);
        assertThat(join.getSubscribedTopicNames().getNamesList()).containsExactly("a", "b");
        assertThat(join.hasSubscribedTopicRegex()).isFalse();
        assertThat(join.getServerAssignor()).isEqualTo("uniform");
        assertThat(join.getRackId()).isEqualTo("rack-1");
        assertThat(join.hasInstanceId()).isFalse();
        assertThat(join.hasTopicPartitions()).isTrue();
        assertThat(join.getTopicPartitions().getTopicsList()).isEmpty();
        assertThat(join.getClientId()).isEqualTo("client-1");
    }

    @Test
    void testARegexSubscriptionSendsTheRegexAndNoNames() {
        ConsumerReconciler member = new ConsumerReconciler(new ConsumerReconciler.Subscription("g", MEMBER,
                Optional.empty(), Optional.empty(), 1000, List.of(), Optional.of("orders-.*"), Optional.empty(),
                "c", ""));
        ConsumerGroupHeartbeatRequest join = send(member);
        assertThat(join.getSubscribedTopicRegex()).isEqualTo("orders-.*");
        assertThat(join.hasSubscribedTopicNames()).isFalse();
        assertThat(join.hasServerAssignor()).isFalse();
    }

    @Test
    void testHeartbeatsCarryOnlyTheFieldsThatChanged() {
        ConsumerReconciler member = member();
        send(member);
        member.onResponse(ok(MEMBER, 1, null));
        assertThat(member.heartbeatUrgent()).isFalse();
        ConsumerGroupHeartbeatRequest beat = send(member);
        assertThat(beat.getMemberEpoch()).isEqualTo(1);
        assertThat(beat.getRebalanceTimeoutMs()).isEqualTo(-1);
        assertThat(beat.hasSubscribedTopicNames()).isFalse();
        assertThat(beat.hasServerAssignor()).isFalse();
        assertThat(beat.hasRackId()).isFalse();
        // Always sent: a resent heartbeat of the previous epoch is accepted only with them.
        assertThat(beat.hasTopicPartitions()).isTrue();
    }

    @Test
    void testAfterAFailedHeartbeatTheNextIsAFullRequestWithTheCurrentEpoch() {
        ConsumerReconciler member = joinedOwningThree();
        send(member);
        assertThat(member.onResponse(error(ErrorCode.NOT_COORDINATOR))).isEqualTo(Outcome.RETRY);
        ConsumerGroupHeartbeatRequest full = send(member);
        assertThat(full.getMemberEpoch()).isEqualTo(1);
        assertThat(full.getRebalanceTimeoutMs()).isEqualTo(300_000);
        assertThat(full.getSubscribedTopicNames().getNamesList()).containsExactly("a", "b");
        assertThat(owned(full)).containsExactly("a:0", "a:1", "b:0");

        assertThat(member.onFailure(new CohortException(ErrorCode.COORDINATOR_NOT_AVAILABLE, "down")))
                .isEqualTo(Outcome.RETRY);
        assertThat(send(member).getRebalanceTimeoutMs()).isEqualTo(300_000);
    }

    @Test
    void testTheMemberEpochFollowsTheCoordinator() {
        ConsumerReconciler member = member();
        send(member);
        member.onResponse(ok(MEMBER, 4, Map.of(TOPIC_A, new int[] {0})));
        assertThat(member.memberEpoch()).isEqualTo(4);
        reconcile(member);
        assertThat(send(member).getMemberEpoch()).isEqualTo(4);
        member.onResponse(ok(MEMBER, 7, null));
        assertThat(member.memberEpoch()).isEqualTo(7);
        assertThat(send(member).getMemberEpoch()).isEqualTo(7);
    }

    @Test
    void testRevocationComesFirstAndTheReducedOwnedSetIsReportedAtOnce() {
        ConsumerReconciler member = joinedOwningThree();
        // The coordinator wants a:0 elsewhere: it sends only what the member keeps (UNREVOKED_PARTITIONS).
        send(member);
        member.onResponse(ok(MEMBER, 1, Map.of(TOPIC_A, new int[] {1}, TOPIC_B, new int[] {0})));
        assertThat(member.pollWorkPending()).isTrue();
        Reconciliation step = member.nextReconciliation(KNOWN).orElseThrow();
        assertThat(names(step.revoked())).containsExactly("a:0");
        assertThat(step.added()).isEmpty();
        member.onRevoked(step);
        assertThat(member.heartbeatUrgent()).isTrue();
        ConsumerGroupHeartbeatRequest report = send(member);
        assertThat(owned(report)).containsExactly("a:1", "b:0");
        assertThat(report.getMemberEpoch()).isEqualTo(1);
        member.onAssigned(step);
        assertThat(member.settled()).isTrue();

        // Released: the next epoch assigns b:1 as well.
        member.onResponse(ok(MEMBER, 2, Map.of(TOPIC_A, new int[] {1}, TOPIC_B, new int[] {0, 1})));
        Reconciliation next = reconcile(member);
        assertThat(next.revoked()).isEmpty();
        assertThat(names(next.added())).containsExactly("b:1");
        ConsumerGroupHeartbeatRequest ack = send(member);
        assertThat(ack.getMemberEpoch()).isEqualTo(2);
        assertThat(owned(ack)).containsExactly("a:1", "b:0", "b:1");
    }

    @Test
    void testAFullRequestSentWhileTheApplicationTakesPartitionsReportsThemOwned() {
        ConsumerReconciler member = joinedOwningThree();
        member.onResponse(ok(MEMBER, 2, Map.of(TOPIC_A, new int[] {0, 1}, TOPIC_B, new int[] {0, 1})));
        Reconciliation step = member.nextReconciliation(KNOWN).orElseThrow();
        assertThat(names(step.added())).containsExactly("b:1");
        // Meanwhile a heartbeat fails and the next is full: b:1 must not look free to the coordinator.
        send(member);
        member.onResponse(error(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS));
        assertThat(owned(send(member))).containsExactly("a:0", "a:1", "b:0", "b:1");
        member.onAssigned(step);
        assertThat(member.settled()).isTrue();
    }

    @Test
    void testAnAssignmentThatBothRevokesAndAddsRevokesFirst() {
        ConsumerReconciler member = joinedOwningThree();
        member.onResponse(ok(MEMBER, 2, Map.of(TOPIC_A, new int[] {0, 2})));
        Reconciliation step = member.nextReconciliation(KNOWN).orElseThrow();
        assertThat(names(step.revoked())).containsExactly("a:1", "b:0");
        assertThat(names(step.added())).containsExactly("a:2");
    }

    @Test
    void testFencedMemberLosesItsPartitionsAndRejoinsWithEpochZeroAndTheSameMemberId() {
        ConsumerReconciler member = joinedOwningThree();
        send(member);
        assertThat(member.onResponse(error(ErrorCode.FENCED_MEMBER_EPOCH))).isEqualTo(Outcome.FENCED);
        assertThat(member.state()).isEqualTo(State.FENCED);
        assertThat(member.heartbeating()).isFalse();
        assertThat(member.nextRequest()).isEmpty();
        assertThat(member.pollWorkPending()).isTrue();

        assertThat(names(member.takeLostPartitions().orElseThrow())).containsExactly("a:0", "a:1", "b:0");
        assertThat(member.state()).isEqualTo(State.JOINING);
        ConsumerGroupHeartbeatRequest rejoin = send(member);
        assertThat(rejoin.getMemberId()).isEqualTo(MEMBER);
        assertThat(rejoin.getMemberEpoch()).isZero();
        assertThat(rejoin.getRebalanceTimeoutMs()).isEqualTo(300_000);
        assertThat(owned(rejoin)).isEmpty();
    }

    @Test
    void testUnknownMemberIdAlsoRejoinsWithTheSameMemberId() {
        ConsumerReconciler member = joinedOwningThree();
        send(member);
        assertThat(member.onResponse(error(ErrorCode.UNKNOWN_MEMBER_ID))).isEqualTo(Outcome.FENCED);
        assertThat(member.takeLostPartitions()).isPresent();
        ConsumerGroupHeartbeatRequest rejoin = send(member);
        assertThat(rejoin.getMemberId()).isEqualTo(MEMBER);
        assertThat(rejoin.getMemberEpoch()).isZero();
    }

    @Test
    void testRefusalsThatNoRetryMendsAreFatal() {
        for (ErrorCode code : List.of(ErrorCode.UNRELEASED_INSTANCE_ID, ErrorCode.GROUP_MAX_SIZE_REACHED,
                ErrorCode.UNSUPPORTED_ASSIGNOR, ErrorCode.INVALID_REQUEST, ErrorCode.GROUP_AUTHORIZATION_FAILED,
                ErrorCode.INVALID_REGULAR_EXPRESSION)) {
            ConsumerReconciler member = member();
            send(member);
            assertThat(member.onResponse(error(code))).as(code.name()).isEqualTo(Outcome.FATAL);
            assertThat(member.fatalError().errorCode()).isEqualTo(code);
            assertThat(member.heartbeating()).isFalse();
        }
    }

    @Test
    void testADynamicMemberLeavesWithEpochMinusOneAndAStaticOneWithMinusTwo() {
        ConsumerReconciler dynamic = joinedOwningThree();
        dynamic.leave();
        assertThat(send(dynamic).getMemberEpoch()).isEqualTo(ConsumerReconciler.LEAVE_EPOCH);
        assertThat(dynamic.onResponse(ok(MEMBER, -1, null))).isEqualTo(Outcome.LEFT);
        assertThat(dynamic.nextRequest()).isEmpty();

        ConsumerReconciler statik = member(Optional.of("instance-1"));
        send(statik);
        statik.onResponse(ok(MEMBER, 1, null));
        statik.leave();
        ConsumerGroupHeartbeatRequest leave = send(statik);
        assertThat(leave.getMemberEpoch()).isEqualTo(ConsumerReconciler.LEAVE_STATIC_EPOCH);
        assertThat(leave.getInstanceId()).isEqualTo("instance-1");
    }

    @Test
    void testAMemberThatStoppedPollingLeavesWithMinusOneThenLosesItsPartitionsAndRejoins() {
        ConsumerReconciler member = member(Optional.of("instance-1"));
        send(member);
        member.onResponse(ok(MEMBER, 1, Map.of(TOPIC_A, new int[] {0})));
        reconcile(member);
        member.onPollTimerExpired();
        assertThat(send(member).getMemberEpoch()).isEqualTo(ConsumerReconciler.LEAVE_EPOCH);
        assertThat(member.onResponse(ok(MEMBER, -1, null))).isEqualTo(Outcome.FENCED);
        assertThat(names(member.takeLostPartitions().orElseThrow())).containsExactly("a:0");
        assertThat(send(member).getMemberEpoch()).isZero();
    }

    @Test
    void testPartitionsOfATopicWithoutAKnownNameWaitForTheName() {
        ConsumerReconciler member = member();
        send(member);
        member.onResponse(ok(MEMBER, 1, Map.of(TOPIC_A, new int[] {0}, TOPIC_B, new int[] {3})));
        Reconciliation partial = member.nextReconciliation(id -> id.equals(TOPIC_A) ? "a" : null).orElseThrow();
        assertThat(names(partial.added())).containsExactly("a:0");
        assertThat(partial.unresolved()).isEqualTo(1);
        member.onAssigned(partial);
        assertThat(member.settled()).isFalse();
        assertThat(owned(send(member))).containsExactly("a:0");

        Reconciliation rest = member.nextReconciliation(KNOWN).orElseThrow();
        assertThat(names(rest.added())).containsExactly("b:3");
        member.onAssigned(rest);
        assertThat(member.settled()).isTrue();
        assertThat(member.assignedTopicIds()).isEqualTo(Set.of(TOPIC_A, TOPIC_B));
    }

    @Test
    void testTheAnswerToAHeartbeatSentBeforeAFenceIsIgnored() {
        ConsumerReconciler member = joinedOwningThree();
        send(member);
        member.onResponse(error(ErrorCode.FENCED_MEMBER_EPOCH));
        assertThat(member.onResponse(ok(MEMBER, 5, Map.of(TOPIC_A, new int[] {9})))).isEqualTo(Outcome.OK);
        assertThat(member.state()).isEqualTo(State.FENCED);
        assertThat(member.memberEpoch()).isZero();
    }
}
