package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.RangeAssignor;
import io.cohort.client.assignor.Subscription;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator that stops in the middle of a rebalance: the members' parked JoinGroup or SyncGroup
 * ends (NOT_COORDINATOR or a broken connection), the client resends it to the new leader with the
 * same member id, and the replicated group state lets the rebalance finish there. Each test stops
 * the coordinator at a chosen phase, held there on purpose (a member that does not poll, an
 * assignor that waits), so the phase is certain rather than a matter of timing.
 */
class GroupMemberFailoverTest {
    private static final String TOPIC = "events";
    private static final int TOPIC_PARTITIONS = 6;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path root;

    private LocalCluster cluster;
    private CohortClient admin;
    private final List<PollingMember> running = new ArrayList<>();
    private final List<CohortClient> clients = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (PollingMember member : running) {
            member.close();
        }
        clients.forEach(CohortClient::close);
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private void startCluster() {
        cluster = LocalCluster.start(root, 3, 3);
        admin = cluster.client("admin");
    }

    private PollingMember start(String name, String group, ConsumerPartitionAssignor assignor, OwnershipTracker tracker) {
        CohortClient client = cluster.client(name);
        clients.add(client);
        GroupMember member = GroupMember.builder(client, group).subscribe(List.of(TOPIC))
                .topicMetadata(Map.of(TOPIC, TOPIC_PARTITIONS)).assignors(List.of(assignor))
                .sessionTimeout(Duration.ofSeconds(20)).heartbeatInterval(Duration.ofMillis(500))
                .rebalanceTimeout(Duration.ofSeconds(40)).listener(tracker.listener(name)).build();
        PollingMember polling = new PollingMember(name, member);
        running.add(polling);
        return polling;
    }

    private String state(String group) {
        return admin.describeGroup(group).map(DescribeGroupsResponse.Group::getGroupState).orElse("none");
    }

    private void stopCoordinatorOf(String group) {
        int coordinator = admin.findCoordinator(group).nodeId();
        cluster.stopNode(coordinator);
        cluster.awaitLeaders();
        assertThat(admin.findCoordinator(group).nodeId()).isNotEqualTo(coordinator);
    }

    private static void awaitBalanced(List<PollingMember> members) {
        await().atMost(WAIT).untilAsserted(() -> {
            Set<Integer> generations = new HashSet<>();
            List<TopicPartition> all = new ArrayList<>();
            for (PollingMember m : members) {
                assertThat(m.failure()).as(m.name).isNull();
                generations.add(m.member.generationId());
                all.addAll(m.assignment());
            }
            assertThat(generations).hasSize(1).doesNotContain(-1);
            assertThat(all).hasSize(TOPIC_PARTITIONS).doesNotHaveDuplicates();
        });
    }

    @Test
    void testARebalanceInItsJoinPhaseFinishesOnTheNewCoordinator() {
        startCluster();
        OwnershipTracker tracker = new OwnershipTracker();
        PollingMember first = start("a", "join-phase", new RangeAssignor(), tracker);
        awaitBalanced(List.of(first));
        int generation = first.member.generationId();

        // a stops polling, so the join phase that b starts waits for a's rejoin (up to 40 s).
        first.pause();
        PollingMember second = start("b", "join-phase", new RangeAssignor(), tracker);
        await().atMost(WAIT).until(() -> state("join-phase").equals("PreparingRebalance"));

        stopCoordinatorOf("join-phase");
        assertThat(state("join-phase")).isEqualTo("PreparingRebalance");
        first.resume();

        awaitBalanced(List.of(first, second));
        assertThat(first.member.generationId()).isGreaterThan(generation);
        assertThat(first.assignment()).hasSize(3);
        assertThat(tracker.violations()).isEmpty();
        assertThat(tracker.events()).noneMatch(e -> e.contains(" lost "));
    }

    @Test
    void testARebalanceInItsSyncPhaseFinishesOnTheNewCoordinator() throws Exception {
        startCluster();
        OwnershipTracker tracker = new OwnershipTracker();
        HeldAssignor held = new HeldAssignor();
        PollingMember leader = start("leader", "sync-phase", held, tracker);
        awaitBalanced(List.of(leader));
        held.hold();

        PollingMember follower = start("follower", "sync-phase", new RangeAssignor(), tracker);
        // The leader's assignor is waiting: the follower's SyncGroup is parked on the coordinator.
        assertThat(held.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await().atMost(WAIT).until(() -> state("sync-phase").equals("CompletingRebalance"));

        stopCoordinatorOf("sync-phase");
        assertThat(state("sync-phase")).isEqualTo("CompletingRebalance");
        held.release();

        awaitBalanced(List.of(leader, follower));
        assertThat(leader.assignment()).hasSize(3);
        assertThat(follower.assignment()).hasSize(3);
        assertThat(tracker.violations()).isEmpty();
    }

    @Test
    void testCommitsAndHeartbeatsCarryOnAcrossAFailover() {
        startCluster();
        OwnershipTracker tracker = new OwnershipTracker();
        PollingMember member = start("m", "stable-phase", new RangeAssignor(), tracker);
        awaitBalanced(List.of(member));
        int generation = member.member.generationId();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        member.member.commitSync(Map.of(tp, new OffsetAndMetadata(1)));

        stopCoordinatorOf("stable-phase");
        member.member.commitSync(Map.of(tp, new OffsetAndMetadata(2)));

        assertThat(admin.fetchOffsets("stable-phase")).containsEntry(tp, new OffsetAndMetadata(2));
        assertThat(member.member.generationId()).isEqualTo(generation);
        assertThat(state("stable-phase")).isEqualTo("Stable");
        assertThat(tracker.events()).noneMatch(e -> e.contains(" lost "));
    }

    /** A range assignor whose assign() can be held at a latch, to keep a group in its sync phase. */
    private static final class HeldAssignor implements ConsumerPartitionAssignor {
        private final RangeAssignor range = new RangeAssignor();
        final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile boolean holding;

        void hold() {
            holding = true;
        }

        void release() {
            released.countDown();
        }

        @Override
        public String name() {
            return range.name();
        }

        @Override
        public Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic,
                Map<String, Subscription> subscriptions) {
            if (holding && subscriptions.size() > 1) {
                entered.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return range.assign(partitionsPerTopic, subscriptions);
        }
    }
}
