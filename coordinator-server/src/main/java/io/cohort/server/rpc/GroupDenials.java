package io.cohort.server.rpc;

import io.cohort.core.ErrorCode;
import io.cohort.core.acl.AclOperation;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import io.cohort.server.rpc.ErrorTable.Failure;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/** GROUP_AUTHORIZATION_FAILED as the group services answer it: one group's failure, or each denied group's. */
final class GroupDenials {
    private GroupDenials() {
    }

    /** The failure of a caller that may not {@code operation} group {@code groupId}. */
    static Failure denied(AclOperation operation, String groupId) {
        return new Failure(ErrorCode.GROUP_AUTHORIZATION_FAILED, Principals.principal() + " may not " + operation
                + " group '" + groupId + "'", null);
    }

    /** The groups of {@code groupIds} the caller may not {@code operation}, each with its failure (audited). */
    static Map<String, Failure> deniedGroups(RequestAuthorizer authorizer, String rpc, AclOperation operation,
                                             List<String> groupIds) {
        Map<String, Failure> denied = new HashMap<>();
        for (String groupId : new LinkedHashSet<>(groupIds)) {
            if (!authorizer.allowGroup(rpc, operation, groupId)) {
                denied.put(groupId, denied(operation, groupId));
            }
        }
        return denied;
    }
}
