package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.error;
import static io.cohort.core.shard.OffsetTestSupport.makeDead;
import static io.cohort.core.shard.OffsetTestSupport.offsetTombstone;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static io.cohort.core.shard.OffsetTestSupport.rangeSubscribedTo;
import static io.cohort.core.shard.OffsetTestSupport.stableGroup;
import static io.cohort.core.shard.OffsetTestSupport.topicErrors;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.Protocol;
import io.cohort.core.response.OffsetDeleteResponse;
import io.cohort.core.response.PartitionError;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** OffsetDelete (reference 1.12, 3.4, 3.5; cases 113 and 115). */
class OffsetDeleteTest {
    private final GroupShardTestContext context = new GroupShardTestContext();

    private static Command.OffsetDelete offsetDelete(String groupId, Command.TopicPartitions... topics) {
        return new Command.OffsetDelete(groupId, Arrays.asList(topics));
    }

    private static Command.TopicPartitions topic(String name, Integer... partitions) {
        return new Command.TopicPartitions(name, Arrays.asList(partitions));
    }

    private static OffsetDeleteResponse deleted(PartitionError.TopicErrors... topics) {
        return new OffsetDeleteResponse(ErrorCode.NONE, Arrays.asList(topics));
    }

    private static OffsetDeleteResponse failed(ErrorCode error) {
        return new OffsetDeleteResponse(error, List.of());
    }

    private boolean hasOffset(String groupId, String topic, int partition) {
        return context.shard().fetchOffsets(groupId, Map.of(topic, List.of(partition)))
                .topics().get(0).partitions().get(0).offset() >= 0;
    }

    @Test
    @DisplayName("case 113: OffsetDelete on a non-empty group with ProtocolType \"My Protocol\": NON_EMPTY_GROUP")
    void testDeleteOffsetOfNonEmptyNonConsumerGroup() {
        String memberId = stableGroup(context, "group", context.join("group").protocolType("My Protocol")).get(0);
        context.apply(commit("group").member(memberId).generation(1).topic("foo", partition(0, 100L)).build());

        Result result = context.apply(offsetDelete("group", topic("foo", 0)));

        assertThat(result.immediateResponse()).isEqualTo(failed(ErrorCode.NON_EMPTY_GROUP));
        assertThat(result.records()).isEmpty();
        assertThat(hasOffset("group", "foo", 0)).isTrue();
    }

    @Test
    @DisplayName("case 113: a non-consumer group in CompletingRebalance is non-empty too: NON_EMPTY_GROUP")
    void testDeleteOffsetOfRebalancingNonConsumerGroup() {
        context.join("group").protocolType("connect").send();
        context.sleep(GroupShardTestContext.TEST_CONFIG.initialRebalanceDelayMs());
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);

        Result result = context.apply(offsetDelete("group", topic("foo", 0)));

