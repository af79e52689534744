package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the heartbeat thread sends, on a clock the test moves (Kafka's consumer Heartbeat timer). */
class HeartbeatScheduleTest {
    private static final long MS = 1_000_000L;
    private final HeartbeatSchedule schedule = new HeartbeatSchedule(Duration.ofSeconds(3));

    @Test
    void testNothingIsDueBeforeTheFirstJoinGroupAnswer() {
        assertThat(schedule.isEnabled()).isFalse();
        assertThat(schedule.nanosUntilDue(0)).isEqualTo(Long.MAX_VALUE);
        assertThat(schedule.nanosUntilDue(60_000 * MS)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void testTheFirstHeartbeatIsOneIntervalAfterTheJoinGroupAnswerNotAfterTheMembersCreation() {
        // Created at 0, joined at 2,500 ms: the beat follows the join (3 s later), so every member of
        // a group that joined together heartbeats together, one interval after the rebalance.
        schedule.onJoined(2_500 * MS);

        assertThat(schedule.nanosUntilDue(3_000 * MS)).isEqualTo(2_500 * MS);
        assertThat(schedule.nanosUntilDue(5_499 * MS)).isEqualTo(MS);
        assertThat(schedule.nanosUntilDue(5_500 * MS)).isZero();
    }

    @Test
    void testEachHeartbeatIsOneIntervalAfterTheLastOneSent() {
        schedule.onJoined(0);
        schedule.onSent(3_010 * MS);

        assertThat(schedule.nanosUntilDue(3_020 * MS)).isEqualTo(2_990 * MS);
        assertThat(schedule.nanosUntilDue(6_010 * MS)).isZero();
    }

    @Test
    void testARejoinStopsHeartbeatsUntilTheNextJoinGroupAnswerRestartsTheInterval() {
        schedule.onJoined(0);
        schedule.disable();
        assertThat(schedule.nanosUntilDue(10_000 * MS)).isEqualTo(Long.MAX_VALUE);

        schedule.onJoined(10_100 * MS);
        assertThat(schedule.isEnabled()).isTrue();
        assertThat(schedule.nanosUntilDue(10_100 * MS)).isEqualTo(3_000 * MS);
    }

    @Test
    void testAnIntervalMustBePositive() {
        assertThatThrownBy(() -> new HeartbeatSchedule(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
