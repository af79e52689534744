package io.cohort.core.response;

import io.cohort.core.ErrorCode;
import io.cohort.core.group.ClassicGroup.JoinedMember;
import java.util.List;
import java.util.Objects;

/**
 * A JoinGroup answer. On an error, protocol type and name are null and the generation is -1.
 *
 * @param members      the member list with metadata for the selected protocol: only in the leader's answer
 * @param errorMessage why the join was refused, when the code alone cannot say it (a state limit
 *                     names its key and value); null otherwise
 */
public record JoinGroupResponse(ErrorCode error, int generationId, String protocolType, String protocolName,
                                String leader, boolean skipAssignment, String memberId,
                                List<JoinedMember> members, String errorMessage) implements Response {
    public static final int NO_GENERATION = -1;

    public JoinGroupResponse {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(memberId, "memberId");
        members = List.copyOf(members);
    }

    public JoinGroupResponse(ErrorCode error, int generationId, String protocolType, String protocolName,
                             String leader, boolean skipAssignment, String memberId, List<JoinedMember> members) {
        this(error, generationId, protocolType, protocolName, leader, skipAssignment, memberId, members, null);
    }

    /** An error answer carrying {@code memberId} ("" when the member is unknown or removed). */
    public static JoinGroupResponse error(ErrorCode error, String memberId) {
        return new JoinGroupResponse(error, NO_GENERATION, null, null, "", false, memberId, List.of());
    }

    /** An error answer explained by {@code message}. */
    public static JoinGroupResponse error(ErrorCode error, String memberId, String message) {
        return new JoinGroupResponse(error, NO_GENERATION, null, null, "", false, memberId, List.of(), message);
    }
}