        assertThat(result.immediateResponse()).isEqualTo(failed(ErrorCode.NON_EMPTY_GROUP));
        assertThat(result.records()).isEmpty();
    }

    @Test
    @DisplayName("case 115: OffsetDelete on a consumer group with unparsable subscriptions: GROUP_SUBSCRIBED_TO_TOPIC")
    void testDeleteOffsetOfConsumerGroupWithUnparsableProtocol() {
        // 0xff starts a varint that never ends: not a ConsumerSubscription.
        List<Protocol> unparsable = List.of(new Protocol("range", Bytes.copyOf(new byte[] {(byte) 0xff})));
        String memberId = stableGroup(context, "group", context.join("group").protocols(unparsable)).get(0);
        assertThat(context.group("group").subscribedTopics()).isNull();
        context.apply(commit("group").member(memberId).generation(1).topic("foo", partition(0, 100L)).build());

        Result result = context.apply(offsetDelete("group", topic("foo", 0), topic("bar", 0)));

        assertThat(result.immediateResponse()).isEqualTo(deleted(
                topicErrors("foo", error(0, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC)),
                topicErrors("bar", error(0, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC))));
        assertThat(result.records()).isEmpty();
        assertThat(hasOffset("group", "foo", 0)).isTrue();
    }

    @Test
    @DisplayName("a Stable consumer group: subscribed topics GROUP_SUBSCRIBED_TO_TOPIC, other topics deleted")
    void testDeleteOffsetOfStableConsumerGroup() {
        List<String> members = stableGroup(context, "group",
                context.join("group").protocols(rangeSubscribedTo("foo")),
                context.join("group").protocols(rangeSubscribedTo("bar")));
        assertThat(context.group("group").subscribedTopics()).containsExactly("bar", "foo");
        context.apply(commit("group").member(members.get(0)).generation(1)
                .topic("foo", partition(0, 100L)).topic("bar", partition(0, 200L))
                .topic("baz", partition(0, 300L), partition(1, 310L)).build());

        Result result = context.apply(offsetDelete("group", topic("foo", 0), topic("bar", 0), topic("baz", 0, 1, 2)));

        assertThat(result.immediateResponse()).isEqualTo(deleted(
                topicErrors("foo", error(0, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC)),
                topicErrors("bar", error(0, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC)),
                topicErrors("baz", error(0, ErrorCode.NONE), error(1, ErrorCode.NONE), error(2, ErrorCode.NONE))));
        // A tombstone only where an offset exists (baz-2 has none).
        assertThat(result.records()).containsExactly(
                offsetTombstone("group", "baz", 0), offsetTombstone("group", "baz", 1));
        assertThat(hasOffset("group", "foo", 0)).isTrue();
        assertThat(hasOffset("group", "bar", 0)).isTrue();
        assertThat(hasOffset("group", "baz", 0)).isFalse();
        assertThat(hasOffset("group", "baz", 1)).isFalse();
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    @DisplayName("an Empty group: every partition NONE, a tombstone only where an offset exists")
    void testDeleteOffsetOfEmptyGroup() {
        context.apply(commit("group").topic("foo", partition(0, 100L)).topic("bar", partition(1, 10L)).build());

        Result result = context.apply(offsetDelete("group", topic("foo", 0, 1), topic("bar", 0)));

        assertThat(result.immediateResponse()).isEqualTo(deleted(
                topicErrors("foo", error(0, ErrorCode.NONE), error(1, ErrorCode.NONE)),
                topicErrors("bar", error(0, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(offsetTombstone("group", "foo", 0));
        assertThat(hasOffset("group", "foo", 0)).isFalse();
        assertThat(hasOffset("group", "bar", 1)).isTrue();
        // Deleting offsets never deletes the group.
        assertThat(context.group("group")).isNotNull();

        Result again = context.apply(offsetDelete("group", topic("foo", 0)));
        assertThat(again.immediateResponse()).isEqualTo(deleted(topicErrors("foo", error(0, ErrorCode.NONE))));
        assertThat(again.records()).isEmpty();
    }

    @Test
    @DisplayName("an Empty consumer group that had subscriptions: its offsets can be deleted")
    void testDeleteOffsetOfEmptyConsumerGroup() {
        String memberId = stableGroup(context, "group", context.join("group").protocols(rangeSubscribedTo("foo")))
                .get(0);
        context.apply(commit("group").member(memberId).generation(1).topic("foo", partition(0, 100L)).build());
        context.apply(new Command.LeaveGroup("group", List.of(new Command.LeavingMember(memberId, null, null))));
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(context.group("group").subscribedTopics()).isEqualTo(Set.of());

        Result result = context.apply(offsetDelete("group", topic("foo", 0)));

        assertThat(result.immediateResponse()).isEqualTo(deleted(topicErrors("foo", error(0, ErrorCode.NONE))));
        assertThat(result.records()).containsExactly(offsetTombstone("group", "foo", 0));
        assertThat(context.shard().offsetCount()).isZero();
        assertThat(context.shard().fetchOffsets("group", null).topics()).isEmpty();
    }

    @Test
    @DisplayName("OffsetDelete on a missing or Dead group: GROUP_ID_NOT_FOUND, nothing written")
    void testDeleteOffsetOfMissingOrDeadGroup() {
        Result missing = context.apply(offsetDelete("missing", topic("foo", 0)));
        assertThat(missing.immediateResponse()).isEqualTo(failed(ErrorCode.GROUP_ID_NOT_FOUND));
        assertThat(missing.records()).isEmpty();

        context.apply(commit("dead").topic("foo", partition(0, 100L)).build());
        makeDead(context, "dead");
        Result dead = context.apply(offsetDelete("dead", topic("foo", 0)));
        assertThat(dead.immediateResponse()).isEqualTo(failed(ErrorCode.GROUP_ID_NOT_FOUND));
        assertThat(dead.records()).isEmpty();
    }

    @Test
    @DisplayName("OffsetDelete with group id \"\" or null: INVALID_GROUP_ID")
    void testDeleteOffsetInvalidGroupId() {
        // "" is a legal id for OffsetCommit, so a group named "" can exist; OffsetDelete still rejects it.
        context.apply(commit("").topic("foo", partition(0, 100L)).build());

        Result empty = context.apply(offsetDelete("", topic("foo", 0)));
        assertThat(empty.immediateResponse()).isEqualTo(failed(ErrorCode.INVALID_GROUP_ID));
        assertThat(empty.records()).isEmpty();

        Result nullId = context.apply(offsetDelete(null, topic("foo", 0)));
        assertThat(nullId.immediateResponse()).isEqualTo(failed(ErrorCode.INVALID_GROUP_ID));
        assertThat(nullId.records()).isEmpty();
    }
}
