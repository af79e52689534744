package io.cohort.core.acl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AclBindingTest {

    @ParameterizedTest(name = "{0} {1} {2} {3}: {4}")
    @CsvSource({
            "User:alice, GROUP, orders, LITERAL, ",
            "User:*, GROUP, *, LITERAL, ",
            "alice, GROUP, orders, LITERAL, principal must be User:<name>",
            "User:, GROUP, orders, LITERAL, principal must be User:<name>",
            "User:alice, GROUP, '', LITERAL, resource name must not be empty",
            "User:alice, CLUSTER, orders, LITERAL, a CLUSTER ACL must name",
            "User:alice, CLUSTER, cohort-cluster, PREFIXED, a CLUSTER ACL must name",
            "User:alice, CLUSTER, cohort-cluster, LITERAL, ",
            "User:alice, GROUP, *, PREFIXED, a PREFIXED pattern of '*' is not allowed",
    })
    void testValidation(String principal, AclResourceType type, String name, AclPatternType pattern, String error) {
        AclBinding binding = new AclBinding(principal, "*", type, name, pattern, AclOperation.READ, AclPermission.ALLOW);
        if (error == null) {
            assertThat(binding.invalidReason()).isNull();
        } else {
            assertThat(binding.invalidReason()).startsWith(error);
        }
    }

    @Test
    void testCodesAreKafkas() {
        assertThat(List.of(AclOperation.ALL.code(), AclOperation.READ.code(), AclOperation.DELETE.code(),
                AclOperation.ALTER.code(), AclOperation.DESCRIBE.code())).containsExactly(2, 3, 6, 7, 8);
        assertThat(List.of(AclResourceType.GROUP.code(), AclResourceType.CLUSTER.code())).containsExactly(3, 4);
        assertThat(List.of(AclPatternType.LITERAL.code(), AclPatternType.PREFIXED.code())).containsExactly(3, 4);
        assertThat(List.of(AclPermission.DENY.code(), AclPermission.ALLOW.code())).containsExactly(2, 3);
    }

    @Test
    void testFilterMatchSelectsEveryPatternThatAppliesToAGroup() {
        AclBinding literal = binding("orders", AclPatternType.LITERAL);
        AclBinding wildcard = binding("*", AclPatternType.LITERAL);
        AclBinding prefix = binding("ord", AclPatternType.PREFIXED);
        AclBinding other = binding("billing", AclPatternType.LITERAL);
        AclSet acls = AclSet.of(List.of(literal, wildcard, prefix, other));
        AclBindingFilter match = new AclBindingFilter(null, null, AclResourceType.GROUP, "orders", null, true, null,
                null);
        assertThat(acls.matching(match)).containsExactlyInAnyOrder(literal, wildcard, prefix);
        AclBindingFilter exactName = new AclBindingFilter(null, null, AclResourceType.GROUP, "orders", null, false,
                null, null);
        assertThat(acls.matching(exactName)).containsExactly(literal);
        assertThat(acls.matching(AclBindingFilter.ANY)).hasSize(4);
    }

    private static AclBinding binding(String name, AclPatternType pattern) {
        return new AclBinding("User:alice", "*", AclResourceType.GROUP, name, pattern, AclOperation.READ,
                AclPermission.ALLOW);
    }
}
