package io.cohort.core.shard;

import static io.cohort.core.shard.ConsumerGroupTestContext.assignment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.command.Command;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.ConsumerMemberAssignment;
import io.cohort.core.consumer.ConsumerMemberMetadata;
import io.cohort.core.consumer.MemberState;
import io.cohort.core.record.CoordinatorRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Consumer-group records: replay rejects records that break an invariant (as the classic records
 * do), snapshots are sorted and rebuild the state, and two replicas fed the same commands agree.
 */
class ConsumerGroupReplayTest {
    private static final String GROUP = "grp";
    private static final ConsumerMemberMetadata METADATA = new ConsumerMemberMetadata(null, null, 1000, "c", "h",
            new TreeSet<>(List.of("foo")), null, null);

    private static GroupCoordinatorShard shardWithMembers() {
        GroupCoordinatorShard shard = new GroupCoordinatorShard(ConsumerGroupTestContext.CONFIG, List.of());
        shard.replay(new CoordinatorRecord.ConsumerMemberMetadataValue(GROUP, "m1", METADATA));
        shard.replay(new CoordinatorRecord.ConsumerMemberMetadataValue(GROUP, "m2", METADATA));
        shard.replay(new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 1));
        shard.replay(new CoordinatorRecord.ConsumerCurrentAssignmentValue(GROUP, "m1", new ConsumerMemberAssignment(1,
                0, MemberState.STABLE, assignment("foo", 0, 1).build(), Assignment.EMPTY)));
        return shard;
    }

    @Test
    void testReplayRejectsAPartitionOwnedByTwoMembers() {
        GroupCoordinatorShard shard = shardWithMembers();

        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerCurrentAssignmentValue(GROUP, "m2",
                new ConsumerMemberAssignment(1, 0, MemberState.STABLE, Assignment.EMPTY,
                        assignment("foo", 1).build()))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("owned by both");
        assertThat(shard.consumerGroup(GROUP).member("m2").assignedPartitions()).isEqualTo(Assignment.EMPTY);
    }

    @Test
    void testReplayRejectsRecordsOfUnknownMembersGroupsAndEpochsGoingBack() {
        GroupCoordinatorShard shard = shardWithMembers();

        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerTargetAssignmentValue(GROUP, "m9",
                Assignment.EMPTY))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerCurrentAssignmentValue("other", "m1",
                ConsumerMemberAssignment.JOINING))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 0)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerAssignmentEpochValue(GROUP, 2)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerGroupTombstone(GROUP)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("with members");
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerMemberTombstone(GROUP, "m9")))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testConsumerAndClassicGroupCannotShareAnIdWhileEitherHasMembers() {
        GroupCoordinatorShard shard = shardWithMembers();
        GroupShardTestContext classic = new GroupShardTestContext();
        classic.stableGroupWithOneMember("classic");

        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.GroupValue(
                io.cohort.core.group.ClassicGroup.newEmpty(GROUP, 0)))).isInstanceOf(IllegalStateException.class);
        shard.replay(new CoordinatorRecord.GroupValue(classic.group("classic")));
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.ConsumerMemberMetadataValue("classic", "x",
                METADATA))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testSnapshotIsSortedAndRebuildsTheState() {
        ConsumerGroupTestContext ctx = new ConsumerGroupTestContext();
        ctx.createTopic("foo", 4);
        ctx.regexResolutions.put("f.*", java.util.Set.of("foo"));
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1, 2, 3).build()));
        ctx.member(GROUP, "m1").joining("foo").send();
        ctx.assignor.prepare(Map.of("m1", assignment("foo", 0, 1).build(), "m2", assignment("foo", 2, 3).build()));
        ctx.member(GROUP, "m2").joining().topicList(List.of()).regex("f.*").send();
        ctx.member(GROUP, "m1").epoch(1).owned(assignment("foo", 0, 1, 2, 3).build()).send();

        List<CoordinatorRecord> snapshot = ctx.shard().snapshot();

        List<CoordinatorRecord> sorted = new ArrayList<>(snapshot);
        sorted.sort(CoordinatorRecord.SNAPSHOT_ORDER);
        assertThat(snapshot).isEqualTo(sorted);
        assertThat(snapshot.get(0)).isEqualTo(new CoordinatorRecord.ConsumerGroupEpochValue(GROUP, 2));
        assertThat(snapshot).hasSize(4 + 3 + 3);
        GroupCoordinatorShard restored = new GroupCoordinatorShard(ConsumerGroupTestContext.CONFIG, List.of());
        restored.restore(snapshot);
        assertThat(restored.consumerGroup(GROUP)).isEqualTo(ctx.group(GROUP));
    }

    @Test
    void testTwoReplicasFedTheSameCommandsAgree() {
        ConsumerGroupTestContext leader = new ConsumerGroupTestContext();
        leader.createTopic("foo", 8);
        GroupCoordinatorShard follower = new GroupCoordinatorShard(ConsumerGroupTestContext.CONFIG,
                List.of(new MockPartitionAssignor("mock"), new RoundRobinTestAssignor("roundrobin")));
        List<Command> log = new ArrayList<>();
        for (String m : List.of("a", "b", "c")) {
            log.add(leader.member(GROUP, m).joining("foo").assignor("roundrobin").build());
        }
        log.add(leader.member(GROUP, "a").epoch(1).owned(Assignment.EMPTY).build());
        log.add(leader.member(GROUP, "b").epoch(-1).build());
        log.add(new Command.ExpireConsumerMember(GROUP, "c"));
        long now = 0;
        for (Command command : log) {
            leader.apply(command);
            follower.apply(command, now);
        }
        assertThat(follower.snapshot()).isEqualTo(leader.shard().snapshot());
        assertThat(follower.consumerGroup(GROUP)).isEqualTo(leader.group(GROUP));
    }
}
