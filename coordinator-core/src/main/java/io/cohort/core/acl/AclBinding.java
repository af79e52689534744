package io.cohort.core.acl;

import java.util.Comparator;
import java.util.Objects;

/**
 * One ACL: "principal P is ALLOWED/DENIED operation O from host H on every resource matching the
 * pattern (type, name, pattern type)", Kafka's model (KIP-11, KIP-290). Values; ordered so the ACL
 * set and its snapshot bytes are the same on every replica.
 *
 * @param principal    {@code User:<name>}, or {@code User:*} for every principal
 * @param host         an IP address, or {@code *} for every host
 * @param resourceName a group id or a group-id prefix, {@code *} (LITERAL) for every group, or
 *                     {@link #CLUSTER_NAME} for the cluster
 */
public record AclBinding(String principal, String host, AclResourceType resourceType, String resourceName,
                         AclPatternType patternType, AclOperation operation, AclPermission permission)
        implements Comparable<AclBinding> {

    /** The name of the one CLUSTER resource (Kafka's is "kafka-cluster"). */
    public static final String CLUSTER_NAME = "cohort-cluster";
    /** The wildcard name, principal and host. */
    public static final String WILDCARD = "*";
    /** The principal type of every Cohort principal, as Kafka's default principal builder. */
    public static final String USER_TYPE = "User";
    public static final String WILDCARD_PRINCIPAL = USER_TYPE + ":" + WILDCARD;

    private static final Comparator<AclBinding> ORDER = Comparator
            .comparingInt((AclBinding b) -> b.resourceType.code())
            .thenComparing(AclBinding::resourceName)
            .thenComparingInt(b -> b.patternType.code())
            .thenComparing(AclBinding::principal)
            .thenComparing(AclBinding::host)
            .thenComparingInt(b -> b.operation.code())
            .thenComparingInt(b -> b.permission.code());

    public AclBinding {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(resourceType, "resourceType");
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(patternType, "patternType");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(permission, "permission");
    }

    /**
     * Why this binding cannot be stored, or null if it can: a principal that is not {@code User:<name>},
     * an empty host or resource name, a CLUSTER ACL not on {@link #CLUSTER_NAME} with LITERAL, or a
     * PREFIXED {@code *} (Kafka refuses it too: use LITERAL {@code *}).
     */
    public String invalidReason() {
        if (!principal.startsWith(USER_TYPE + ":") || principal.length() == USER_TYPE.length() + 1) {
            return "principal must be User:<name> or User:*, got '" + principal + "'";
        }
        if (host.isEmpty()) {
            return "host must be an IP address or *";
        }
        if (resourceName.isEmpty()) {
            return "resource name must not be empty";
        }
        if (resourceType == AclResourceType.CLUSTER
                && (!resourceName.equals(CLUSTER_NAME) || patternType != AclPatternType.LITERAL)) {
            return "a CLUSTER ACL must name the LITERAL resource '" + CLUSTER_NAME + "'";
        }
        if (patternType == AclPatternType.PREFIXED && resourceName.equals(WILDCARD)) {
            return "a PREFIXED pattern of '*' is not allowed; use LITERAL '*' for every group";
        }
        return null;
    }

    /** Whether this binding's resource pattern covers the resource {@code (type, name)}. */
    public boolean matchesResource(AclResourceType type, String name) {
        if (type != resourceType) {
            return false;
        }
        return switch (patternType) {
            case LITERAL -> resourceName.equals(WILDCARD) || resourceName.equals(name);
            case PREFIXED -> name.startsWith(resourceName);
        };
    }

    /** Whether this binding applies to {@code principal} connecting from {@code host}. */
    public boolean matchesPrincipalAndHost(String principal, String host) {
        boolean principalMatches = this.principal.equals(WILDCARD_PRINCIPAL) || this.principal.equals(principal);
        boolean hostMatches = this.host.equals(WILDCARD) || this.host.equals(host);
        return principalMatches && hostMatches;
    }

    @Override
    public int compareTo(AclBinding other) {
        return ORDER.compare(this, other);
    }

    /** For logs and the CLI: {@code ALLOW User:alice@* READ GROUP:LITERAL:orders}. */
    @Override
    public String toString() {
        return permission + " " + principal + "@" + host + " " + operation + " " + resourceType + ":" + patternType
                + ":" + resourceName;
    }
}
