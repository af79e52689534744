package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupSettings;
import java.util.Objects;

/**
 * The answer to SetGroupConfig on one partition.
 *
 * @param error   NONE, or INVALID_REQUEST for settings that cannot be applied (nothing changed)
 * @param message why, for an error; "" otherwise
 * @param changed true if the partition holds the command's settings after it: applied now, or
 *                already held (an earlier proposal of the same change); false if they were invalid
 *                or the partition already held settings that supersede them
 * @param current the partition's settings after the command
 * @param groupsRebalanced the groups over the new group.max.size that a rebalance was started for
 *                (0 when the settings were already held)
 */
public record GroupConfigResponse(ErrorCode error, String message, boolean changed, GroupSettings current,
                                  int groupsRebalanced) implements Response {
    public GroupConfigResponse {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(current, "current");
    }
}
