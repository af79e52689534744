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

class RangeAssignorTest {
    private final RangeAssignor assignor = new RangeAssignor();

    @Test
    void nameAndProtocols() {
        assertThat(assignor.name()).isEqualTo("range");
        assertThat(assignor.supportedProtocols()).containsExactly(RebalanceProtocol.EAGER);
    }

    /** Kafka's RangeAssignor documentation: two members, t0 and t1 with three partitions each. */
    @Test
    void kafkaExample() {
        Map<String, Assignment> result = assignor.assign(Map.of("t0", 3, "t1", 3),
                subscriptions("C0", List.of("t0", "t1"), "C1", List.of("t0", "t1")));
        assertThat(result.get("C0").partitions()).containsExactly(tp("t0", 0), tp("t0", 1), tp("t1", 0), tp("t1", 1));
        assertThat(result.get("C1").partitions()).containsExactly(tp("t0", 2), tp("t1", 2));
    }

    @Test
    void contiguousRangesFirstMembersGetTheExtraPartitions() {
        // 8 partitions over 3 members: 3, 3, 2.
        Map<String, Assignment> result = assignor.assign(Map.of("t", 8),
                subscriptions("c", List.of("t"), "a", List.of("t"), "b", List.of("t")));
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0), tp("t", 1), tp("t", 2));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 3), tp("t", 4), tp("t", 5));
        assertThat(result.get("c").partitions()).containsExactly(tp("t", 6), tp("t", 7));
    }

    @Test
    void eachTopicIsSplitAmongItsOwnSubscribers() {
        Map<String, Assignment> result = assignor.assign(Map.of("t0", 2, "t1", 4),
                subscriptions("a", List.of("t0"), "b", List.of("t0", "t1"), "c", List.of("t1")));
        assertThat(result.get("a").partitions()).containsExactly(tp("t0", 0));
        assertThat(result.get("b").partitions()).containsExactly(tp("t0", 1), tp("t1", 0), tp("t1", 1));
        assertThat(result.get("c").partitions()).containsExactly(tp("t1", 2), tp("t1", 3));
    }

    @Test
    void moreMembersThanPartitionsLeavesTheLastOnesEmpty() {
        Map<String, Assignment> result = assignor.assign(Map.of("t", 2),
                subscriptions("a", List.of("t"), "b", List.of("t"), "c", List.of("t")));
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0));
        assertThat(result.get("b").partitions()).containsExactly(tp("t", 1));
        assertThat(result.get("c").partitions()).isEmpty();
    }

    /** Kafka's member order: static members first, by instance id, then dynamic members by member id. */
    @Test
    void staticMembersComeFirstByInstanceId() {
        List<String> t = List.of("t");
        Map<String, Subscription> subscriptions = new TreeMap<>(Map.of(
                "a-dynamic", new Subscription(t),
                "m-1", new Subscription(t, ByteString.EMPTY, List.of(), -1, Optional.of("zeta"), Optional.empty()),
                "m-2", new Subscription(t, ByteString.EMPTY, List.of(), -1, Optional.of("alpha"), Optional.empty())));
        Map<String, Assignment> result = assignor.assign(Map.of("t", 3), subscriptions);
        assertThat(result.get("m-2").partitions()).containsExactly(tp("t", 0));
        assertThat(result.get("m-1").partitions()).containsExactly(tp("t", 1));
        assertThat(result.get("a-dynamic").partitions()).containsExactly(tp("t", 2));
    }

    @Test
    void unknownTopicsAreSkippedAndEveryMemberGetsAnEntry() {
        Map<String, Assignment> result = assignor.assign(Map.of("t", 1, "other", 5),
                subscriptions("a", List.of("t", "missing"), "b", List.of("missing"), "c", List.of()));
        assertThat(result).containsOnlyKeys("a", "b", "c");
        assertThat(result.get("a").partitions()).containsExactly(tp("t", 0));
        assertThat(result.get("b").partitions()).isEmpty();
        assertThat(result.get("c").partitions()).isEmpty();
        assertThat(assignor.assign(Map.of("t", 1), Map.of())).isEmpty();
    }
}
