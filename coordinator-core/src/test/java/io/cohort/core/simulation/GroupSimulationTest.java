package io.cohort.core.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@link GroupSimulation} over a fixed stream of seeds (200 x 300 steps by default). To replay one
 * failing run exactly: {@code -Dcohort.sim.seed=N -Dcohort.sim.steps=M}; to explore other seeds:
 * {@code -Dcohort.sim.seeds=COUNT -Dcohort.sim.firstSeed=FIRST} (default 200 seeds from 1).
 */
class GroupSimulationTest {
    static final String SEED_PROPERTY = "cohort.sim.seed";
    static final String STEPS_PROPERTY = "cohort.sim.steps";
    static final String SEEDS_PROPERTY = "cohort.sim.seeds";
    static final String FIRST_SEED_PROPERTY = "cohort.sim.firstSeed";
    static final int DEFAULT_SEEDS = 200;

    static LongStream seeds() {
        String one = System.getProperty(SEED_PROPERTY);
        if (one != null && !one.isBlank()) {
            return LongStream.of(Long.parseLong(one.trim()));
        }
        long first = Long.getLong(FIRST_SEED_PROPERTY, 1L);
        return LongStream.range(first, first + Integer.getInteger(SEEDS_PROPERTY, DEFAULT_SEEDS));
    }

    static int steps() {
        return Integer.getInteger(STEPS_PROPERTY, GroupSimulation.DEFAULT_STEPS);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @DisplayName("invariants (a)-(f) hold after every step of a seeded run")
    void invariantsHoldAfterEveryStep(long seed) {
        new GroupSimulation(seed).run(steps());
    }

    @Test
    @DisplayName("the same seed gives the same command log, leader times and results")
    void sameSeedSameRun() {
        GroupSimulation first = new GroupSimulation(42).run(200);
        GroupSimulation second = new GroupSimulation(42).run(200);

        assertThat(second.commandLog()).isEqualTo(first.commandLog());
        assertThat(second.commandLog().toString()).isEqualTo(first.commandLog().toString());
        assertThat(new GroupSimulation(43).run(200).commandLog()).isNotEqualTo(first.commandLog());
    }

    @Test
    @DisplayName("the seeds reach every command, group state and the rare protocol paths")
    void runsCoverTheProtocol() {
        Set<String> wanted = new TreeSet<>(List.of("JoinGroup", "SyncGroup", "LeaveGroup", "OffsetCommit",
                "DeleteGroups", "OffsetDelete", "ExpireMemberSession", "FireJoinTimer", "FireSyncTimer",
                "ExpireOffsets", "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "restart",
                "MEMBER_ID_REQUIRED", "FENCED_INSTANCE_ID", "GROUP_MAX_SIZE_REACHED", "SkipAssignment",
                "offset expired", "group expired", "INVALID_COMMIT_OFFSET_SIZE", "limit refused JoinGroup"));
        Set<String> seen = new TreeSet<>();
        long seed = 1;
        for (; seed <= 100 && !seen.containsAll(wanted); seed++) {
            GroupSimulation simulation = new GroupSimulation(seed).run(GroupSimulation.DEFAULT_STEPS);
            if (simulation.restarts() > 0) {
                seen.add("restart");
            }
            seen.addAll(simulation.commandCounts().keySet());
            for (GroupSimulation.LoggedCommand entry : simulation.commandLog()) {
                boolean expiry = entry.command() instanceof Command.ExpireOffsets;
                for (CoordinatorRecord record : entry.result().records()) {
                    if (record instanceof CoordinatorRecord.GroupValue value) {
                        seen.add(value.group().state().displayName());
                    } else if (expiry) {
                        seen.add(record instanceof CoordinatorRecord.GroupTombstone
                                ? "group expired" : "offset expired");
                    }
                }
                List<Response> answers = new ArrayList<>();
                answers.add(entry.result().immediateResponse());
                entry.result().completions().forEach(completion -> answers.add(completion.response()));
                for (Response answer : answers) {
                    if (answer instanceof OffsetCommitResponse commit && commit.errorMessage() != null) {
                        seen.add(commit.topics().get(0).partitions().get(0).error().name());
                    }
                    if (answer instanceof JoinGroupResponse join) {
                        seen.add(join.error().name());
                        if (join.errorMessage() != null) {
                            seen.add("limit refused JoinGroup");
                        }
                        if (join.skipAssignment()) {
                            seen.add("SkipAssignment");
                        }
                    }
                }
            }
        }

        assertThat(seen).as("reached within %d seeds", seed - 1).containsAll(wanted);
    }
}
