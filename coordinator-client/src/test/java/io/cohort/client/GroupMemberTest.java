package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.CooperativeStickyAssignor;
import io.cohort.client.assignor.RangeAssignor;
import io.cohort.client.assignor.RebalanceProtocol;
import io.cohort.client.assignor.RoundRobinAssignor;
import io.cohort.client.assignor.Subscription;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GroupMember's membership loop against three real nodes in this JVM. */
class GroupMemberTest {
    private static final String TOPIC = "events";
    private static final int TOPIC_PARTITIONS = 6;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortClient client;
    private final List<PollingMember> running = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.start(root, 3, 3);
        client = cluster.client("member-test");
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void stopMembers() throws InterruptedException {
        for (PollingMember member : running) {
            member.close();
        }
    }

    private GroupMember.Builder member(String group) {
        return GroupMember.builder(client, group).subscribe(List.of(TOPIC))
                .topicMetadata(Map.of(TOPIC, TOPIC_PARTITIONS))
                .sessionTimeout(Duration.ofSeconds(10)).rebalanceTimeout(Duration.ofSeconds(20));
    }

    private PollingMember start(String name, GroupMember member) {
        PollingMember polling = new PollingMember(name, member);
        running.add(polling);
        return polling;
    }

    /** Waits until every member is in one generation and together they own every partition once. */
    private static void awaitBalanced(List<PollingMember> members, int partitions) {
        await().atMost(WAIT).untilAsserted(() -> {
            for (PollingMember m : members) {
                assertThat(m.failure()).as(m.name).isNull();
            }
            Set<Integer> generations = new HashSet<>();
            List<TopicPartition> all = new ArrayList<>();
            for (PollingMember m : members) {
                generations.add(m.member.generationId());
                all.addAll(m.assignment());
            }
            assertThat(generations).hasSize(1).doesNotContain(-1);
            assertThat(all).hasSize(partitions).doesNotHaveDuplicates();
        });
    }

    @Test
    void testAMemberRejoinsAtOnceAfterAStaleViewAndBacksOffAfterACoordinatorError() {
        // As Kafka's AbstractCoordinator.joinGroupIfNeeded: the coordinator answered, the member's
        // generation or id was stale, so waiting would only delay the rebalance.
        assertThat(GroupMember.rejoinsAtOnce(ErrorCode.REBALANCE_IN_PROGRESS)).isTrue();
        assertThat(GroupMember.rejoinsAtOnce(ErrorCode.UNKNOWN_MEMBER_ID)).isTrue();
        assertThat(GroupMember.rejoinsAtOnce(ErrorCode.ILLEGAL_GENERATION)).isTrue();
        assertThat(GroupMember.rejoinsAtOnce(ErrorCode.COORDINATOR_NOT_AVAILABLE)).isFalse();
        assertThat(GroupMember.rejoinsAtOnce(ErrorCode.NOT_COORDINATOR)).isFalse();
        assertThat(GroupMember.rejoinsAtOnce(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)).isFalse();
    }

    @Test
    void testOneMemberJoinsLeadsAndOwnsEveryPartition() {
        GroupMember member = member("solo").build();
        Set<TopicPartition> assignment = pollUntilAssigned(member);

        assertThat(assignment).hasSize(TOPIC_PARTITIONS);
        assertThat(member.memberId()).startsWith("member-test-");
        assertThat(member.generationId()).isEqualTo(1);
        assertThat(member.isLeader()).isTrue();
        assertThat(member.protocolName()).isEqualTo("range");
        DescribeGroupsResponse.Group described = client.describeGroup("solo").orElseThrow();
        assertThat(described.getGroupState()).isEqualTo("Stable");
        assertThat(described.getMembersList()).singleElement().satisfies(m ->
                assertThat(m.getMemberId()).isEqualTo(member.memberId()));
        member.close();
        assertThat(client.describeGroup("solo").orElseThrow().getGroupState()).isEqualTo("Empty");
    }

