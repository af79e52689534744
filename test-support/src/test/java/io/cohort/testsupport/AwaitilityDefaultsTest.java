package io.cohort.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.TestExecutionListener;

class AwaitilityDefaultsTest {
    @Test
    void theJUnitPlatformFindsTheListener() {
        assertThat(ServiceLoader.load(TestExecutionListener.class).stream().map(ServiceLoader.Provider::type))
                .contains(AwaitilityDefaults.class);
    }

    /**
     * Without a poll delay of zero, Awaitility's delay before the first look is the poll interval
     * (an hour here), longer than the wait allowed: the await would fail instead of returning.
     */
    @Test
    void anAwaitLooksAtItsConditionBeforeWaitingAPollInterval() {
        AtomicInteger looks = new AtomicInteger();
        await().pollInterval(Duration.ofHours(1)).atMost(Duration.ofSeconds(30))
                .until(() -> looks.incrementAndGet() > 0);
        assertThat(looks).hasValue(1);
    }
}
