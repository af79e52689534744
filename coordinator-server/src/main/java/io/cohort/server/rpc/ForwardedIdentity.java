package io.cohort.server.rpc;

import io.cohort.core.acl.AclOperation;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.cohort.server.auth.Principals;
import io.cohort.server.auth.RequestAuthorizer;
import java.util.function.Supplier;

/**
 * Whether a ClusterAdmin call this node would forward to a partition's leader reaches it as its
 * caller. A forwarded call carries the caller's bearer token when it came with one, and the leader
 * authorizes that token's principal. A client certificate cannot travel: the leader authenticates
 * the connection, which is this node's (its {@code tls.cert}, or no certificate at all over
 * plaintext), and authorizes this node's principal instead of the caller's.
 *
 * <p>With the authorizer on, a call whose identity would not travel is forwarded only when this
 * node's own principal may ALTER the cluster (a super user, or an ACL: docs/SECURITY.md); the
 * leader would refuse it otherwise, with a CLUSTER_AUTHORIZATION_FAILED that names this node and
 * tells the caller nothing useful. The node answers NOT_COORDINATOR naming the leader instead, and
 * the Cohort client sends the call there, as Kafka's admin client did with NOT_CONTROLLER before
 * brokers forwarded controller calls in envelopes (KIP-590). Read only, on the call's thread.
 */
final class ForwardedIdentity {
    private final CohortRaftNode node;
    private final RequestAuthorizer authorizer;
    private final Supplier<String> nodePrincipal;

    /**
     * {@code nodePrincipal}: the principal the leader maps this node's connections to, read when
     * asked (a rotated certificate may change it): its client certificate's, or ANONYMOUS without TLS.
     */
    ForwardedIdentity(CohortRaftNode node, RequestAuthorizer authorizer, Supplier<String> nodePrincipal) {
        this.node = node;
        this.authorizer = authorizer;
        this.nodePrincipal = nodePrincipal;
    }

    /**
     * Null when the current call may be forwarded to node {@code leader}; else the message of the
     * NOT_COORDINATOR answer. {@code what} names what the leader holds ("partition 0, which holds
     * the ACLs").
     */
    String refusal(int leader, String what) {
        if (!authorizer.enabled() || Principals.bearerHeader() != null) {
            return null;
        }
        String forwarder = nodePrincipal.get();
        if (authorizer.wouldAllowCluster(forwarder, nodeHost(node.nodeId()), AclOperation.ALTER)) {
            return null;
        }
        NodeAddress address = node.spec().peer(leader);
        return "node " + node.nodeId() + " does not lead " + what + "; node " + leader + " does: send the call to node "
                + leader + " at " + address.host() + ":" + address.clientPort() + ". This node does not forward it: "
                + "the leader would authorize this node's principal, " + forwarder + ", not the caller's, "
                + Principals.principal() + " (a client certificate cannot travel with a forwarded call; a bearer "
                + "token does), and " + forwarder + " may not ALTER the cluster";
    }

    private String nodeHost(int nodeId) {
        try {
            return java.net.InetAddress.getByName(node.spec().peer(nodeId).host()).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            return node.spec().peer(nodeId).host();
        }
    }
}
