package io.cohort.client.assignor;

import static io.cohort.client.assignor.AssignorTesting.subscriptions;
import static io.cohort.client.assignor.AssignorTesting.tp;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RoundRobinAssignorTest {
    private final RoundRobinAssignor assignor = new RoundRobinAssignor();

    @Test
    void nameAndProtocols() {
        assertThat(assignor.name()).isEqualTo("roundrobin");
        assertThat(assignor.supportedProtocols()).containsExactly(RebalanceProtocol.EAGER);
    }

    /** Kafka's RoundRobinAssignor documentation, same subscriptions. */
    @Test
    void kafkaExampleSameSubscriptions() {
        Map<String, Assignment> result = assignor.assign(Map.of("t0", 3, "t1", 3),
                subscriptions("C0", List.of("t0", "t1"), "C1", List.of("t0", "t1")));
        assertThat(result.get("C0").partitions()).containsExactly(tp("t0", 0), tp("t0", 2), tp("t1", 1));
        assertThat(result.get("C1").partitions()).containsExactly(tp("t0", 1), tp("t1", 0), tp("t1", 2));
    }

    /** Kafka's RoundRobinAssignor documentation, different subscriptions: members not subscribed are skipped. */
    @Test
    void kafkaExampleDifferentSubscriptions() {
        Map<String, Assignment> result = assignor.assign(Map.of("t0", 1, "t1", 2, "t2", 3),
                subscriptions("C0", List.of("t0"), "C1", List.of("t0", "t1"), "C2", List.of("t0", "t1", "t2")));
        assertThat(result.get("C0").partitions()).containsExactly(tp("t0", 0));
        assertThat(result.get("C1").partitions()).containsExactly(tp("t1", 0));
        assertThat(result.get("C2").partitions())
                .containsExactly(tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t2", 2));
    }

    @Test
    void staticMembersComeFirstByInstanceId() {
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a-dynamic", new Subscription(t),
                "m-1", new Subscription(t, ByteString.EMPTY, List.of(), -1, Optional.of("zeta"), Optional.empty()),
                "m-2", new Subscription(t, ByteString.EMPTY, List.of(), -1, Optional.of("alpha"), Optional.empty())));
        Map<String, Assignment> result = assignor.assign(Map.of("t", 4), subscriptions);
        assertThat(result.get("m-2").partitions()).containsExactly(tp("t", 0), tp("t", 3));
        assertThat(result.get("m-1").partitions()).containsExactly(tp("t", 1));
        assertThat(result.get("a-dynamic").partitions()).containsExactly(tp("t", 2));
    }

    @Test
    void unknownTopicsAreSkippedAndEveryMemberGetsAnEntry() {
        Map<String, Assignment> result = assignor.assign(Map.of("t", 2, "other", 5),
                subscriptions("a", List.of("t", "missing"), "b", List.of("missing"), "c", List.of()));
        assertThat(result).containsOnlyKeys("a", "b", "c");
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0), tp("t", 1));
        assertThat(result.get("b").partitions()).isEmpty();
        assertThat(result.get("c").partitions()).isEmpty();
    }
}
