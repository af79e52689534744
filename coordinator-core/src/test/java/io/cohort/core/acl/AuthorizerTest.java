package io.cohort.core.acl;

import static io.cohort.core.acl.AclOperation.ALL;
import static io.cohort.core.acl.AclOperation.ALTER;
import static io.cohort.core.acl.AclOperation.DELETE;
import static io.cohort.core.acl.AclOperation.DESCRIBE;
import static io.cohort.core.acl.AclOperation.READ;
import static io.cohort.core.acl.AclPatternType.LITERAL;
import static io.cohort.core.acl.AclPatternType.PREFIXED;
import static io.cohort.core.acl.AclPermission.ALLOW;
import static io.cohort.core.acl.AclPermission.DENY;
import static io.cohort.core.acl.AclResourceType.CLUSTER;
import static io.cohort.core.acl.AclResourceType.GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka's StandardAuthorizer rules, one row per rule: the ACLs in force, the request, and the
 * expected decision. Every row's caller is {@code User:alice} from 10.0.0.1 unless it says otherwise.
 */
class AuthorizerTest {
    static final String ALICE = "User:alice";
    static final String HOST = "10.0.0.1";
    static final Authorizer AUTHORIZER = new Authorizer(Set.of("User:admin"));

    static AclBinding group(String principal, String host, String name, AclPatternType pattern, AclOperation op,
                            AclPermission permission) {
        return new AclBinding(principal, host, GROUP, name, pattern, op, permission);
    }

    static AclBinding allowGroup(String name, AclPatternType pattern, AclOperation op) {
        return group(ALICE, "*", name, pattern, op, ALLOW);
    }

    static AclBinding denyGroup(String name, AclPatternType pattern, AclOperation op) {
        return group(ALICE, "*", name, pattern, op, DENY);
    }

    static AclBinding cluster(String principal, AclOperation op, AclPermission permission) {
        return new AclBinding(principal, "*", CLUSTER, AclBinding.CLUSTER_NAME, LITERAL, op, permission);
    }

    record Row(String rule, List<AclBinding> acls, String principal, String host, AclOperation operation,
               AclResourceType type, String name, boolean allowed) {
        @Override
        public String toString() {
            return rule;
        }
    }

