package io.cohort.core.shard;

import io.cohort.core.command.Command.ExpireConsumerMember;
import io.cohort.core.command.Command.FireConsumerRebalanceTimeout;
import io.cohort.core.consumer.ConsumerGroup;
import io.cohort.core.consumer.ConsumerGroupMember;
import io.cohort.core.consumer.MemberState;
import java.util.Map;

/**
 * The consumer-protocol timers' commands, re-validated at apply time (the state may have moved on
 * between the firing and the commit): a member whose session expired, or that did not revoke its
 * partitions within its rebalance timeout, is fenced.
 */
final class ConsumerGroupTimerHandler {
    private final Map<String, ConsumerGroup> consumerGroups;

    ConsumerGroupTimerHandler(Map<String, ConsumerGroup> consumerGroups) {
        this.consumerGroups = consumerGroups;
    }

    void expireSession(ExpireConsumerMember command, ResultBuilder result) {
        ConsumerGroup group = consumerGroups.get(command.groupId());
        if (group == null || group.member(command.memberId()) == null) {
            return;
        }
        fence(group, command.memberId(), result);
    }

    void fireRebalanceTimeout(FireConsumerRebalanceTimeout command, ResultBuilder result) {
        ConsumerGroup group = consumerGroups.get(command.groupId());
        ConsumerGroupMember member = group == null ? null : group.member(command.memberId());
        if (member == null || member.memberEpoch() != command.memberEpoch()
                || member.state() != MemberState.UNREVOKED_PARTITIONS) {
            return;
        }
        fence(group, command.memberId(), result);
    }

    private static void fence(ConsumerGroup group, String memberId, ResultBuilder result) {
        ConsumerGroupChange change = new ConsumerGroupChange(group);
        change.removeMember(memberId, result);
        change.commitTo(result);
    }
}
