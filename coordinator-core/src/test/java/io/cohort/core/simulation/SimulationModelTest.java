package io.cohort.core.simulation;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.Bytes;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.offset.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.GroupShardTestContext;
import io.cohort.core.simulation.SimulationModel.ExpectedOffset;
import io.cohort.core.simulation.SimulationModel.GenerationKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The simulation's oracle can fail: each invariant rejects a state or answer that breaks it. */
class SimulationModelTest {
    private static final GenerationKey G1 = new GenerationKey("g", 1);
    private final GroupCoordinatorShard shard = new GroupCoordinatorShard(GroupShardTestContext.TEST_CONFIG);
    private final SimulationModel model = new SimulationModel(GroupShardTestContext.TEST_CONFIG);

    private static Bytes assignment(String topic, int... partitions) {
        return SimCodec.assignment(java.util.Arrays.stream(partitions)
                .mapToObj(p -> new TopicPartition(topic, p)).toList());
    }

    @Test
    @DisplayName("(b) one partition told to two owners in one generation is a violation")
    void partitionWithTwoOwners() {
        model.assignmentAccepted(G1, Map.of("member:a", assignment("t1", 0), "member:b", assignment("t1", 0)));
        model.assignmentDelivered(G1, "member:a", assignment("t1", 0));

        assertThatThrownBy(() -> model.assignmentDelivered(G1, "member:b", assignment("t1", 0)))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("owned by both");
    }

    @Test
    @DisplayName("(b) an assignment other than the leader's, or without an accepted one, is a violation")
    void assignmentNotFromTheLeader() {
        assertThatThrownBy(() -> model.assignmentDelivered(G1, "member:a", assignment("t1", 0)))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("no leader assignment");
        model.assignmentAccepted(G1, Map.of("member:a", assignment("t1", 1)));

        assertThatThrownBy(() -> model.assignmentDelivered(G1, "member:a", assignment("t1", 0)))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("its leader assigned");
    }

    @Test
    @DisplayName("(c) a member id told an older generation than before is a violation")
    void generationGoesBackForAMember() {
        ClassicGroup atTwo = new ClassicGroup("g", io.cohort.core.group.ClassicGroupState.EMPTY,
                io.cohort.core.group.ClassicGroupState.EMPTY, 0, 2, null, null, null, Map.of(), Map.of(),
                java.util.Set.of(), null, null, false, null);
        model.joinedGeneration("m", 2, atTwo);

        assertThatThrownBy(() -> model.joinedGeneration("m", 1, atTwo))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("after generation 2");
    }

    @Test
    @DisplayName("(a) a group whose generation goes back without a deletion is a violation")
    void groupGenerationGoesBack() {
        shard.replay(new CoordinatorRecord.GroupValue(ClassicGroup.newEmpty("g", 0).edit().build()));
        ClassicGroup atThree = new ClassicGroup("g", io.cohort.core.group.ClassicGroupState.EMPTY,
                io.cohort.core.group.ClassicGroupState.PREPARING_REBALANCE, 0, 3, "consumer", null, null, Map.of(),
                Map.of(), java.util.Set.of(), java.util.Set.of(), null, false, null);
        shard.replay(new CoordinatorRecord.GroupValue(atThree));
        model.checkGroups(shard);
        shard.replay(new CoordinatorRecord.GroupValue(ClassicGroup.newEmpty("g", 0)));

        assertThatThrownBy(() -> model.checkGroups(shard))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("went back from generation 3");
        model.groupDeleted("g");
        model.checkGroups(shard);
    }

    @Test
    @DisplayName("(d) a fetch that differs from the last acknowledged commit is a violation")
    void fetchDiffersFromAcknowledgedCommit() {
        model.knowGroup("s");
        shard.apply(new Command.OffsetCommit("s", -1, "", null, -1, List.of(new Command.TopicCommit("t1",
                List.of(new Command.PartitionCommit(0, 7, -1, null)))), (short) 9), 1_000);
        model.committed("s", new TopicPartition("t1", 0), new ExpectedOffset(7, -1, "", 1_000, -1));
        model.checkOffsets(shard);
        model.committed("s", new TopicPartition("t1", 0), new ExpectedOffset(8, -1, "", 1_000, -1));

        assertThatThrownBy(() -> model.checkOffsets(shard))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("last acknowledged commit");
    }

    @Test
    @DisplayName("(d) an offset expired before its retention is a violation")
    void offsetExpiredTooEarly() {
        TopicPartition partition = new TopicPartition("t1", 0);
        model.committed("s", partition, new ExpectedOffset(7, -1, "", 1_000, -1));

        assertThatThrownBy(() -> model.offsetExpired("s", partition, null, 1_000 + 60_000))
                .isInstanceOf(SimulationModel.Violation.class).hasMessageContaining("before the retention");
        model.offsetExpired("s", partition, null, 1_000 + GroupShardTestContext.TEST_CONFIG.offsetsRetentionMs());
    }
}
