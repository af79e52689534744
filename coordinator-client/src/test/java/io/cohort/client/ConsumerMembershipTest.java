package io.cohort.client;

import static io.cohort.client.ConsumerProtocolTesting.NAMES;
import static io.cohort.client.ConsumerProtocolTesting.TOPIC_A;
import static io.cohort.client.ConsumerProtocolTesting.TOPIC_B;
import static io.cohort.client.ConsumerProtocolTesting.error;
import static io.cohort.client.ConsumerProtocolTesting.ok;
import static io.cohort.client.ConsumerProtocolTesting.owned;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.TopicDescription;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The consumer-protocol loop of {@link GroupMember} (the listener's calls on the poll thread, what
 * the heartbeats report in between) against a scripted coordinator: heartbeats are sent by hand,
 * one response each, in order.
 */
class ConsumerMembershipTest {
    /** Never contacted: the transport below stands in for the coordinator. */
    private final CohortClient client = CohortClient.builder().bootstrap("127.0.0.1:1").clientId("test")
            .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5)).build();
    private final Script coordinator = new Script();
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** The owned partitions each heartbeat reported (null: unchanged), with the events before it. */
    private final List<String> timeline = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeClient() {
        client.close();
    }

    /** Answers each heartbeat with the next scripted response; lists the topics a and b. */
    private final class Script implements ConsumerMembership.Transport {
        final Deque<ConsumerGroupHeartbeatResponse> responses = new ArrayDeque<>();
        final List<ConsumerGroupHeartbeatRequest> requests = new ArrayList<>();

        @Override
        public synchronized ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequest request,
                Duration budget) {
            requests.add(request);
            timeline.add("heartbeat epoch " + request.getMemberEpoch() + " owned " + owned(request));
            return responses.removeFirst();
        }

        @Override
        public List<TopicDescription> listTopics() {
            List<TopicDescription> topics = new ArrayList<>();
            NAMES.forEach((id, name) -> topics.add(TopicDescription.newBuilder().setName(name)
                    .setTopicId(TopicIdPartition.bytesOf(id)).setPartitionCount(4).build()));
            return topics;
        }

        synchronized ConsumerGroupHeartbeatRequest last() {
            return requests.get(requests.size() - 1);
        }
    }

    private final RebalanceListener listener = new RebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            events.add("revoked " + partitions);
            timeline.add("revoked " + partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            events.add("assigned " + partitions);
            timeline.add("assigned " + partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            events.add("lost " + partitions);
            timeline.add("lost " + partitions);
        }
    };

    private ConsumerMembership membership(Optional<String> instanceId) {
        MemberConfig config = new MemberConfig(client, "g", List.of("a", "b"), Optional.empty(), listener,
                Duration.ofMinutes(5), instanceId, Optional.empty(), "", why -> events.add("commit: " + why));
        return new ConsumerMembership(config, Optional.of("uniform"), coordinator, null);
    }

    /** Scripts {@code response} and sends one heartbeat. */
    private void beat(ConsumerMembership member, ConsumerGroupHeartbeatResponse response) {
        coordinator.responses.add(response);
        member.heartbeatOnce();
    }

    private static void poll(ConsumerMembership member) {
        member.pollOnce(System.nanoTime());
    }

    @Test
    void testTheListenerRevokesBeforeTheNextOwnerCanBeAssignedAndAssignsAfter() {
        ConsumerMembership member = membership(Optional.empty());
        String id = member.memberId();
        beat(member, ok(id, 1, Map.of(TOPIC_A, new int[] {0, 1}, TOPIC_B, new int[] {0})));
        poll(member);
        assertThat(member.owned).containsExactlyInAnyOrder(new TopicPartition("a", 0), new TopicPartition("a", 1),
                new TopicPartition("b", 0));
        beat(member, ok(id, 1, null));
        // The coordinator moves a:0 away: this member is sent what it keeps, and must report a:0 gone.
        beat(member, ok(id, 1, Map.of(TOPIC_A, new int[] {1}, TOPIC_B, new int[] {0})));
        poll(member);
        beat(member, ok(id, 2, Map.of(TOPIC_A, new int[] {1}, TOPIC_B, new int[] {0, 1})));
        poll(member);
        beat(member, ok(id, 2, null));

        assertThat(events).containsExactly(
                "assigned [a:0, a:1, b:0]",
                "commit: commit before revocation",
                "revoked [a:0]",
                "assigned []",
                "assigned [b:1]");
        assertThat(timeline).containsExactly(
                "heartbeat epoch 0 owned []",
                "assigned [a:0, a:1, b:0]",
                "heartbeat epoch 1 owned [a:0, a:1, b:0]",
                "heartbeat epoch 1 owned [a:0, a:1, b:0]",
                "revoked [a:0]",
                "assigned []",
                "heartbeat epoch 1 owned [a:1, b:0]",
                "assigned [b:1]",
                "heartbeat epoch 2 owned [a:1, b:0, b:1]");
        assertThat(member.commitGeneration()).isEqualTo(2);
    }

    @Test
    void testAFencedMemberReportsItsPartitionsLostAndRejoinsWithTheSameMemberId() {
        ConsumerMembership member = membership(Optional.empty());
        String id = member.memberId();
        beat(member, ok(id, 3, Map.of(TOPIC_A, new int[] {0})));
        poll(member);
        beat(member, error(ErrorCode.FENCED_MEMBER_EPOCH));
        assertThat(member.commitGeneration()).isEqualTo(-1);
        synchronized (member.lock) {
            assertThat(member.rebalanceNeededLocked()).isTrue();
        }
        member.heartbeatOnce(); // nothing is sent until the poll thread has reported the loss
        assertThat(coordinator.requests).hasSize(2);

        poll(member);
        assertThat(events).containsExactly("assigned [a:0]", "lost [a:0]");
        assertThat(member.owned).isEmpty();
        beat(member, ok(id, 5, Map.of(TOPIC_B, new int[] {2})));
        ConsumerGroupHeartbeatRequest rejoin = coordinator.last();
        assertThat(rejoin.getMemberId()).isEqualTo(id);
        assertThat(rejoin.getMemberEpoch()).isZero();
        assertThat(owned(rejoin)).isEmpty();
        poll(member);
        assertThat(events).last().isEqualTo("assigned [b:2]");
    }

    @Test
    void testAFatalRefusalIsThrownByPoll() {
        ConsumerMembership member = membership(Optional.of("instance-1"));
        beat(member, error(ErrorCode.UNRELEASED_INSTANCE_ID));
        assertThatThrownBy(() -> poll(member)).isInstanceOf(CohortException.class)
                .satisfies(e -> assertThat(((CohortException) e).errorCode()).isEqualTo(ErrorCode.UNRELEASED_INSTANCE_ID));
        member.heartbeatOnce();
        assertThat(coordinator.requests).hasSize(1);
    }

    @Test
    void testACommitRefusedForAStaleEpochIsRetriedWithTheEpochOfTheNextHeartbeat() throws Exception {
        ConsumerMembership member = membership(Optional.empty());
        String id = member.memberId();
        beat(member, ok(id, 1, Map.of(TOPIC_A, new int[] {0})));
        poll(member);
        Membership.CommitTarget stale = member.commitTarget();
        assertThat(stale).isEqualTo(new Membership.CommitTarget(1, id));
        CompletableFuture<Membership.CommitTarget> retry = new CompletableFuture<>();
        Thread committer = new Thread(() -> retry.complete(member.retryCommitAfter(ErrorCode.STALE_MEMBER_EPOCH,
                stale, System.nanoTime() + TimeUnit.SECONDS.toNanos(30))));
        committer.start();
        // The committer waits for the next heartbeat's answer.
        org.awaitility.Awaitility.await().until(() -> committer.getState() == Thread.State.TIMED_WAITING);
        assertThat(retry).isNotDone();
        beat(member, ok(id, 2, null));
        assertThat(retry.get(30, TimeUnit.SECONDS)).isEqualTo(new Membership.CommitTarget(2, id));
        assertThat(member.retryCommitAfter(ErrorCode.UNKNOWN_MEMBER_ID, stale, System.nanoTime())).isNull();
        assertThat(member.onCommitFailed(new CohortException(ErrorCode.FENCED_MEMBER_EPOCH, "x"), stale))
                .isInstanceOf(CommitFailedException.class);
    }

    /** Seen in ConsumerProtocolFailoverIT: a fenced member's commit waited for a heartbeat that never came. */
    @Test
    void testACommitOfAFencedMemberFailsInsteadOfWaitingForAHeartbeat() throws Exception {
        ConsumerMembership member = membership(Optional.empty());
        String id = member.memberId();
        beat(member, ok(id, 1, Map.of(TOPIC_A, new int[] {0})));
        poll(member);
        Membership.CommitTarget stale = member.commitTarget();
        beat(member, error(ErrorCode.FENCED_MEMBER_EPOCH));

        CompletableFuture<Membership.CommitTarget> retry = CompletableFuture.supplyAsync(() -> member.retryCommitAfter(
                ErrorCode.STALE_MEMBER_EPOCH, stale, System.nanoTime() + TimeUnit.HOURS.toNanos(1)));

        assertThat(retry.get(30, TimeUnit.SECONDS)).as("no retry target: the commit fails").isNull();
    }

    @Test
    void testCloseRevokesThenLeavesWithEpochMinusOneOrMinusTwoForAStaticMember() {
        for (Optional<String> instance : List.of(Optional.<String>empty(), Optional.of("instance-1"))) {
            events.clear();
            ConsumerMembership member = membership(instance);
            beat(member, ok(member.memberId(), 1, Map.of(TOPIC_A, new int[] {0})));
            poll(member);
            member.releaseOnClose();
            member.stop();
            coordinator.responses.add(ok(member.memberId(), -1, null));
            member.leave();
            assertThat(events).containsExactly("assigned [a:0]", "revoked [a:0]");
            assertThat(coordinator.last().getMemberEpoch()).isEqualTo(instance.isPresent() ? -2 : -1);
        }
    }

    @Test
    void testTheConsumerProtocolRefusesClassicOnlySettings() {
        assertThatThrownBy(() -> GroupMember.builder(client, "g").groupProtocol(GroupProtocol.CONSUMER)
                .subscribe(List.of("a")).sessionTimeout(Duration.ofSeconds(10)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("classic-protocol settings");
        assertThatThrownBy(() -> GroupMember.builder(client, "g").subscribePattern("a.*").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("groupProtocol(CONSUMER)");
        assertThatThrownBy(() -> GroupMember.builder(client, "g").groupProtocol(GroupProtocol.CONSUMER).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("subscribe");
    }
}
