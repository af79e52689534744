package io.cohort.core.command;

import java.util.Objects;

/**
 * Heartbeat (reference 1.4). Not a command: the leader answers it from the applied state without a
 * log write, and only moves the member's session deadline, which is leader-local soft state.
 */
public record Heartbeat(String groupId, int generationId, String memberId, String groupInstanceId) {
    public Heartbeat {
        Objects.requireNonNull(memberId, "memberId");
    }
}
