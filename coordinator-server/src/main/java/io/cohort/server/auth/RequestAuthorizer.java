package io.cohort.server.auth;

import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclOperation;
import io.cohort.core.acl.AclResourceType;
import io.cohort.core.acl.AclSet;
import io.cohort.core.acl.Authorizer;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The per-RPC authorization checks, done in the gRPC front end before anything reaches the
 * coordinator, as Kafka does them in KafkaApis. The services ask it one question per resource
 * ("may the current call's principal READ group g?") and place the error where Kafka places it;
 * this class decides and audits, and knows nothing of responses.
 *
 * <p>The ACLs are this node's applied view of partition 0's ACL state ({@code acls}), read without a
 * lock. With {@code authorizer.enabled=false} every check passes and nothing is logged.
 *
 * <p>Until this node's replica of partition 0 has applied the log it held at start, and on a node
 * being added everything up to the configuration that added it ({@code aclsLoaded}), its ACL set
 * is the snapshot's or none, possibly older or empty, so it decides nothing from it: a check throws
 * {@link AclsNotLoadedException}: gRPC UNAVAILABLE, or COORDINATOR_LOAD_IN_PROGRESS where the
 * service maps failures to Kafka errors; clients retry both, as a Kafka broker serves nothing
 * before it has caught up its metadata. Found by chaos seed 20261221: after a whole-cluster restart
 * before partition 0's first snapshot, a node denied every call (GROUP_AUTHORIZATION_FAILED, which
 * Kafka clients treat as fatal) for 3.5 s. Super users are decided at once: they come from the
 * node's configuration, not the ACLs (the other nodes' own calls to a node being added, which are
 * the add's steps, need them or ALTER on the cluster; docs/SECURITY.md).
 */
public final class RequestAuthorizer {
    /** Allows everything: a node with authorizer.enabled=false. */
    public static final RequestAuthorizer ALLOW_ALL = new RequestAuthorizer(false, Set.of(), () -> AclSet.EMPTY);

    private final boolean enabled;
    private final Authorizer authorizer;
    private final Supplier<AclSet> acls;
    private final BooleanSupplier aclsLoaded;

    /** ACLs that are always current ({@code acls} is the whole truth). */
    public RequestAuthorizer(boolean enabled, Set<String> superUsers, Supplier<AclSet> acls) {
        this(enabled, superUsers, acls, () -> true);
    }

    /** {@code aclsLoaded}: whether {@code acls} holds at least what this node's log held at start. */
    public RequestAuthorizer(boolean enabled, Set<String> superUsers, Supplier<AclSet> acls, BooleanSupplier aclsLoaded) {
        this.enabled = enabled;
        this.authorizer = new Authorizer(superUsers);
        this.acls = acls;
        this.aclsLoaded = aclsLoaded;
    }

    public boolean enabled() {
        return enabled;
    }

    /** May the current call's principal perform {@code operation} on group {@code groupId}? Denials are audited. */
    public boolean allowGroup(String rpc, AclOperation operation, String groupId) {
        return check(rpc, operation, AclResourceType.GROUP, groupId == null ? "" : groupId, true);
    }

    /** As {@link #allowGroup}, without an audit line (ListGroups' silent filtering, as Kafka's logIfDenied=false). */
    public boolean allowGroupQuietly(String rpc, AclOperation operation, String groupId) {
        return check(rpc, operation, AclResourceType.GROUP, groupId == null ? "" : groupId, false);
    }

    /** May the current call's principal perform {@code operation} on the cluster? Denials are audited. */
    public boolean allowCluster(String rpc, AclOperation operation) {
        return check(rpc, operation, AclResourceType.CLUSTER, AclBinding.CLUSTER_NAME, true);
    }

    /** As {@link #allowCluster} without an audit line (ListGroups first asks this quietly). */
    public boolean allowClusterQuietly(String rpc, AclOperation operation) {
        return check(rpc, operation, AclResourceType.CLUSTER, AclBinding.CLUSTER_NAME, false);
    }

    /**
     * Whether {@code principal} calling from {@code host} may perform {@code operation} on the cluster,
     * by this node's applied ACLs; not audited, and true with the authorizer off. For a principal that
     * is not the current call's: a node asking whether the leader would let its own principal carry a
     * forwarded call.
     */
    public boolean wouldAllowCluster(String principal, String host, AclOperation operation) {
        return !enabled || decide(principal, host, operation, AclResourceType.CLUSTER, AclBinding.CLUSTER_NAME)
                .allowed();
    }

    private boolean check(String rpc, AclOperation operation, AclResourceType type, String name, boolean audit) {
        if (!enabled) {
            return true;
        }
        String principal = Principals.principal();
        String host = Principals.host();
        Authorizer.Decision decision = decide(principal, host, operation, type, name);
        if (!decision.allowed() && audit) {
            AuditLog.denied(rpc, principal, host, operation.name(), type + ":" + name, decision.reason());
        }
        return decision.allowed();
    }

    /**
     * The decision, once the ACLs are loaded: until then the call ends with UNAVAILABLE (see the class
     * comment), except for a super user, decided by the configuration, not by the ACLs.
     */
    private Authorizer.Decision decide(String principal, String host, AclOperation operation, AclResourceType type,
                                       String name) {
        if (!aclsLoaded.getAsBoolean() && !authorizer.superUsers().contains(principal)) {
            throw new AclsNotLoadedException();
        }
        return authorizer.authorize(acls.get(), principal, host, operation, type, name);
    }
}
