package io.cohort.raft.log;

import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPatternType;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;
import io.cohort.raft.log.proto.AclBindingFilterProto;
import io.cohort.raft.log.proto.AclBindingProto;

/**
 * The persisted form of ACLs and ACL filters, for the log (CreateAcls, DeleteAcls) and snapshots.
 * Enum fields are Kafka's numeric codes from io.cohort.core.acl, never ordinals; an unknown code is
 * a {@link LogFormatException}.
 */
final class AclCodec {
    private AclCodec() {
    }

    static AclBindingProto toProto(AclBinding binding) {
        return AclBindingProto.newBuilder()
                .setPrincipal(binding.principal())
                .setHost(binding.host())
                .setResourceType(binding.resourceType().code())
                .setResourceName(binding.resourceName())
                .setPatternType(binding.patternType().code())
                .setOperation(binding.operation().code())
                .setPermission(binding.permission().code())
                .build();
    }

    static AclBinding fromProto(AclBindingProto p) {
        try {
            return new AclBinding(p.getPrincipal(), p.getHost(), AclResourceType.forCode(p.getResourceType()),
                    p.getResourceName(), AclPatternType.forCode(p.getPatternType()),
                    AclOperation.forCode(p.getOperation()), AclPermission.forCode(p.getPermission()));
        } catch (IllegalArgumentException e) {
            throw new LogFormatException("Invalid ACL: " + e.getMessage(), e);
        }
    }

    static AclBindingFilterProto toProto(AclBindingFilter filter) {
        AclBindingFilterProto.Builder proto = AclBindingFilterProto.newBuilder()
                .setMatchResource(filter.matchResource());
        if (filter.principal() != null) {
            proto.setPrincipal(filter.principal());
        }
        if (filter.host() != null) {
            proto.setHost(filter.host());
        }
        if (filter.resourceType() != null) {
            proto.setResourceType(filter.resourceType().code());
        }
        if (filter.resourceName() != null) {
            proto.setResourceName(filter.resourceName());
        }
        if (filter.patternType() != null) {
            proto.setPatternType(filter.patternType().code());
        }
        if (filter.operation() != null) {
            proto.setOperation(filter.operation().code());
        }
        if (filter.permission() != null) {
            proto.setPermission(filter.permission().code());
        }
        return proto.build();
    }

    static AclBindingFilter fromProto(AclBindingFilterProto p) {
        try {
            return new AclBindingFilter(p.hasPrincipal() ? p.getPrincipal() : null, p.hasHost() ? p.getHost() : null,
                    p.hasResourceType() ? AclResourceType.forCode(p.getResourceType()) : null,
                    p.hasResourceName() ? p.getResourceName() : null,
                    p.hasPatternType() ? AclPatternType.forCode(p.getPatternType()) : null, p.getMatchResource(),
                    p.hasOperation() ? AclOperation.forCode(p.getOperation()) : null,
                    p.hasPermission() ? AclPermission.forCode(p.getPermission()) : null);
        } catch (IllegalArgumentException e) {
            throw new LogFormatException("Invalid ACL filter: " + e.getMessage(), e);
        }
    }
}
