package io.cohort.core.acl;

/** ALLOW or DENY, with Kafka's {@code AclPermissionType} codes (persisted: never renumber). */
public enum AclPermission {
    DENY(2),
    ALLOW(3);

    private final int code;

    AclPermission(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AclPermission forCode(int code) {
        for (AclPermission permission : values()) {
            if (permission.code == code) {
                return permission;
            }
        }
        throw new IllegalArgumentException("Unknown ACL permission code " + code);
    }
}
