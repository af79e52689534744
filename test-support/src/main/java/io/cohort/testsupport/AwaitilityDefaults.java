package io.cohort.testsupport;

import java.time.Duration;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Makes every {@code await()} of a test JVM look at its condition at once: Awaitility's default
 * poll delay is its poll interval (100 ms), so each {@code await().until(...)} slept 100 ms before
 * the first look even when the condition already held. Tests call it in loops (find the leader
 * before each of hundreds of commits), which cost the build minutes of sleeping. The poll interval
 * (how often a condition that does not hold yet is looked at again) stays Awaitility's; an explicit
 * {@code pollDelay(...)} in a test still wins.
 *
 * <p>Registered in {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}, so
 * the JUnit Platform of every module whose tests have this jar on their class path (surefire and
 * failsafe forks alike) runs it before the first test; nothing to do in the tests.
 */
public final class AwaitilityDefaults implements TestExecutionListener {
    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        apply();
    }

    /** Sets the defaults; a JVM without Awaitility on its class path is left alone. */
    static void apply() {
        try {
            org.awaitility.Awaitility.setDefaultPollDelay(Duration.ZERO);
        } catch (LinkageError noAwaitility) {
            // This JVM's tests do not use Awaitility.
        }
    }
}
