package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.api.v1.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-848's consumer protocol end to end: {@link GroupMember}s with {@code GroupProtocol.CONSUMER}
 * against three real nodes in this JVM, the coordinator computing the assignment from the topic
 * registry. A member joining an existing group moves only the partitions it takes (the others are
 * not revoked everything, as a classic eager rebalance would), no partition is ever owned by two
 * members, commits carry the member epoch, and ConsumerGroupDescribe reports what the members hold.
 */
class ConsumerProtocolEndToEndTest {
    private static final String TOPIC = "kip848-events";
    private static final int TOPIC_PARTITIONS = 12;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static CohortClient client;
    private final List<PollingMember> running = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        // Short consumer sessions so that a member that stops heartbeating is fenced within the test.
        cluster = LocalCluster.start(root, 3, 3, Map.of("group.consumer.session.timeout.ms", "4000",
                "group.consumer.heartbeat.interval.ms", "250"));
        client = cluster.client("kip848-test");
        var created = client.createTopics(List.of(CreateTopicsRequest.NewTopic.newBuilder().setName(TOPIC)
                .setPartitionCount(TOPIC_PARTITIONS).build()), false);
        assertThat(created.getResults(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
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

    private PollingMember start(String name, String group, OwnershipTracker tracker) {
        GroupMember member = GroupMember.builder(client, group).subscribe(List.of(TOPIC))
                .groupProtocol(GroupProtocol.CONSUMER).serverAssignor("uniform")
                .listener(tracker.listener(name)).build();
        PollingMember polling = new PollingMember(name, member);
        running.add(polling);
        return polling;
    }

    /** Every partition owned by exactly one running member, and each member within one of the others. */
    private void awaitBalanced(List<PollingMember> members, OwnershipTracker tracker) {
        await().atMost(WAIT).untilAsserted(() -> {
            for (PollingMember m : members) {
                assertThat(m.failure()).as("failure of %s", m.name).isNull();
            }
            Set<TopicPartition> all = new HashSet<>();
            int owned = 0;
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (PollingMember m : members) {
                Set<TopicPartition> mine = m.assignment();
                owned += mine.size();
                all.addAll(mine);
                min = Math.min(min, mine.size());
                max = Math.max(max, mine.size());
            }
            assertThat(all).hasSize(TOPIC_PARTITIONS);
            assertThat(owned).isEqualTo(TOPIC_PARTITIONS);
            assertThat(max - min).isLessThanOrEqualTo(1);
            assertThat(tracker.ownedCount()).isEqualTo(TOPIC_PARTITIONS);
        });
        assertThat(tracker.violations()).isEmpty();
    }

    @Test
    void aJoiningMemberTakesItsShareWithoutStoppingTheOthers() {
        String group = "kip848-join";
        OwnershipTracker tracker = new OwnershipTracker();
        List<PollingMember> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(start("m" + i, group, tracker));
        }
        awaitBalanced(members, tracker);
        Map<String, Set<TopicPartition>> before = new HashMap<>();
        for (PollingMember m : members) {
            before.put(m.name, new TreeSet<>(m.assignment()));
        }

        members.add(start("m3", group, tracker));
        awaitBalanced(members, tracker);

        // Sticky and incremental: each earlier member kept all but what the newcomer needed (4 -> 3).
        for (PollingMember m : members.subList(0, 3)) {
            assertThat(before.get(m.name)).containsAll(m.assignment());
            assertThat(m.assignment()).hasSize(3);
        }

        DescribedConsumerGroup described = client.describeConsumerGroups(List.of(group)).get(0);
        assertThat(described.getErrorCode()).isEqualTo(ErrorCode.NONE);
        assertThat(described.getGroupState()).isEqualTo("Stable");
        assertThat(described.getAssignorName()).isEqualTo("uniform");
        assertThat(described.getMembersList()).hasSize(4).allSatisfy(member -> {
            assertThat(member.getMemberEpoch()).isEqualTo(described.getGroupEpoch());
            assertThat(member.getMemberState()).isEqualTo("STABLE");
            assertThat(member.getAssignmentList()).isEqualTo(member.getTargetAssignmentList());
            assertThat(member.getAssignmentList()).singleElement()
                    .satisfies(t -> assertThat(t.getTopicName()).isEqualTo(TOPIC));
        });
        assertThat(described.getAssignmentEpoch()).isEqualTo(described.getGroupEpoch());
    }

    @Test
    void commitsCarryTheMemberEpochAndALeavingMembersPartitionsMoveToTheOthers() throws Exception {
        String group = "kip848-commit";
        OwnershipTracker tracker = new OwnershipTracker();
        List<PollingMember> members = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            members.add(start("c" + i, group, tracker));
        }
        awaitBalanced(members, tracker);

        PollingMember committer = members.get(0);
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : committer.assignment()) {
            offsets.put(tp, new OffsetAndMetadata(100 + tp.partition(), ""));
        }
        committer.member.commitSync(offsets);
        assertThat(client.fetchOffsets(group)).containsAllEntriesOf(offsets);
        assertThat(committer.member.committed(offsets.keySet())).as("fetched with the member's id and epoch")
                .isEqualTo(offsets);

        PollingMember leaver = members.remove(1);
        String leaverId = leaver.member.memberId();
        int leaverEpoch = leaver.member.generationId();
        leaver.close();
        running.remove(leaver);
        assertThatThrownBy(() -> client.fetchOffsets(group, offsets.keySet(), leaverId, leaverEpoch))
                .as("a member that left cannot fetch as itself")
                .isInstanceOfSatisfying(CohortException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(io.cohort.api.v1.ErrorCode.UNKNOWN_MEMBER_ID));
        awaitBalanced(members, tracker);
        assertThat(committer.assignment()).hasSize(TOPIC_PARTITIONS);
    }

    @Test
    void aTopicThatGainsPartitionsIsReassignedAtTheMembersNextHeartbeats() {
        String topic = "kip848-growing";
        assertThat(client.createTopics(List.of(CreateTopicsRequest.NewTopic.newBuilder().setName(topic)
                .setPartitionCount(2).build()), false).getResults(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
        String group = "kip848-grow";
        OwnershipTracker tracker = new OwnershipTracker();
        List<PollingMember> members = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            GroupMember member = GroupMember.builder(client, group).subscribe(List.of(topic))
                    .groupProtocol(GroupProtocol.CONSUMER).listener(tracker.listener("g" + i)).build();
            members.add(new PollingMember("g" + i, member));
        }
        running.addAll(members);
        await().atMost(WAIT).until(() -> tracker.ownedCount() == 2);
        int epochBefore = client.describeConsumerGroups(List.of(group)).get(0).getGroupEpoch();

        assertThat(client.alterTopics(List.of(io.cohort.api.v1.AlterTopicsRequest.TopicChange.newBuilder()
                .setName(topic).setPartitionCount(6).build()), false).getResults(0).getErrorCode())
                .isEqualTo(ErrorCode.NONE);

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(tracker.ownedCount()).isEqualTo(6);
            assertThat(members).allSatisfy(m -> assertThat(m.assignment()).hasSize(3));
        });
        assertThat(tracker.violations()).isEmpty();
        assertThat(client.describeConsumerGroups(List.of(group)).get(0).getGroupEpoch()).isGreaterThan(epochBefore);
    }
}
