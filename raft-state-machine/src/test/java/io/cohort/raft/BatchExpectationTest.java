package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The batch linger's learned expectation, driven with explicit times (no clock, no threads). */
class BatchExpectationTest {
    private static final long LINGER_NANOS = 2_000_000;
    private static final long ROUND_NANOS = 3_000_000;

    private long now;

    /**
     * {@code rounds} entries, each answering {@code max(8, returning)} clients, of which
     * {@code returning} come back {@code spacingNanos} apart; returns the last expectation.
     */
    private int burstRounds(BatchExpectation expectation, int rounds, int returning, long spacingNanos) {
        int answered = Math.max(returning, 8);
        int expected = 0;
        for (int round = 0; round < rounds; round++) {
            for (int client = 0; client < returning; client++) {
                expectation.onArrival(now + spacingNanos * client);
            }
            now += ROUND_NANOS;
            expected = expectation.onApplied(answered, 0, now);
        }
        return expected;
    }

    @Test
    void synchronousClientsThatComeBackAtOnceKeepTheWholeBurstExpected() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(32, 0, now);
        // All 32 answered clients send their next commit within a third of a millisecond.
        assertThat(burstRounds(expectation, 50, 32, 10_000)).isEqualTo(32);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
    }

    @Test
    void clientsThatPauseBetweenCommitsStopTheLingerWaitingForThem() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        // The first entry answered 4 clients; with nothing learned yet, the next waits for all 4.
        assertThat(expectation.onApplied(4, 2, now)).isEqualTo(6);
        int expected = 0;
        for (int round = 0; round < 20; round++) {
            // The answered clients pause (50 ms); one other client's commit arrives within the
            // window, one later, while the next entry is in flight.
            expectation.onArrival(now + 1_000_000);
            expectation.onArrival(now + LINGER_NANOS + 500_000);
            now += ROUND_NANOS;
            expected = expectation.onApplied(4, 1, now);
        }
        // A quarter of the answered clients' worth arrives in a window: wait for one, plus the one queued.
        assertThat(expectation.returnShare()).isCloseTo(0.25, within(0.01));
        assertThat(expected).isEqualTo(2);
    }

    @Test
    void theExpectationRecoversWhenClientsGoBackToCommittingAtOnce() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(8, 0, now);
        assertThat(burstRounds(expectation, 20, 0, 0)).as("no one came back").isZero();
        assertThat(expectation.returnShare()).isLessThan(0.01);
        assertThat(burstRounds(expectation, 20, 8, 100_000)).isEqualTo(8);
    }

    @Test
    void onlyArrivalsWithinOneLingerOfTheApplyCount() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onApplied(4, 0, 0);
        expectation.onArrival(LINGER_NANOS);
        expectation.onArrival(LINGER_NANOS + 1);
        expectation.onArrival(10 * LINGER_NANOS);
        expectation.onApplied(4, 0, 20 * LINGER_NANOS);
        // One of four within the window: the average moves a quarter of the way from 1 to 0.25.
        assertThat(expectation.returnShare()).isEqualTo(1.0 + (0.25 - 1.0) * BatchExpectation.SMOOTHING);
    }

    @Test
    void arrivalsBeforeAnyEntryAnsweredAnyoneAreNotScored() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        expectation.onArrival(0);
        assertThat(expectation.onApplied(0, 3, 1_000)).isEqualTo(3);
        expectation.onArrival(2_000);
        assertThat(expectation.onApplied(1, 0, 5_000)).isEqualTo(1);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
    }
}