    static Row row(String rule, List<AclBinding> acls, AclOperation op, String group, boolean allowed) {
        return new Row(rule, acls, ALICE, HOST, op, GROUP, group, allowed);
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                // no match = deny
                row("no ACLs: denied", List.of(), READ, "orders", false),
                row("ACL on another group: denied", List.of(allowGroup("billing", LITERAL, READ)), READ, "orders", false),
                row("ACL for another operation: denied", List.of(allowGroup("orders", LITERAL, DELETE)), READ,
                        "orders", false),
                // literal and wildcard
                row("LITERAL exact name: allowed", List.of(allowGroup("orders", LITERAL, READ)), READ, "orders", true),
                row("LITERAL is not a prefix", List.of(allowGroup("orders", LITERAL, READ)), READ, "orders-2", false),
                row("LITERAL * matches every group", List.of(allowGroup("*", LITERAL, READ)), READ, "anything", true),
                // prefixed
                row("PREFIXED matches a longer name", List.of(allowGroup("app-", PREFIXED, READ)), READ, "app-orders",
                        true),
                row("PREFIXED matches the prefix itself", List.of(allowGroup("app-", PREFIXED, READ)), READ, "app-",
                        true),
                row("PREFIXED does not match another prefix", List.of(allowGroup("app-", PREFIXED, READ)), READ,
                        "ap", false),
                row("PREFIXED * is a literal star prefix, not a wildcard",
                        List.of(group(ALICE, "*", "*x", PREFIXED, READ, ALLOW)), READ, "orders", false),
                // DENY wins
                row("DENY wins over ALLOW on the same group",
                        List.of(allowGroup("orders", LITERAL, READ), denyGroup("orders", LITERAL, READ)), READ,
                        "orders", false),
                row("DENY on a prefix wins over a LITERAL ALLOW",
                        List.of(allowGroup("orders", LITERAL, READ), denyGroup("ord", PREFIXED, READ)), READ,
                        "orders", false),
                row("DENY on * wins", List.of(allowGroup("orders", LITERAL, ALL), denyGroup("*", LITERAL, ALL)),
                        DESCRIBE, "orders", false),
                row("DENY ALL denies READ", List.of(allowGroup("orders", LITERAL, READ), denyGroup("orders", LITERAL,
                        ALL)), READ, "orders", false),
                row("DENY of User:* denies alice", List.of(allowGroup("orders", LITERAL, READ),
                        group("User:*", "*", "orders", LITERAL, READ, DENY)), READ, "orders", false),
                row("DENY of another operation does not deny", List.of(allowGroup("orders", LITERAL, READ),
                        denyGroup("orders", LITERAL, DELETE)), READ, "orders", true),
                row("DENY READ does not deny DESCRIBE", List.of(allowGroup("orders", LITERAL, DESCRIBE),
                        denyGroup("orders", LITERAL, READ)), DESCRIBE, "orders", true),
                // implied DESCRIBE
                row("READ implies DESCRIBE", List.of(allowGroup("orders", LITERAL, READ)), DESCRIBE, "orders", true),
                row("DELETE implies DESCRIBE", List.of(allowGroup("orders", LITERAL, DELETE)), DESCRIBE, "orders", true),
                row("ALTER implies DESCRIBE", List.of(allowGroup("orders", LITERAL, ALTER)), DESCRIBE, "orders", true),
                row("DESCRIBE does not imply READ", List.of(allowGroup("orders", LITERAL, DESCRIBE)), READ, "orders",
                        false),
                row("READ does not imply DELETE", List.of(allowGroup("orders", LITERAL, READ)), DELETE, "orders", false),
                row("ALL implies DELETE", List.of(allowGroup("orders", LITERAL, ALL)), DELETE, "orders", true),
                // principals
                row("User:* allows alice", List.of(group("User:*", "*", "orders", LITERAL, READ, ALLOW)), READ,
                        "orders", true),
                row("another principal's ACL: denied", List.of(group("User:bob", "*", "orders", LITERAL, READ, ALLOW)),
                        READ, "orders", false),
                row("principal names are case-sensitive", List.of(group("User:Alice", "*", "orders", LITERAL, READ,
                        ALLOW)), READ, "orders", false),
                // hosts
                row("ACL from the caller's host: allowed", List.of(group(ALICE, HOST, "orders", LITERAL, READ, ALLOW)),
                        READ, "orders", true),
                row("ACL from another host: denied", List.of(group(ALICE, "10.0.0.2", "orders", LITERAL, READ, ALLOW)),
                        READ, "orders", false),
                row("DENY from another host does not deny", List.of(allowGroup("orders", LITERAL, READ),
                        group(ALICE, "10.0.0.2", "orders", LITERAL, READ, DENY)), READ, "orders", true),
                // resource types
                row("ALL on LITERAL * implies DESCRIBE on any group", List.of(allowGroup("*", LITERAL, ALL)), DESCRIBE,
                        "x", true),
                new Row("a GROUP * ACL does not grant CLUSTER DESCRIBE", List.of(allowGroup("*", LITERAL, ALL)), ALICE,
                        HOST, DESCRIBE, CLUSTER, AclBinding.CLUSTER_NAME, false),
                new Row("CLUSTER ALTER allowed", List.of(cluster(ALICE, ALTER, ALLOW)), ALICE, HOST, ALTER, CLUSTER,
                        AclBinding.CLUSTER_NAME, true),
                new Row("CLUSTER ALTER implies CLUSTER DESCRIBE", List.of(cluster(ALICE, ALTER, ALLOW)), ALICE, HOST,
                        DESCRIBE, CLUSTER, AclBinding.CLUSTER_NAME, true),
                new Row("a CLUSTER ACL does not grant groups", List.of(cluster(ALICE, ALL, ALLOW)), ALICE, HOST, READ,
                        GROUP, "orders", false),
                // super users
                new Row("a super user is allowed without ACLs", List.of(), "User:admin", HOST, DELETE, GROUP, "orders",
                        true),
                new Row("a super user is allowed despite a DENY", List.of(group("User:admin", "*", "orders", LITERAL,
                        ALL, DENY)), "User:admin", HOST, READ, GROUP, "orders", true),
                new Row("ANONYMOUS is an ordinary principal", List.of(allowGroup("orders", LITERAL, READ)),
                        "User:ANONYMOUS", HOST, READ, GROUP, "orders", false)
        ).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void testRule(Row row) {
        AclSet acls = AclSet.of(row.acls());
        assertThat(AUTHORIZER.isAllowed(acls, row.principal(), row.host(), row.operation(), row.type(), row.name()))
                .as(row.rule())
                .isEqualTo(row.allowed());
    }
}
