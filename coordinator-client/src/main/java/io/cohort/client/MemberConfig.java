package io.cohort.client;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The settings both membership loops share, taken from {@link GroupMember.Builder}.
 *
 * @param topics the subscribed topic names, sorted; empty for a consumer-protocol regex subscription
 * @param topicRegex the RE2J subscription of a consumer-protocol member, if any
 * @param rebalanceTimeout Kafka's max.poll.interval.ms
 * @param autoCommitBeforeRevoke commits the positions of owned partitions (if auto-commit is on)
 *     before the member gives partitions up; the argument says why, for the log
 */
record MemberConfig(CohortClient client, String groupId, List<String> topics, Optional<String> topicRegex,
        RebalanceListener listener, Duration rebalanceTimeout, Optional<String> groupInstanceId,
        Optional<String> rackId, String clientHost, Consumer<String> autoCommitBeforeRevoke) {
}
