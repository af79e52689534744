package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The batch linger's learned expectation, driven with explicit times (no clock, no threads). */
class BatchExpectationTest {
    private static final long LINGER_NANOS = 2_000_000;
    private static final long ROUND_NANOS = 3_000_000;

    private long now;

    /** Return keys of {@code count} clients of groups "g0", "g1", ... */
    private static List<String> groups(int count) {
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add("g" + i);
        }
        return keys;
    }

    /**
     * {@code rounds} entries, each answering {@code max(8, returning)} clients, of which
     * {@code returning} come back {@code spacingNanos} apart; returns the last expectation.
     */
    private int burstRounds(BatchExpectation expectation, int rounds, int returning, long spacingNanos) {
        List<String> answered = groups(Math.max(returning, 8));
        int expected = 0;
        for (int round = 0; round < rounds; round++) {
            for (int client = 0; client < returning; client++) {
                expectation.onArrival(answered.get(client), now + spacingNanos * client);
            }
            now += ROUND_NANOS;
            expected = expectation.onApplied(answered, 0, now);
        }
        return expected;
    }

    @Test
    void synchronousClientsThatComeBackAtOnceKeepTheWholeBurstExpected() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(groups(32), 0, now);
        // All 32 answered clients send their next commit within a third of a millisecond.
        assertThat(burstRounds(expectation, 50, 32, 10_000)).isEqualTo(32);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
    }

    @Test
    void otherClientsCommandsWithinTheWindowAreNotReturns() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        // The first entry answered 4 clients; with nothing learned yet, the next waits for all 4.
        assertThat(expectation.onApplied(groups(4), 2, now)).isEqualTo(6);
        int expected = 0;
        for (int round = 0; round < 20; round++) {
            // The answered clients pause (50 ms); other groups' commits arrive within the window,
            // as many as the entry answered: load, not returns.
            for (int other = 0; other < 4; other++) {
                expectation.onArrival("other-" + round + "-" + other, now + 100_000 * (other + 1));
            }
            now += ROUND_NANOS;
            expected = expectation.onApplied(groups(4), 1, now);
        }
        assertThat(expectation.returnShare()).isLessThan(0.01);
        // Wait for no one who is not already there: the one queued.
        assertThat(expected).isEqualTo(1);
    }

    @Test
    void theShareIsTheAnsweredClientsThatCameBack() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(groups(4), 0, now);
        int expected = 0;
        for (int round = 0; round < 30; round++) {
            // One of the four answered clients commits again at once, the others pause.
            expectation.onArrival("g0", now + 200_000);
            now += ROUND_NANOS;
            expected = expectation.onApplied(groups(4), 1, now);
        }
        assertThat(expectation.returnShare()).isCloseTo(0.25, within(0.01));
        assertThat(expected).isEqualTo(2);
    }

    @Test
    void aClientOfTheEntryBeforeBackLateCountsInTheNextWindow() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(groups(4), 0, 0);
        // g0-g2 come back within the window; g3 only after the next entry was applied.
        expectation.onArrival("g0", 100_000);
        expectation.onArrival("g1", 200_000);
        expectation.onArrival("g2", 300_000);
        expectation.onApplied(List.of("g0", "g1", "g2"), 1, ROUND_NANOS);
        expectation.onArrival("g3", ROUND_NANOS + 100_000);
        expectation.onArrival("g0", ROUND_NANOS + 200_000);
        expectation.onArrival("g1", ROUND_NANOS + 300_000);
        double afterFirst = 1.0 + (0.75 - 1.0) * BatchExpectation.SMOOTHING;
        assertThat(expectation.returnShare()).isEqualTo(afterFirst);
        expectation.onApplied(List.of("x"), 0, 2 * ROUND_NANOS);
        // g3 stands in for g2, which will be back in the window after: three of three.
        assertThat(expectation.returnShare()).isEqualTo(afterFirst + (1.0 - afterFirst) * BatchExpectation.SMOOTHING);
    }

    @Test
    void aLateClientCountsOnceAndNotTwoEntriesLater() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(groups(2), 0, 0);
        expectation.onApplied(List.of("x"), 0, ROUND_NANOS);
        expectation.onApplied(List.of("y", "w"), 0, 2 * ROUND_NANOS);
        double share = expectation.returnShare();
        // g0 was answered two entries ago: not a return any more; x one entry ago: a return, once.
        expectation.onArrival("g0", 2 * ROUND_NANOS + 100_000);
        expectation.onArrival("x", 2 * ROUND_NANOS + 200_000);
        expectation.onArrival("x", 2 * ROUND_NANOS + 300_000);
        expectation.onApplied(List.of("z"), 0, 3 * ROUND_NANOS);
        // One return (x) of the two y and w answered.
        assertThat(expectation.returnShare()).isEqualTo(share + (0.5 - share) * BatchExpectation.SMOOTHING);
    }

    @Test
    void membersOfOneGroupCountOncePerAnsweredCommand() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(Arrays.asList("g", "g", "g", "h"), 0, 0);
        for (int i = 1; i <= 5; i++) {
            expectation.onArrival("g", i * 1_000);
        }
        expectation.onApplied(List.of("x"), 0, ROUND_NANOS);
        // Three of g's commands answered, five came: three returns of four answered.
        assertThat(expectation.returnShare()).isEqualTo(1.0 + (0.75 - 1.0) * BatchExpectation.SMOOTHING);
    }

    @Test
    void commandsWithoutAReturnKeyAreNeitherExpectedNorScored() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        // A timer's command and one client's commit answered: only the client is expected back.
        assertThat(expectation.onApplied(Arrays.asList(null, "g0"), 0, 0)).isEqualTo(1);
        expectation.onArrival(null, 1_000);
        expectation.onArrival("g0", 2_000);
        assertThat(expectation.onApplied(Arrays.asList(null, null), 2, ROUND_NANOS)).isEqualTo(2);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
        // Nothing but timers answered: no window, so nothing to score at the next entry.
        expectation.onArrival("g0", ROUND_NANOS + 1_000);
        expectation.onApplied(List.of("g0"), 0, 2 * ROUND_NANOS);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
    }

    @Test
    void onlyReturnsWithinOneLingerOfTheApplyCount() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(groups(4), 0, 0);
        expectation.onArrival("g0", LINGER_NANOS);
        expectation.onArrival("g1", LINGER_NANOS + 1);
        expectation.onArrival("g2", 10 * LINGER_NANOS);
        expectation.onApplied(groups(4), 0, 20 * LINGER_NANOS);
        // One of four within the window: the average moves a quarter of the way from 1 to 0.25.
        assertThat(expectation.returnShare()).isEqualTo(1.0 + (0.25 - 1.0) * BatchExpectation.SMOOTHING);
    }

    @Test
    void arrivalsBeforeAnyEntryAnsweredAnyoneAreNotScored() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onArrival("g0", 0);
        assertThat(expectation.onApplied(List.of(), 3, 1_000)).isEqualTo(3);
        expectation.onArrival("g0", 2_000);
        assertThat(expectation.onApplied(groups(1), 0, 5_000)).isEqualTo(1);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
    }
}
