package io.cohort.core.shard;

import io.cohort.core.command.Command;
import java.util.Objects;

/**
 * A request to the leader's timer service. Timers are leader-local soft state: a timer is a key, a
 * deadline and the command to propose when it fires; scheduling a key again replaces it. Followers
 * ignore timer operations; a new leader re-arms everything from the state (see
 * {@link GroupCoordinatorShard#onLeaderReady(long)}).
 */
public sealed interface TimerOp {
    String key();

    record Schedule(String key, long deadlineMs, Command command) implements TimerOp {
        public Schedule {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(command, "command");
        }
    }

    record Cancel(String key) implements TimerOp {
        public Cancel {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Timer keys, as in Kafka's coordinator: one per group phase, one per member session. */
    final class Keys {
        public static final String EXPIRE_OFFSETS = "expire-group-metadata";

        private Keys() {
        }

        public static String join(String groupId) {
            return "join-" + groupId;
        }

        public static String sync(String groupId) {
            return "sync-" + groupId;
        }

        public static String heartbeat(String groupId, String memberId) {
            return "heartbeat-" + groupId + "-" + memberId;
        }

        /** A consumer-protocol member's session (re-armed by every heartbeat, including unlogged ones). */
        public static String consumerSession(String groupId, String memberId) {
            return "consumer-session-" + groupId + "-" + memberId;
        }

        /** A consumer-protocol member's rebalance timeout, armed only while it has partitions to revoke. */
        public static String consumerRebalance(String groupId, String memberId) {
            return "consumer-rebalance-timeout-" + groupId + "-" + memberId;
        }
    }
}
