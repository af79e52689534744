package io.cohort.core.response;

import io.cohort.core.Bytes;
import io.cohort.core.ErrorCode;
import java.util.List;

/**
 * DescribeGroups for one group. In Stable, {@code protocolData} is the selected protocol and members
 * carry their metadata for it; in other states both are empty, but assignments are still shown.
 */
public record DescribedGroup(String groupId, ErrorCode error, String state, String protocolType,
                             String protocolData, List<DescribedMember> members) {
    public DescribedGroup {
        members = List.copyOf(members);
    }

    public record DescribedMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                                  Bytes metadata, Bytes assignment) {
    }
}
