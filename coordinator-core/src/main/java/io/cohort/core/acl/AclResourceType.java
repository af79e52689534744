package io.cohort.core.acl;

/**
 * The kinds of resource an ACL protects, with Kafka's {@code ResourceType} codes. The codes are
 * persisted (log and snapshots): never renumber one, never persist an ordinal.
 */
public enum AclResourceType {
    /** A consumer group, by group id. */
    GROUP(3),
    /** The cluster itself; its only name is {@link AclBinding#CLUSTER_NAME}. */
    CLUSTER(4);

    private final int code;

    AclResourceType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type of a persisted code; {@link IllegalArgumentException} for an unknown one. */
    public static AclResourceType forCode(int code) {
        for (AclResourceType type : values()) {
            if (type.code == code) {
                return type;
            }
        }
        throw new IllegalArgumentException("Unknown ACL resource type code " + code);
    }
}
