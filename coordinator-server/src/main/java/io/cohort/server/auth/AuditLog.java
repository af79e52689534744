package io.cohort.server.auth;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail: every denied request and every ACL change, one INFO line each on the logger
 * {@code cohort.audit} (docs/SECURITY.md, "Audit"). Allowed requests are not logged (there would be
 * one line per heartbeat). Lines are key=value so they can be grepped and parsed:
 * {@code principal=User:bob operation=READ resource=GROUP:orders host=10.0.0.7 result=DENIED rpc=JoinGroup}.
 */
public final class AuditLog {
    public static final String LOGGER_NAME = "cohort.audit";
    private static final Logger AUDIT = LoggerFactory.getLogger(LOGGER_NAME);

    private AuditLog() {
    }

    static void denied(String rpc, String principal, String host, String operation, String resource, String reason) {
        AUDIT.info("principal={} operation={} resource={} host={} result=DENIED rpc={} reason=\"{}\"", principal,
                operation, resource, host, rpc, reason);
    }

    /** An ACL change, logged by the node that accepted it once it is committed. */
    public static void aclChange(String rpc, String principal, String host, String change, String acl) {
        AUDIT.info("principal={} operation={} acl=\"{}\" host={} result=APPLIED rpc={}", principal, change, acl, host,
                rpc);
    }
}
