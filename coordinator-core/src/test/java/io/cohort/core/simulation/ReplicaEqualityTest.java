package io.cohort.core.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The replica-equality check (STYLE.md 13): the command log of a simulation run, every command with its
 * leader time (timer commands included), fed to fresh shards gives the same results, command by
 * command, and the same snapshot, as the simulated leader (which was itself replaced by restored
 * shards along the way). Member order is compared too (and the final snapshots' text), because map
 * equality ignores it while leader succession depends on it.
 */
class ReplicaEqualityTest {
    private static final Map<Long, GroupSimulation> RUNS = new ConcurrentHashMap<>();

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 25);
    }

    /** Each seed's run is simulated once and shared by both tests. */
    private static GroupSimulation run(long seed) {
        return RUNS.computeIfAbsent(seed, s -> new GroupSimulation(s).run(GroupSimulation.DEFAULT_STEPS));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @DisplayName("two fresh replicas fed the same command log agree on every result and on the snapshot")
    void twoFreshReplicasAgree(long seed) {
        GroupSimulation simulation = run(seed);
        List<GroupSimulation.LoggedCommand> log = simulation.commandLog();
        GroupCoordinatorShard first = new GroupCoordinatorShard(simulation.config());
        GroupCoordinatorShard second = new GroupCoordinatorShard(simulation.config());

        for (int i = 0; i < log.size(); i++) {
            GroupSimulation.LoggedCommand entry = log.get(i);
            Result a = first.apply(entry.command(), entry.nowMs());
            Result b = second.apply(entry.command(), entry.nowMs());
            assertSameResult(a, b, seed, i, entry);
            assertSameResult(a, entry.result(), seed, i, entry);
        }

        assertSameSnapshot(first.snapshot(), second.snapshot(), seed);
        assertSameSnapshot(first.snapshot(), simulation.shard().snapshot(), seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @DisplayName("a replica restored from a mid-run snapshot and fed the log suffix ends equal")
    void replicaRestoredFromMidRunSnapshotCatchesUp(long seed) {
        GroupSimulation simulation = run(seed);
        List<GroupSimulation.LoggedCommand> log = simulation.commandLog();
        for (int cut : List.of(log.size() / 3, log.size() / 2, 2 * log.size() / 3)) {
            GroupCoordinatorShard prefix = new GroupCoordinatorShard(simulation.config());
            for (GroupSimulation.LoggedCommand entry : log.subList(0, cut)) {
                prefix.apply(entry.command(), entry.nowMs());
            }
            GroupCoordinatorShard restored = new GroupCoordinatorShard(simulation.config());
            restored.restore(prefix.snapshot());

            for (int i = cut; i < log.size(); i++) {
                GroupSimulation.LoggedCommand entry = log.get(i);
                assertSameResult(restored.apply(entry.command(), entry.nowMs()), entry.result(), seed, i, entry);
            }
            assertSameSnapshot(restored.snapshot(), simulation.shard().snapshot(), seed);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @DisplayName("a lagging replica that installs a later snapshot over its own state continues equal")
    void laggingReplicaInstallsSnapshotOverItsState(long seed) {
        GroupSimulation simulation = run(seed);
        List<GroupSimulation.LoggedCommand> log = simulation.commandLog();
        int lag = log.size() / 4;
        int cut = log.size() / 2;
        GroupCoordinatorShard leader = new GroupCoordinatorShard(simulation.config());
        GroupCoordinatorShard lagging = new GroupCoordinatorShard(simulation.config());
        for (int i = 0; i < cut; i++) {
            leader.apply(log.get(i).command(), log.get(i).nowMs());
            if (i < lag) {
                lagging.apply(log.get(i).command(), log.get(i).nowMs());
            }
        }

        lagging.restore(leader.snapshot());

        assertSameSnapshot(lagging.snapshot(), leader.snapshot(), seed);
        for (int i = cut; i < log.size(); i++) {
            GroupSimulation.LoggedCommand entry = log.get(i);
            assertSameResult(lagging.apply(entry.command(), entry.nowMs()), entry.result(), seed, i, entry);
        }
        assertSameSnapshot(lagging.snapshot(), simulation.shard().snapshot(), seed);
    }

    private static void assertSameResult(Result actual, Result expected, long seed, int index,
                                         GroupSimulation.LoggedCommand entry) {
        String description = "seed " + seed + ", command #" + index + " at " + entry.nowMs() + ": " + entry.command();
        assertThat(actual).as(description).isEqualTo(expected);
        assertThat(SimulationModel.memberOrder(actual.records())).as(description)
                .isEqualTo(SimulationModel.memberOrder(expected.records()));
    }

    private static void assertSameSnapshot(List<CoordinatorRecord> actual, List<CoordinatorRecord> expected,
                                           long seed) {
        assertThat(actual).as("seed " + seed).isEqualTo(expected);
        assertThat(actual.toString()).as("seed " + seed).isEqualTo(expected.toString());
    }
}
