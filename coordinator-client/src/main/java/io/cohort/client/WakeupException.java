package io.cohort.client;

/**
 * Thrown by {@link GroupMember#poll} or {@link GroupMember#commitSync} after another thread called
 * {@link GroupMember#wakeup}, as Kafka's {@code org.apache.kafka.common.errors.WakeupException}:
 * the member is unchanged (a rebalance under way goes on), and the usual reaction is to leave the
 * poll loop and {@link GroupMember#close} the member.
 */
public class WakeupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public WakeupException() {
        super("woken up by GroupMember.wakeup()");
    }
}
