package io.cohort.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclPatternType;
import io.cohort.core.acl.AclPermission;
import io.cohort.core.acl.AclResourceType;
import io.cohort.core.acl.AclSet;
import io.grpc.Context;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The front end's checks: the call's principal from the gRPC Context, the node's ACL view, the audit lines. */
class RequestAuthorizerTest {
    static final AclSet ACLS = AclSet.of(List.of(new AclBinding("User:alice", "*", AclResourceType.GROUP, "orders",
            AclPatternType.LITERAL, AclOperation.READ, AclPermission.ALLOW)));

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();
    private final Logger auditLogger = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER_NAME);

    @BeforeEach
    void attach() {
        audit.start();
        auditLogger.addAppender(audit);
    }

    @AfterEach
    void detach() {
        auditLogger.detachAppender(audit);
    }

    private static boolean as(String principal, java.util.function.Supplier<Boolean> check) {
        Context previous = Context.current().withValue(Principals.PRINCIPAL, principal)
                .withValue(Principals.HOST, "10.0.0.9").attach();
        try {
            return check.get();
        } finally {
            Context.current().detach(previous);
        }
    }

    @Test
    void testDenialIsAuditedWithPrincipalOperationResourceAndResult() {
        RequestAuthorizer authorizer = new RequestAuthorizer(true, Set.of(), () -> ACLS);
        assertThat(as("User:alice", () -> authorizer.allowGroup("JoinGroup", AclOperation.READ, "orders"))).isTrue();
        assertThat(as("User:bob", () -> authorizer.allowGroup("JoinGroup", AclOperation.READ, "orders"))).isFalse();
        assertThat(as("User:bob", () -> authorizer.allowGroupQuietly("ListGroups", AclOperation.DESCRIBE, "orders")))
                .isFalse();
        assertThat(as("User:bob", () -> authorizer.allowCluster("TransferLeadership", AclOperation.ALTER))).isFalse();

        assertThat(audit.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly(
                "principal=User:bob operation=READ resource=GROUP:orders host=10.0.0.9 result=DENIED rpc=JoinGroup "
                        + "reason=\"no matching ALLOW ACL\"",
                "principal=User:bob operation=ALTER resource=CLUSTER:cohort-cluster host=10.0.0.9 result=DENIED "
                        + "rpc=TransferLeadership reason=\"no matching ALLOW ACL\"");
        assertThat(audit.list).allSatisfy(e -> assertThat(e.getLevel().toString()).isEqualTo("INFO"));
    }

    @Test
    void testNothingIsDecidedUntilTheAclsAreLoaded() {
        java.util.concurrent.atomic.AtomicBoolean loaded = new java.util.concurrent.atomic.AtomicBoolean();
        // Before partition 0's log is applied the node's ACL set may be empty: it must not deny.
        RequestAuthorizer authorizer = new RequestAuthorizer(true, Set.of("User:admin"), () -> AclSet.EMPTY,
                loaded::get);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> as("User:alice", () -> authorizer.allowGroup("FindCoordinator", AclOperation.DESCRIBE, "g")))
                .isInstanceOf(AclsNotLoadedException.class)
                .satisfies(e -> assertThat(((AclsNotLoadedException) e).getStatus().getCode())
                        .isEqualTo(io.grpc.Status.Code.UNAVAILABLE));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> authorizer.wouldAllowCluster("User:node", "10.0.0.1", AclOperation.ALTER))
                .isInstanceOf(AclsNotLoadedException.class);
        assertThat(audit.list).as("nothing decided, nothing audited").isEmpty();
        // A super user comes from the configuration, not the ACLs: decided at once (the other nodes'
        // calls to a node being added, which are the add's steps, must not wait for what they add).
        assertThat(as("User:admin", () -> authorizer.allowCluster("HostReplica", AclOperation.ALTER))).isTrue();
        assertThat(authorizer.wouldAllowCluster("User:admin", "10.0.0.1", AclOperation.ALTER)).isTrue();
        assertThat(RequestAuthorizer.ALLOW_ALL.allowGroup("JoinGroup", AclOperation.READ, "g")).isTrue();

        loaded.set(true);
        assertThat(as("User:alice", () -> authorizer.allowGroup("FindCoordinator", AclOperation.DESCRIBE, "g")))
                .isFalse();
    }

    @Test
    void testOutsideACallThePrincipalIsAnonymous() {
        RequestAuthorizer authorizer = new RequestAuthorizer(true, Set.of("User:ANONYMOUS"), () -> AclSet.EMPTY);
        assertThat(authorizer.allowCluster("x", AclOperation.ALTER)).isTrue();
    }

    @Test
    void testDisabledAllowsEverythingSilently() {
        assertThat(as("User:bob", () -> RequestAuthorizer.ALLOW_ALL.allowGroup("JoinGroup", AclOperation.READ, "g")))
                .isTrue();
        assertThat(audit.list).isEmpty();
    }
}
