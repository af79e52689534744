package io.cohort.core.shard;

import static io.cohort.core.shard.ConsumerGroupTestContext.assignment;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.TopicLookup;
import io.cohort.core.response.ConsumerGroupHeartbeatResponse;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: INVALID_REQUEST with Kafka's messages, no record. */
class ConsumerGroupValidationTest {

    static Stream<Arguments> invalidRequests() {
        List<String> foo = List.of("foo");
        return Stream.of(
                Arguments.of(request("", "m", 0, null, null, 1000, foo, null, Assignment.EMPTY),
                        "GroupId can't be empty."),
                Arguments.of(request("g", "m", 0, "", null, 1000, foo, null, Assignment.EMPTY),
                        "InstanceId can't be empty."),
                Arguments.of(request("g", "m", 0, null, "", 1000, foo, null, Assignment.EMPTY),
                        "RackId can't be empty."),
                Arguments.of(request("g", "", 0, null, null, 1000, foo, null, Assignment.EMPTY),
                        "MemberId can't be empty."),
                Arguments.of(request("g", "m", 0, null, null, -1, foo, null, Assignment.EMPTY),
                        "RebalanceTimeoutMs must be provided in first request."),
                Arguments.of(request("g", "m", 0, null, null, 1000, foo, null, null),
                        "TopicPartitions must be empty when (re-)joining."),
                Arguments.of(request("g", "m", 0, null, null, 1000, foo, null,
                        assignment("foo", 1).build()), "TopicPartitions must be empty when (re-)joining."),
                Arguments.of(request("g", "m", 0, null, null, 1000, List.of(), null, Assignment.EMPTY),
                        "SubscribedTopicNames or SubscribedTopicRegex must be set in first request."),
                Arguments.of(request("g", "m", 0, null, null, 1000, null, "", Assignment.EMPTY),
                        "SubscribedTopicNames or SubscribedTopicRegex must be set in first request."),
                Arguments.of(request("g", "m", -2, null, null, -1, null, null, null), "InstanceId can't be null."),
                Arguments.of(request("g", "m", -3, null, null, -1, null, null, null), "MemberEpoch is invalid."));
    }

    private static ConsumerGroupHeartbeat request(String groupId, String memberId, int epoch, String instanceId,
                                                  String rackId, int rebalanceTimeoutMs, List<String> topics,
                                                  String regex, Assignment owned) {
        return new ConsumerGroupHeartbeat(groupId, memberId, epoch, instanceId, rackId, rebalanceTimeoutMs, topics,
                regex, null, owned, "c", "h", TopicLookup.NONE);
    }

    @ParameterizedTest
    @MethodSource("invalidRequests")
    void testInvalidRequestIsRefusedWithKafkasMessage(ConsumerGroupHeartbeat request, String message) {
        ConsumerGroupTestContext ctx = new ConsumerGroupTestContext();

        ConsumerGroupHeartbeatResponse response = ctx.heartbeat(request);

        assertThat(response.error()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(response.errorMessage()).isEqualTo(message);
        assertThat(ctx.lastRecords()).isEmpty();
        assertThat(ctx.lastResult.timers()).isEmpty();
    }
}
