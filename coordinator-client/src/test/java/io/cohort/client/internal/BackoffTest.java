package io.cohort.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The retry waits: growth, cap and jitter, and a call's schedule that polls routing answers flat. */
class BackoffTest {
    private final Backoff backoff = new Backoff(50, 250);

    @Test
    void testTheWaitDoublesUpToTheCapWithTwentyPercentJitter() {
        long[] expected = {50, 100, 200, 250, 250};
        for (int attempt = 0; attempt < expected.length; attempt++) {
            for (int draw = 0; draw < 100; draw++) {
                assertThat((double) backoff.delayMs(attempt)).as("attempt %d", attempt)
                        .isCloseTo(expected[attempt], within(expected[attempt] * Backoff.JITTER + 1));
            }
        }
    }

    @Test
    void testACallPollsItsFirstRoutingAnswersAtTheInitialWaitAndThenGrows() {
        Backoff.Schedule schedule = backoff.schedule();
        for (int poll = 0; poll < Backoff.ROUTING_POLLS; poll++) {
            assertThat((double) schedule.nextDelayMs(true)).as("routing answer %d", poll).isCloseTo(50, within(11.0));
        }
        // Beyond the flat polls the wait grows from the initial one, routing answer or not.
        assertThat((double) schedule.nextDelayMs(true)).isCloseTo(50, within(11.0));
        assertThat((double) schedule.nextDelayMs(true)).isCloseTo(100, within(21.0));
        assertThat((double) schedule.nextDelayMs(false)).isCloseTo(200, within(41.0));
    }

    @Test
    void testTransportFailuresGrowTheWaitAndRoutingAnswersDoNotResetIt() {
        Backoff.Schedule schedule = backoff.schedule();
        assertThat((double) schedule.nextDelayMs(false)).isCloseTo(50, within(11.0));
        assertThat((double) schedule.nextDelayMs(false)).isCloseTo(100, within(21.0));
        // A routing answer in between is polled flat and leaves the growth where it was.
        assertThat((double) schedule.nextDelayMs(true)).isCloseTo(50, within(11.0));
        assertThat((double) schedule.nextDelayMs(false)).isCloseTo(200, within(41.0));
        assertThat((double) schedule.nextDelayMs(false)).isCloseTo(250, within(51.0));
    }
}
