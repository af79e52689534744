package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.group.GroupMembership;

/** Member and static-instance validation shared by Join, Sync, Heartbeat, Leave and OffsetCommit. */
final class MemberValidation {
    private MemberValidation() {
    }

    /**
     * Kafka's validateMember: an instance id must be known (else UNKNOWN_MEMBER_ID) and map to this
     * member id (else FENCED_INSTANCE_ID); then the member id must exist (else UNKNOWN_MEMBER_ID).
     */
    static ErrorCode validateMember(GroupMembership group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String existing = group.staticMemberId(groupInstanceId);
            if (existing == null) {
                return ErrorCode.UNKNOWN_MEMBER_ID;
            }
            if (!existing.equals(memberId)) {
                return ErrorCode.FENCED_INSTANCE_ID;
            }
        }
        return group.hasMember(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
    }

    static boolean isInvalidGroupId(String groupId) {
        return groupId == null || groupId.isEmpty();
    }
}
