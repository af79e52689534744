package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The batch linger's learned expectation, driven with explicit times (no clock, no threads). */
class BatchExpectationTest {
    private static final long LINGER_NANOS = 2_000_000;
    private static final long ROUND_NANOS = 3_000_000;

    @Test
    void synchronousClientsThatComeBackAtOnceKeepTheWholeBurstExpected() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        long now = 0;
        int expected = expectation.onApplied(32, 0, now);
        for (int round = 0; round < 50; round++) {
            // All 32 answered clients send their next commit within half a millisecond.
            for (int client = 0; client < 32; client++) {
                expectation.onArrival(now + 10_000L * client);
            }
            now += ROUND_NANOS;
            expected = expectation.onApplied(32, 0, now);
        }
        assertThat(expected).isEqualTo(32);
        assertThat(expectation.returnShare()).isEqualTo(1.0);
    }

    @Test
    void clientsThatPauseBetweenCommitsStopTheLingerWaitingForThem() {
        BatchExpectation expectation = new BatchExpectation(LINGER_NANOS);
        long now = 0;
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
        long now = 0;
        expectation.onApplied(8, 0, now);
        for (int round = 0; round < 20; round++) {
            now += ROUND_NANOS;
            expectation.onApplied(8, 0, now);
        }
        assertThat(expectation.returnShare()).isLessThan(0.01);
        int expected = 0;
        for (int round = 0; round < 20; round++) {
            for (int client = 0; client < 8; client++) {
                expectation.onArrival(now + 100_000L * client);
            }
            now += ROUND_NANOS;
            expected = expectation.onApplied(8, 0, now);
        }
        assertThat(expected).isEqualTo(8);
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
