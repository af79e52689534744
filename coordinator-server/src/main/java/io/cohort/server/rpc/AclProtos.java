package io.cohort.server.rpc;

import io.cohort.api.v1.AclPatternType;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;

/** Maps ACLs between the public API (cohort.v1) and core; both carry Kafka's numeric codes. */
final class AclProtos {
    private AclProtos() {
    }

    /** {@link IllegalArgumentException} if a field is unset (ANY) or unknown. */
    static AclBinding fromProto(io.cohort.api.v1.AclBinding p) {
        if (p.getResourceTypeValue() == 0 || p.getPatternTypeValue() == 0 || p.getOperationValue() == 0
                || p.getPermissionValue() == 0) {
            throw new IllegalArgumentException("an ACL needs a resource type, a pattern type (LITERAL or PREFIXED), "
                    + "an operation and a permission");
        }
        if (p.getPatternType() == AclPatternType.ACL_PATTERN_TYPE_MATCH) {
            throw new IllegalArgumentException("MATCH is a filter, not an ACL's pattern type");
        }
        String name = p.getResourceTypeValue() == io.cohort.api.v1.AclResourceType.ACL_RESOURCE_TYPE_CLUSTER_VALUE
                && p.getResourceName().isEmpty() ? AclBinding.CLUSTER_NAME : p.getResourceName();
        return new AclBinding(p.getPrincipal(), p.getHost().isEmpty() ? AclBinding.WILDCARD : p.getHost(),
                AclResourceType.forCode(p.getResourceTypeValue()), name,
                io.cohort.core.acl.AclPatternType.forCode(p.getPatternTypeValue()),
                AclOperation.forCode(p.getOperationValue()), AclPermission.forCode(p.getPermissionValue()));
    }

    static io.cohort.api.v1.AclBinding toProto(AclBinding b) {
        return io.cohort.api.v1.AclBinding.newBuilder()
                .setPrincipal(b.principal())
                .setHost(b.host())
                .setResourceTypeValue(b.resourceType().code())
                .setResourceName(b.resourceName())
                .setPatternTypeValue(b.patternType().code())
                .setOperationValue(b.operation().code())
                .setPermissionValue(b.permission().code())
                .build();
    }

    static AclBindingFilter fromProto(io.cohort.api.v1.AclBindingFilter p) {
        boolean match = p.getPatternType() == AclPatternType.ACL_PATTERN_TYPE_MATCH;
        return new AclBindingFilter(p.hasPrincipal() ? p.getPrincipal() : null, p.hasHost() ? p.getHost() : null,
                p.getResourceTypeValue() == 0 ? null : AclResourceType.forCode(p.getResourceTypeValue()),
                p.hasResourceName() ? p.getResourceName() : null,
                p.getPatternTypeValue() == 0 || match ? null
                        : io.cohort.core.acl.AclPatternType.forCode(p.getPatternTypeValue()),
                match,
                p.getOperationValue() == 0 ? null : AclOperation.forCode(p.getOperationValue()),
                p.getPermissionValue() == 0 ? null : AclPermission.forCode(p.getPermissionValue()));
    }
}
