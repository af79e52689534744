package io.cohort.core.acl;

import java.util.Objects;
import java.util.Set;

/**
 * Kafka's StandardAuthorizer rules over an {@link AclSet}, as a pure function:
 * <ol>
 *   <li>a super user is allowed everything;</li>
 *   <li>any matching DENY wins (a DENY of ALL denies every operation; a DENY of READ does not deny
 *       DESCRIBE);</li>
 *   <li>then any matching ALLOW allows (READ, DELETE and ALTER imply DESCRIBE; ALL implies all);</li>
 *   <li>nothing matches: denied.</li>
 * </ol>
 * An ACL matches when its principal is the caller's or {@code User:*}, its host is the caller's or
 * {@code *}, and its pattern covers the resource (LITERAL name or {@code *}, or PREFIXED).
 */
public final class Authorizer {
    private final Set<String> superUsers;

    public Authorizer(Set<String> superUsers) {
        this.superUsers = Set.copyOf(superUsers);
    }

    public Set<String> superUsers() {
        return superUsers;
    }

    /**
     * The decision and what decided it: {@code binding} is the ACL that matched, or null. The reason
     * text is built only when asked (an audit line for a denial): an allowed call, the common case,
     * pays for no string.
     */
    public record Decision(boolean allowed, String basis, AclBinding binding) {
        /** The reason an audit line gives, e.g. "denied by DENY User:bob@* READ GROUP:LITERAL:orders". */
        public String reason() {
            return binding == null ? basis : basis + " " + binding;
        }
    }

    private static final Decision SUPER_USER = new Decision(true, "super user", null);
    private static final Decision NO_MATCHING_ALLOW = new Decision(false, "no matching ALLOW ACL", null);

    public Decision authorize(AclSet acls, String principal, String host, AclOperation operation,
                              AclResourceType resourceType, String resourceName) {
        Objects.requireNonNull(operation, "operation");
        if (superUsers.contains(principal)) {
            return SUPER_USER;
        }
        AclBinding allow = null;
        for (AclBinding binding : acls.bindings()) {
            if (!binding.matchesPrincipalAndHost(principal, host) || !binding.matchesResource(resourceType, resourceName)) {
                continue;
            }
            if (binding.permission() == AclPermission.DENY) {
                if (binding.operation() == AclOperation.ALL || binding.operation() == operation) {
                    return new Decision(false, "denied by", binding);
                }
            } else if (allow == null && binding.operation().allowImplies(operation)) {
                allow = binding;
            }
        }
        return allow != null ? new Decision(true, "allowed by", allow) : NO_MATCHING_ALLOW;
    }

    public boolean isAllowed(AclSet acls, String principal, String host, AclOperation operation,
                             AclResourceType resourceType, String resourceName) {
        return authorize(acls, principal, host, operation, resourceType, resourceName).allowed();
    }
}
