package io.cohort.core.response;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import java.util.List;

/**
 * DescribeGroups for one group. In Stable, {@code protocolData} is the selected protocol and members
 * carry their metadata for it; in other states both are empty, but assignments are still shown.
 * {@code generationId} and {@code leaderId} are Cohort additions (Kafka's DescribeGroups has
 * neither): the group's generation (-1 for a missing group) and its leader's member id ("" if none).
 */
public record DescribedGroup(String groupId, ErrorCode error, String state, String protocolType,
                             String protocolData, int generationId, String leaderId,
                             List<DescribedMember> members) {
    public DescribedGroup {
        members = List.copyOf(members);
    }

    /** The answer for a group that cannot be described: no generation, no leader, no members. */
    public static DescribedGroup absent(String groupId, ErrorCode error, String state) {
        return new DescribedGroup(groupId, error, state, "", "", -1, "", List.of());
    }

    public record DescribedMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                                  Bytes metadata, Bytes assignment) {
    }
}
