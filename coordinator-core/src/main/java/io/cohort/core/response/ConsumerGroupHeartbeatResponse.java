package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.consumer.Assignment;
import java.util.Objects;

/**
 * The answer to a {@code ConsumerGroupHeartbeat}.
 *
 * @param errorMessage        null when there is nothing to say
 * @param memberEpoch         the member's epoch after the heartbeat (-1 after a leave)
 * @param heartbeatIntervalMs set by the coordinator
 * @param assignment          the whole set of partitions the member may own now, or null when it is
 *                            unchanged and the request was not a full one
 */
public record ConsumerGroupHeartbeatResponse(ErrorCode error, String errorMessage, String memberId, int memberEpoch,
                                             int heartbeatIntervalMs, Assignment assignment) implements Response {
    public ConsumerGroupHeartbeatResponse {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(memberId, "memberId");
    }

    public static ConsumerGroupHeartbeatResponse error(ErrorCode error, String message, String memberId,
                                                       int memberEpoch) {
        return new ConsumerGroupHeartbeatResponse(error, message, memberId, memberEpoch, 0, null);
    }
}
