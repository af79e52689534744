package io.cohort.core.acl;

/**
 * How an ACL's resource name matches a requested resource, with Kafka's {@code PatternType} codes
 * (persisted: never renumber). LITERAL: the exact name, or {@code *} for every name. PREFIXED: every
 * name that starts with the ACL's name.
 */
public enum AclPatternType {
    LITERAL(3),
    PREFIXED(4);

    private final int code;

    AclPatternType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AclPatternType forCode(int code) {
        for (AclPatternType type : values()) {
            if (type.code == code) {
                return type;
            }
        }
        throw new IllegalArgumentException("Unknown ACL pattern type code " + code);
    }
}
