package io.cohort.core.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@link ConsumerProtocolSimulation} over a fixed stream of seeds (the same properties as
 * {@link GroupSimulationTest}: {@code -Dcohort.sim.seed=N -Dcohort.sim.steps=M} replays one run).
 */
class ConsumerProtocolSimulationTest {

    static LongStream seeds() {
        String one = System.getProperty(GroupSimulationTest.SEED_PROPERTY);
        if (one != null && !one.isBlank()) {
            return LongStream.of(Long.parseLong(one.trim()));
        }
        long first = Long.getLong(GroupSimulationTest.FIRST_SEED_PROPERTY, 1L);
        return LongStream.range(first, first + Integer.getInteger(GroupSimulationTest.SEEDS_PROPERTY, 100));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @DisplayName("no partition owned by two members, or two clients, after any step; replicas agree")
    void invariantsHoldAfterEveryStep(long seed) {
        new ConsumerProtocolSimulation(seed).run(Integer.getInteger(GroupSimulationTest.STEPS_PROPERTY,
                ConsumerProtocolSimulation.DEFAULT_STEPS));
    }

    @Test
    @DisplayName("the seeds reach revocations, fencing, timers, restarts and unlogged heartbeats")
    void runsCoverTheProtocol() {
        Map<String, Integer> seen = new TreeMap<>();
        for (long seed = 1; seed <= 20; seed++) {
            new ConsumerProtocolSimulation(seed).run(ConsumerProtocolSimulation.DEFAULT_STEPS).counts()
                    .forEach((k, v) -> seen.merge(k, v, Integer::sum));
        }
        assertThat(seen).containsKeys("heartbeat NONE", "heartbeat FENCED_MEMBER_EPOCH", "heartbeat UNKNOWN_MEMBER_ID",
                "fired ExpireConsumerMember", "restart", "topic grew", "not logged", "logged", "leave",
                "static leave", "commit NONE", "commit STALE_MEMBER_EPOCH");
    }
}
