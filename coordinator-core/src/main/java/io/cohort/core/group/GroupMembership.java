package io.cohort.core.group;

/**
 * The member lookups that request validation needs, answered both by a stored {@link ClassicGroup}
 * and by a handler's {@link ClassicGroupEditor}, so validating a heartbeat or a commit never copies
 * the group.
 */
public interface GroupMembership {
    boolean hasMember(String memberId);

    /** The member id currently holding {@code groupInstanceId}, or null. */
    String staticMemberId(String groupInstanceId);
}
