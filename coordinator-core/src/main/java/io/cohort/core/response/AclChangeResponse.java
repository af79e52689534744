package io.cohort.core.response;

import io.cohort.core.acl.AclBinding;
import java.util.List;

/**
 * The answer to CreateAcls or DeleteAcls: per request entry (binding or filter, in request order),
 * the ACLs that entry added or removed. An ACL that already existed (create) or was already removed
 * by an earlier filter of the same command (delete) is not listed again.
 */
public record AclChangeResponse(List<List<AclBinding>> changedPerEntry) implements Response {
    public AclChangeResponse {
        changedPerEntry = changedPerEntry.stream().map(List::copyOf).toList();
    }
}
