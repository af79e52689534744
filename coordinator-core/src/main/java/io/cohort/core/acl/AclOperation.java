package io.cohort.core.acl;

/**
 * The operations an ACL grants or denies, with Kafka's {@code AclOperation} codes (persisted: never
 * renumber). Only the operations Cohort's RPCs check exist here (docs/SECURITY.md has the table).
 */
public enum AclOperation {
    /** Every operation. */
    ALL(2),
    READ(3),
    DELETE(6),
    ALTER(7),
    DESCRIBE(8);

    private final int code;

    AclOperation(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /**
     * Whether an ALLOW of this operation also allows {@code requested}. As in Kafka, READ, DELETE and
     * ALTER imply DESCRIBE (you may see what you may use), ALL implies everything. Only ALLOW ACLs
     * imply: a DENY of READ does not deny DESCRIBE.
     */
    public boolean allowImplies(AclOperation requested) {
        if (this == ALL || this == requested) {
            return true;
        }
        return requested == DESCRIBE && (this == READ || this == DELETE || this == ALTER);
    }

    public static AclOperation forCode(int code) {
        for (AclOperation operation : values()) {
            if (operation.code == code) {
                return operation;
            }
        }
        throw new IllegalArgumentException("Unknown ACL operation code " + code);
    }
}
