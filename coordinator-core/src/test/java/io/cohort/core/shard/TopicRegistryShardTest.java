package io.cohort.core.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.TopicChangeResponse;
import io.cohort.core.response.TopicChangeResponse.TopicResult;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** CreateTopics, AlterTopics and DeleteTopics: Kafka's rules per topic, exact records and responses. */
class TopicRegistryShardTest {
    static final UUID ORDERS_ID = new UUID(1, 1);
    static final UUID PAYMENTS_ID = new UUID(2, 2);

    final GroupCoordinatorShard shard = new GroupCoordinatorShard(GroupConfig.defaults());

    static Command.CreateTopics create(Command.NewTopic... topics) {
        return new Command.CreateTopics(List.of(topics), false);
    }

    static Command.NewTopic newTopic(UUID id, String name, int partitions) {
        return new Command.NewTopic(id, name, partitions, List.of());
    }

    private List<TopicResult> results(Result result) {
        return ((TopicChangeResponse) result.immediateResponse()).results();
    }

    private TopicResult single(Result result) {
        assertThat(results(result)).hasSize(1);
        return results(result).get(0);
    }

    @Test
    void testCreateTopicsStoresTopicWithTheCommandsId() {
        List<List<String>> racks = List.of(List.of("r0a", "r0b"), List.of("r1a"));
        Result result = shard.apply(create(new Command.NewTopic(ORDERS_ID, "orders", 2, racks),
                newTopic(PAYMENTS_ID, "payments", 3)), 1L);
        TopicMetadata orders = new TopicMetadata(ORDERS_ID, "orders", 2, racks);
        TopicMetadata payments = new TopicMetadata(PAYMENTS_ID, "payments", 3, List.of());
        assertThat(result.records()).containsExactly(new CoordinatorRecord.TopicValue(orders),
                new CoordinatorRecord.TopicValue(payments));
        assertThat(result.immediateResponse()).isEqualTo(new TopicChangeResponse(List.of(TopicResult.ok(orders),
                TopicResult.ok(payments))));
        assertThat(shard.topics().byName().values()).containsExactly(orders, payments);
        assertThat(shard.topics().get(PAYMENTS_ID)).isEqualTo(payments);
    }