    @Test
    void testEagerMembersSplitTheTopicAndNeverOverlap() {
        OwnershipTracker tracker = new OwnershipTracker();
        List<PollingMember> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(start("m" + i, member("eager").assignors(List.of(new RangeAssignor()))
                    .listener(tracker.listener("m" + i)).build()));
        }
        awaitBalanced(members, TOPIC_PARTITIONS);
        for (PollingMember m : members) {
            assertThat(m.assignment()).hasSize(2);
            assertThat(m.member.rebalanceProtocol()).isEqualTo(RebalanceProtocol.EAGER);
        }
        assertThat(tracker.violations()).isEmpty();
    }

    @Test
    void testCooperativeRebalanceRevokesOnlyWhatMoves() throws Exception {
        OwnershipTracker tracker = new OwnershipTracker();
        List<ConsumerPartitionAssignor> cooperative = List.of(new CooperativeStickyAssignor());
        List<PollingMember> members = new ArrayList<>();
        List<Collection<TopicPartition>> revokedByFirst = new CopyOnWriteArrayList<>();
        RebalanceListener first = tracker.listener("c0");
        members.add(start("c0", member("coop").assignors(cooperative).listener(new RebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                revokedByFirst.add(List.copyOf(partitions));
                first.onPartitionsRevoked(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                first.onPartitionsAssigned(partitions);
            }
        }).build()));
        awaitBalanced(members, TOPIC_PARTITIONS);
        Set<TopicPartition> before = Set.copyOf(members.get(0).assignment());

        members.add(start("c1", member("coop").assignors(cooperative).listener(tracker.listener("c1")).build()));
        awaitBalanced(members, TOPIC_PARTITIONS);

        assertThat(members.get(0).member.rebalanceProtocol()).isEqualTo(RebalanceProtocol.COOPERATIVE);
        assertThat(members.get(0).assignment()).hasSize(3).isSubsetOf(before);
        assertThat(members.get(1).assignment()).hasSize(3);
        // Only the three partitions that moved were revoked, in one callback; nothing was lost.
        assertThat(revokedByFirst).singleElement().satisfies(r ->
                assertThat(r).containsExactlyInAnyOrderElementsOf(members.get(1).assignment()));
        assertThat(tracker.violations()).isEmpty();
        assertThat(tracker.events()).noneMatch(e -> e.contains(" lost "));
    }

    @Test
    void testAMemberThatLeavesHandsItsPartitionsToTheOthers() throws Exception {
        OwnershipTracker tracker = new OwnershipTracker();
        List<PollingMember> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(start("l" + i, member("leaving").listener(tracker.listener("l" + i)).build()));
        }
        awaitBalanced(members, TOPIC_PARTITIONS);
        PollingMember leaving = members.remove(2);
        leaving.close();
        assertThat(leaving.failure()).isNull();

        awaitBalanced(members, TOPIC_PARTITIONS);
        assertThat(tracker.owned("l2")).isEmpty();
        assertThat(tracker.violations()).isEmpty();
        assertThat(client.describeGroup("leaving").orElseThrow().getMembersCount()).isEqualTo(2);
    }

    @Test
    void testALeaderWhoseAssignorOutlastsTheSessionTimeoutKeepsItsGeneration() {
        // Kafka's heartbeat thread runs from the JoinGroup answer on, so the session stays alive
        // while the leader computes the assignment (and while any member waits for its sync).
        AtomicBoolean firstAssignment = new AtomicBoolean(true);
        ConsumerPartitionAssignor slowOnce = new ConsumerPartitionAssignor() {
            private final RangeAssignor range = new RangeAssignor();

            @Override
            public String name() {
                return range.name();
            }

            @Override
            public Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic,
                                                  Map<String, Subscription> subscriptions) {
                if (firstAssignment.getAndSet(false)) {
                    // The scenario: an assignment that takes three session timeouts.
                    try {
                        Thread.sleep(3 * LocalCluster.MIN_SESSION_TIMEOUT_MS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return range.assign(partitionsPerTopic, subscriptions);
            }
        };
        GroupMember member = member("slow-assignor").assignors(List.of(slowOnce))
                .sessionTimeout(Duration.ofMillis(LocalCluster.MIN_SESSION_TIMEOUT_MS))
                .heartbeatInterval(Duration.ofMillis(LocalCluster.MIN_SESSION_TIMEOUT_MS / 5)).build();

        Set<TopicPartition> assignment = pollUntilAssigned(member);

        assertThat(assignment).hasSize(TOPIC_PARTITIONS);
        // Without heartbeats during the assignment the session expired, the sync was refused and the
        // member joined again as a new member: generation 3 at least.
        assertThat(member.generationId()).isEqualTo(1);
        assertThat(firstAssignment).isFalse();
        member.close();
    }

    @Test
    void testAnIdleMemberIsWokenWhenItsGroupStartsToRebalance() throws Exception {
        GroupMember first = member("wake").heartbeatInterval(Duration.ofMillis(200)).build();
        pollUntilAssigned(first);
        assertThat(first.awaitRebalanceNeeded(Duration.ofMillis(50))).as("stable, alone").isFalse();

        start("w1", member("wake").heartbeatInterval(Duration.ofMillis(200)).build());

        // Returns when the heartbeat learns of the rebalance the second member started, not at the
        // end of the wait: a poll loop idling in it takes part at once, as a Kafka consumer would.
        assertThat(first.awaitRebalanceNeeded(WAIT)).isTrue();
        await().atMost(WAIT).until(() -> first.poll(Duration.ofSeconds(5)), a -> a.size() == TOPIC_PARTITIONS / 2);
        assertThat(first.awaitRebalanceNeeded(Duration.ofMillis(50))).as("stable again").isFalse();
        first.close();
        assertThat(first.awaitRebalanceNeeded(WAIT)).as("closed").isTrue();
    }

    @Test
    void testCommitsCarryTheGenerationAndComeBackInOrder() throws Exception {
        GroupMember member = member("commits").build();
        pollUntilAssigned(member);
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        member.commitSync(Map.of(tp, new OffsetAndMetadata(10, "sync")));
        assertThat(client.fetchOffsets("commits")).containsEntry(tp, new OffsetAndMetadata(10, "sync"));

        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (int offset = 11; offset <= 60; offset++) {
            pending.add(member.commitAsync(Map.of(tp, new OffsetAndMetadata(offset))));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get();
        // Sent one at a time in call order: the last commit is the one that stays.
        assertThat(client.fetchOffsets("commits")).containsEntry(tp, new OffsetAndMetadata(60));
        member.close();
    }

    @Test
    void testAFencedMemberCannotCommitReportsItsPartitionsLostAndRejoins() {
        OwnershipTracker tracker = new OwnershipTracker();
        GroupMember member = member("fenced").heartbeatInterval(Duration.ofMillis(200))
                .listener(tracker.listener("f")).build();
        pollUntilAssigned(member);
        String oldId = member.memberId();

        // An operator removes the member (as kafka-consumer-groups.sh --remove-members would).
        assertThat(client.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId("fenced").addMembers(
                LeaveGroupRequest.Member.newBuilder().setMemberId(oldId)).build(), WAIT)
                .getMembers(0).getErrorCode()).isEqualTo(ErrorCode.NONE);

        assertThatThrownBy(() -> member.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(1))))
                .isInstanceOfSatisfying(CommitFailedException.class, e ->
                        assertThat(e.errorCode()).isIn(ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION));
        Set<TopicPartition> after = pollUntilAssigned(member);

        assertThat(after).hasSize(TOPIC_PARTITIONS);
        assertThat(member.memberId()).isNotEqualTo(oldId);
        assertThat(tracker.events()).anyMatch(e -> e.startsWith("f lost "));
        assertThat(tracker.violations()).isEmpty();
        member.close();
    }

    @Test
    void testAStaticMemberComesBackToItsAssignmentWithoutARebalance() throws Exception {
        List<PollingMember> members = new ArrayList<>();
        members.add(start("s0", member("static").groupInstanceId("instance-0").build()));
        members.add(start("s1", member("static").groupInstanceId("instance-1").build()));
        awaitBalanced(members, TOPIC_PARTITIONS);
        int generation = members.get(0).member.generationId();
        Set<TopicPartition> s1Partitions = Set.copyOf(members.get(1).assignment());

        // A static member does not leave on close; a new process with the same instance id replaces it.
        PollingMember gone = members.remove(1);
        gone.close();
        members.add(start("s1-again", member("static").groupInstanceId("instance-1").build()));
        awaitBalanced(members, TOPIC_PARTITIONS);

        assertThat(members.get(1).assignment()).isEqualTo(s1Partitions);
        assertThat(members.get(0).member.generationId()).isEqualTo(generation);
        assertThat(members.get(1).member.generationId()).isEqualTo(generation);
    }

    @Test
    void testAutoCommitCommitsProcessedPositionsOnClose() {
        GroupMember member = member("auto").autoCommit(Duration.ofSeconds(30)).build();
        pollUntilAssigned(member);
        member.markProcessed(new TopicPartition(TOPIC, 1), 99);
        member.markProcessed(new TopicPartition("not-mine", 0), 5);
        member.close();
        assertThat(client.fetchOffsets("auto")).containsExactly(Map.entry(new TopicPartition(TOPIC, 1),
                new OffsetAndMetadata(99)));
    }

    @Test
    void testMembersWithoutACommonAssignorAreRefused() {
        GroupMember first = member("mismatch").assignors(List.of(new RangeAssignor())).build();
        pollUntilAssigned(first);
        GroupMember second = member("mismatch").assignors(List.of(new RoundRobinAssignor())).build();
        assertThatThrownBy(() -> second.poll(WAIT)).isInstanceOfSatisfying(CohortException.class, e ->
                assertThat(e.errorCode()).isEqualTo(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        assertThatThrownBy(() -> second.poll(WAIT)).isInstanceOf(CohortException.class);
        second.close();
        first.close();
    }

    @Test
    void testASessionTimeoutOutsideTheAllowedRangeIsRefused() {
        GroupMember member = member("bad-session").sessionTimeout(Duration.ofMillis(10)).build();
        assertThatThrownBy(() -> member.poll(WAIT)).isInstanceOfSatisfying(CohortException.class, e ->
                assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_SESSION_TIMEOUT));
        member.close();
    }

    @Test
    void testCommitWithoutAGenerationFailsAtOnce() {
        GroupMember member = member("no-generation").build();
        assertThatThrownBy(() -> member.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(1))))
                .isInstanceOfSatisfying(CommitFailedException.class, e ->
                        assertThat(e.errorCode()).isEqualTo(ErrorCode.ILLEGAL_GENERATION));
        member.close();
    }

    private static Set<TopicPartition> pollUntilAssigned(GroupMember member) {
        return await().atMost(WAIT).until(() -> member.poll(Duration.ofSeconds(5)), a -> !a.isEmpty());
    }
}
