package io.cohort.core.acl;

/**
 * Selects ACLs to list or delete, as Kafka's {@code AclBindingFilter}. A null field matches any value.
 * The pattern is matched one of two ways: {@code matchResource == false} compares the ACL's stored
 * pattern (type, name, pattern type) with the filter's fields; {@code matchResource == true} (Kafka's
 * pattern type MATCH) selects every ACL whose pattern covers the literal resource named by the filter,
 * i.e. the LITERAL ACL of that name, LITERAL {@code *}, and every PREFIXED ACL that is a prefix of it.
 */
public record AclBindingFilter(String principal, String host, AclResourceType resourceType, String resourceName,
                               AclPatternType patternType, boolean matchResource, AclOperation operation,
                               AclPermission permission) {

    /** Matches every ACL. */
    public static final AclBindingFilter ANY = new AclBindingFilter(null, null, null, null, null, false, null, null);

    /** The filter that matches exactly {@code binding}. */
    public static AclBindingFilter exactly(AclBinding binding) {
        return new AclBindingFilter(binding.principal(), binding.host(), binding.resourceType(),
                binding.resourceName(), binding.patternType(), false, binding.operation(), binding.permission());
    }

    public boolean matches(AclBinding binding) {
        if (principal != null && !principal.equals(binding.principal())) {
            return false;
        }
        if (host != null && !host.equals(binding.host())) {
            return false;
        }
        if (operation != null && operation != binding.operation()) {
            return false;
        }
        if (permission != null && permission != binding.permission()) {
            return false;
        }
        if (resourceType != null && resourceType != binding.resourceType()) {
            return false;
        }
        if (matchResource) {
            return resourceName == null || binding.matchesResource(binding.resourceType(), resourceName);
        }
        if (resourceName != null && !resourceName.equals(binding.resourceName())) {
            return false;
        }
        return patternType == null || patternType == binding.patternType();
    }
}