    @Test
    void testCreateTopicsWithExistingNameIsTopicAlreadyExists() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 1)), 1L);
        Result result = shard.apply(create(newTopic(PAYMENTS_ID, "orders", 4)), 2L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.TOPIC_ALREADY_EXISTS);
        assertThat(shard.topics().get("orders").partitionCount()).isEqualTo(1);
    }

    @Test
    void testCreateTopicsWithIllegalNamesIsInvalidTopicException() {
        for (String name : List.of("", ".", "..", "a b", "orders/1", "ü", "x".repeat(250))) {
            Result result = shard.apply(create(newTopic(ORDERS_ID, name, 1)), 1L);
            assertThat(result.records()).as(name).isEmpty();
            assertThat(single(result).error()).as(name).isEqualTo(ErrorCode.INVALID_TOPIC_EXCEPTION);
        }
        Result legal = shard.apply(create(newTopic(ORDERS_ID, "a-Z_0.9" + "x".repeat(242), 1)), 1L);
        assertThat(single(legal).error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testCreateTopicsCollidingInDotAndUnderscoreIsInvalidTopicException() {
        shard.apply(create(newTopic(ORDERS_ID, "orders.eu", 1)), 1L);
        TopicResult result = single(shard.apply(create(newTopic(PAYMENTS_ID, "orders_eu", 1)), 2L));
        assertThat(result.error()).isEqualTo(ErrorCode.INVALID_TOPIC_EXCEPTION);
        assertThat(result.message()).contains("collides with existing topic: orders.eu");
    }

    @Test
    void testCreateTopicsWithPartitionCountBelowOneIsInvalidPartitions() {
        for (int count : new int[] {0, -1, Integer.MIN_VALUE}) {
            Result result = shard.apply(create(newTopic(ORDERS_ID, "orders", count)), 1L);
            assertThat(result.records()).isEmpty();
            assertThat(single(result).error()).isEqualTo(ErrorCode.INVALID_PARTITIONS);
        }
    }

    @Test
    void testCreateTopicsWithRacksNotOnePerPartitionIsInvalidRequest() {
        Result result = shard.apply(create(new Command.NewTopic(ORDERS_ID, "orders", 3,
                List.of(List.of("a"), List.of("b")))), 1L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(single(result).message()).contains("one per partition (3)");
    }

    @Test
    void testCreateTopicsNamingTopicTwiceRefusesEveryOccurrence() {
        Result result = shard.apply(create(newTopic(ORDERS_ID, "orders", 1), newTopic(PAYMENTS_ID, "orders", 2),
                newTopic(new UUID(3, 3), "audit", 1)), 1L);
        assertThat(results(result)).extracting(TopicResult::error).containsExactly(ErrorCode.INVALID_REQUEST,
                ErrorCode.INVALID_REQUEST, ErrorCode.NONE);
        assertThat(shard.topics().byName().keySet()).containsExactly("audit");
    }

    @Test
    void testCreateTopicsWithUsedTopicIdIsRefused() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 1)), 1L);
        Result result = shard.apply(create(newTopic(ORDERS_ID, "payments", 1)), 2L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.INVALID_REQUEST);
    }

    @Test
    void testCreateTopicsValidateOnlyAnswersButChangesNothing() {
        Result result = shard.apply(new Command.CreateTopics(List.of(newTopic(ORDERS_ID, "orders", 2),
                newTopic(PAYMENTS_ID, "orders", 1)), true), 1L);
        assertThat(result.records()).isEmpty();
        assertThat(results(result)).extracting(TopicResult::error).containsExactly(ErrorCode.INVALID_REQUEST,
                ErrorCode.INVALID_REQUEST);
        Result valid = shard.apply(new Command.CreateTopics(List.of(newTopic(ORDERS_ID, "orders", 2)), true), 2L);
        assertThat(valid.records()).isEmpty();
        assertThat(single(valid)).isEqualTo(TopicResult.ok(new TopicMetadata(ORDERS_ID, "orders", 2, List.of())));
        assertThat(shard.topics().size()).isZero();
    }

    @Test
    void testCreateTopicsBeyondTopicLimitIsRefusedWithTheLimit() {
        List<Command.NewTopic> topics = new ArrayList<>();
        for (int i = 0; i < StateLimits.MAX_TOPICS; i++) {
            topics.add(newTopic(new UUID(10, i), "t" + i, 1));
        }
        shard.apply(new Command.CreateTopics(topics, false), 1L);
        assertThat(shard.topics().size()).isEqualTo(StateLimits.MAX_TOPICS);
        TopicResult result = single(shard.apply(create(newTopic(ORDERS_ID, "one-more", 1)), 2L));
        assertThat(result.error()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(result.message()).contains("limit (" + StateLimits.MAX_TOPICS + ")");
    }

    @Test
    void testCreateTopicsOverPartitionLimitIsInvalidPartitions() {
        TopicResult result = single(shard.apply(create(newTopic(ORDERS_ID, "orders",
                StateLimits.MAX_PARTITIONS_PER_TOPIC + 1)), 1L));
        assertThat(result.error()).isEqualTo(ErrorCode.INVALID_PARTITIONS);
        assertThat(result.message()).contains("limit of " + StateLimits.MAX_PARTITIONS_PER_TOPIC);
    }

    @Test
    void testAlterTopicsRaisesPartitionCountAndKeepsTheId() {
        shard.apply(create(new Command.NewTopic(ORDERS_ID, "orders", 1, List.of(List.of("a")))), 1L);
        Result result = shard.apply(new Command.AlterTopics(List.of(new Command.TopicChange("orders", 3,
                List.of())), false), 2L);
        TopicMetadata altered = new TopicMetadata(ORDERS_ID, "orders", 3, List.of());
        assertThat(result.records()).containsExactly(new CoordinatorRecord.TopicValue(altered));
        assertThat(single(result)).isEqualTo(TopicResult.ok(altered));
        assertThat(shard.topics().get(ORDERS_ID)).isEqualTo(altered);
    }

    @Test
    void testAlterTopicsLoweringPartitionCountIsInvalidPartitions() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 4)), 1L);
        Result result = shard.apply(new Command.AlterTopics(List.of(new Command.TopicChange("orders", 3,
                List.of())), false), 2L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.INVALID_PARTITIONS);
        assertThat(single(result).message()).isEqualTo(
                "Topic currently has 4 partitions, which is higher than the requested 3.");
    }

    @Test
    void testAlterTopicsWithoutChangeWritesNoRecord() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 4)), 1L);
        Result result = shard.apply(new Command.AlterTopics(List.of(new Command.TopicChange("orders", 4,
                List.of())), false), 2L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void testAlterTopicsOfMissingTopicIsUnknownTopicOrPartition() {
        Result result = shard.apply(new Command.AlterTopics(List.of(new Command.TopicChange("orders", 4,
                List.of())), false), 1L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void testAlterTopicsValidateOnlyChangesNothing() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 1)), 1L);
        Result result = shard.apply(new Command.AlterTopics(List.of(new Command.TopicChange("orders", 2,
                List.of())), true), 2L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).topic().partitionCount()).isEqualTo(2);
        assertThat(shard.topics().get("orders").partitionCount()).isEqualTo(1);
    }

    @Test
    void testAlterTopicsWithRacksNotOnePerPartitionIsInvalidRequest() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 1)), 1L);
        Result result = shard.apply(new Command.AlterTopics(List.of(new Command.TopicChange("orders", 2,
                List.of(List.of("a")))), false), 2L);
        assertThat(result.records()).isEmpty();
        assertThat(single(result).error()).isEqualTo(ErrorCode.INVALID_REQUEST);
    }

    @Test
    void testDeleteTopicsRemovesAndAnswersMissingOnes() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 1)), 1L);
        Result result = shard.apply(new Command.DeleteTopics(List.of("orders", "nope")), 2L);
        assertThat(result.records()).containsExactly(new CoordinatorRecord.TopicTombstone("orders"));
        assertThat(results(result)).extracting(TopicResult::error).containsExactly(ErrorCode.NONE,
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(shard.topics().size()).isZero();
        assertThat(shard.topics().get(ORDERS_ID)).isNull();
    }

    @Test
    void testRecreatedTopicGetsItsNewId() {
        shard.apply(create(newTopic(ORDERS_ID, "orders", 1)), 1L);
        shard.apply(new Command.DeleteTopics(List.of("orders")), 2L);
        shard.apply(create(newTopic(PAYMENTS_ID, "orders", 1)), 3L);
        assertThat(shard.topics().get("orders").topicId()).isEqualTo(PAYMENTS_ID);
        assertThat(shard.topics().get(ORDERS_ID)).isNull();
    }

    @Test
    void testTombstoneOfUnknownTopicThrowsInReplay() {
        assertThatThrownBy(() -> shard.replay(new CoordinatorRecord.TopicTombstone("orders")))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testSnapshotCarriesTopicsAfterAclsBeforeGroupsAndRestoreRebuildsThem() {
        shard.apply(create(newTopic(PAYMENTS_ID, "payments", 2), newTopic(ORDERS_ID, "orders", 1)), 1L);
        shard.apply(new Command.CreateAcls(List.of(AclShardTest.READ_ORDERS)), 2L);
        shard.apply(new Command.OffsetCommit("", -1, "", null, -1L, List.of(new Command.TopicCommit("t",
                List.of(new Command.PartitionCommit(0, 5L, -1, null)))), (short) 9), 3L);
        List<CoordinatorRecord> snapshot = shard.snapshot();
        assertThat(snapshot.subList(0, 3)).containsExactly(new CoordinatorRecord.AclValue(AclShardTest.READ_ORDERS),
                new CoordinatorRecord.TopicValue(shard.topics().get("orders")),
                new CoordinatorRecord.TopicValue(shard.topics().get("payments")));
        assertThat(snapshot).isSortedAccordingTo(CoordinatorRecord.SNAPSHOT_ORDER);
        List<CoordinatorRecord> shuffled = new ArrayList<>(snapshot);
        Collections.reverse(shuffled);
        shuffled.sort(CoordinatorRecord.SNAPSHOT_ORDER);
        assertThat(shuffled).isEqualTo(snapshot);

        GroupCoordinatorShard restored = new GroupCoordinatorShard(GroupConfig.defaults());
        restored.apply(create(newTopic(new UUID(9, 9), "stale", 1)), 1L);
        restored.restore(snapshot);
        assertThat(restored.topics()).isEqualTo(shard.topics());
        assertThat(restored.topics().get(ORDERS_ID).name()).isEqualTo("orders");
        assertThat(restored.snapshot()).isEqualTo(snapshot);
    }
}
