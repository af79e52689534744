package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The consumer protocol's log-format gate asks the nodes until they all read format 4, then never again. */
class ConsumerProtocolGateTest {
    private final AtomicInteger asked = new AtomicInteger();
    private final AtomicReference<String> answer = new AtomicReference<>();
    private final ConsumerProtocolGate gate = new ConsumerProtocolGate(() -> {
        asked.incrementAndGet();
        return CompletableFuture.completedFuture(answer.get());
    }, () -> false);

    @Test
    void testARefusalIsKeptForAWhileAndAnOpenGateIsNeverAskedAgain() {
        answer.set("node 3 reads log format up to 3 (an older build)");

        assertThat(gate.refusal().join()).contains("node 3");
        assertThat(gate.refusal().join()).as("kept, not asked again at once").contains("node 3");
        assertThat(asked).hasValue(1);

        answer.set(null);
        ConsumerProtocolGate fresh = new ConsumerProtocolGate(() -> {
            asked.incrementAndGet();
            return CompletableFuture.completedFuture(answer.get());
        }, () -> false);
        assertThat(fresh.refusal().join()).isNull();
        for (int i = 0; i < 10; i++) {
            assertThat(fresh.refusal().join()).isNull();
        }
        assertThat(asked).as("once for the refusal, once for the open gate").hasValue(2);
    }

    @Test
    void testAFailedCheckRefusesAndIsAskedAgainLater() {
        CompletableFuture<String> failed = CompletableFuture.failedFuture(new IllegalStateException("no answer"));
        ConsumerProtocolGate failing = new ConsumerProtocolGate(() -> {
            asked.incrementAndGet();
            return failed;
        }, () -> false);

        assertThat(failing.refusal()).isCompletedExceptionally();
        assertThat(asked).hasValue(1);
    }

    @Test
    void testTheNodesAreNotAskedOnceFormatFourStateExists() {
        answer.set("node 1 did not answer, so its log format is unknown");
        ConsumerProtocolGate afterFailover = new ConsumerProtocolGate(() -> {
            asked.incrementAndGet();
            return CompletableFuture.completedFuture(answer.get());
        }, () -> true);

        assertThat(afterFailover.refusal().join()).isNull();
        assertThat(asked).hasValue(0);
    }
}
