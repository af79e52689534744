package io.cohort.server.rpc;

import static io.cohort.api.v1.ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
import static io.cohort.api.v1.ErrorCode.GROUP_AUTHORIZATION_FAILED;
import static io.cohort.api.v1.ErrorCode.NONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclBindingFilter;
import io.cohort.api.v1.AclOperation;
import io.cohort.api.v1.AclPatternType;
import io.cohort.api.v1.AclPermission;
import io.cohort.api.v1.AclResourceType;
import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.CreateAclsRequest;
import io.cohort.api.v1.CreateAclsResponse;
import io.cohort.api.v1.DeleteAclsRequest;
import io.cohort.api.v1.DeleteAclsResponse;
import io.cohort.api.v1.DeleteGroupsRequest;
import io.cohort.api.v1.DescribeAclsRequest;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.ListGroupsRequest;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetDeleteRequest;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.api.v1.TransferLeadershipRequest;
import io.cohort.raft.RaftTuning;
import io.cohort.server.auth.AuditLog;
import io.cohort.server.auth.TokenFile;
import io.cohort.server.auth.TokenHash;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The authorizer on real nodes (real Ratis, real gRPC on loopback, bearer-token principals): where
 * Kafka's errors land for a principal without ACLs, ListGroups filtering, super users, and an ACL
 * change made through one node enforced on every node, also after the partition-0 leader is killed
 * and after a full restart from snapshots.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationTest {
    static final int NODES = 3;
    static final int PARTITIONS = 3;
    /** Small, so partition 0 (which holds the ACLs) snapshots during the test. */
    static final RaftTuning TUNING = CoordinatorTestCluster.TEST_TUNING.toBuilder().snapshotEveryEntries(4).build();

    /** The class's temporary directory (given to the @BeforeAll: a PER_CLASS field would not be set yet). */
    private Path root;

    /** The cluster of the test that runs: the nested tests' shared one, or the ACL-change test's own. */
    private CoordinatorTestCluster cluster;
    /** The ACL-change test's cluster, closed after it. */
    private CoordinatorTestCluster ownCluster;
    private CoordinatorTestCluster.Security security;
    private String adminToken;
    private String aliceToken;
    private String bobToken;

    @BeforeAll
    void tokens(@TempDir Path classRoot) throws Exception {
        root = classRoot;
        String adminSecret = TokenHash.newSecret();
        String aliceSecret = TokenHash.newSecret();
        String bobSecret = TokenHash.newSecret();
        adminToken = "admin." + adminSecret;
        aliceToken = "alice." + aliceSecret;
        bobToken = "bob." + bobSecret;
        Path tokens = root.resolve("tokens");
        Files.write(tokens, List.of(TokenFile.entry("User:admin", TokenHash.hash(adminSecret, 1_000)),
                TokenFile.entry("User:alice", TokenHash.hash(aliceSecret, 1_000)),
                TokenFile.entry("User:bob", TokenHash.hash(bobSecret, 1_000))));
        security = new CoordinatorTestCluster.Security(Set.of("User:admin"), TokenFile.load(tokens));
    }

    /** Closes the ACL-change test's own cluster (the nested tests' shared one is closed after them). */
    @AfterEach
    void stopOwnCluster() {
        if (ownCluster != null) {
            ownCluster.close();
            ownCluster = null;
        }
    }

    private CoordinatorTestCluster startCluster(String name) {
        return CoordinatorTestCluster.startSecured(root.resolve(name), NODES, PARTITIONS, security, TUNING);
    }

    private GroupCoordinatorGrpc.GroupCoordinatorBlockingStub groups(CoordinatorTestCluster.Node node, String token) {
        return node.blocking().withInterceptors(bearer(token));
    }

    private ClusterAdminGrpc.ClusterAdminBlockingStub admin(CoordinatorTestCluster.Node node, String token) {
        return node.admin().withInterceptors(bearer(token)).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    static io.grpc.ClientInterceptor bearer(String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return MetadataUtils.newAttachHeadersInterceptor(headers);
    }

    /**
     * A group with a committed offset, made by the super user on its partition's leader (retried while
     * leadership settles: the preferred-leader hand-off may answer NOT_COORDINATOR at first).
     */
    private String groupWithOffsets(int partition, String prefix) {
        String groupId = cluster.groupIn(partition, prefix);
        await().atMost(Duration.ofSeconds(30)).until(() -> groups(cluster.leaderOf(partition), adminToken)
                .offsetCommit(Requests.commit(groupId, "", -1, "t", 0, 42L))
                .getTopics(0).getPartitions(0).getErrorCode() == NONE);
        return groupId;
    }

    /**
     * The tests that change nothing another one reads (each has its own groups; only bob gets an
     * ACL here, none that alice's checks see) share one cluster: one start instead of three. Nested,
     * so that it runs only while they do, not beside the ACL-change test's own cluster.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OnOneSharedCluster {
        private CoordinatorTestCluster shared;

        @BeforeAll
        void startSharedCluster() {
            shared = startCluster("shared");
        }

        @BeforeEach
        void useSharedCluster() {
            cluster = shared;
        }

        @AfterAll
        void stopSharedCluster() {
            cluster = null;
            if (shared != null) {
                shared.close();
            }
        }

        @Test
        void testPrincipalWithoutAclsGetsGroupAuthorizationFailedWhereKafkaPutsIt() {
            String groupId = groupWithOffsets(1, "orders");
            CoordinatorTestCluster.Node leader = cluster.leaderOf(1);
            GroupCoordinatorGrpc.GroupCoordinatorBlockingStub alice = groups(leader, aliceToken);

            // Per key.
            var found = alice.findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds(groupId).build());
            assertThat(found.getCoordinators(0).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            assertThat(found.getCoordinators(0).getNodeId()).isEqualTo(-1);
            // Whole response.
            assertThat(alice.joinGroup(Requests.join(groupId, "", "c")).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            assertThat(alice.syncGroup(Requests.sync(groupId, "m", 1)).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            assertThat(alice.heartbeat(Requests.heartbeat(groupId, "m", 1)).getErrorCode())
                    .isEqualTo(GROUP_AUTHORIZATION_FAILED);
            var leave = alice.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(groupId)
                    .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId("m")).build());
            assertThat(leave.getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            var offsetDelete = alice.offsetDelete(OffsetDeleteRequest.newBuilder().setGroupId(groupId)
                    .addTopics(OffsetDeleteRequest.Topic.newBuilder().setName("t").addPartitionIndexes(0)).build());
            assertThat(offsetDelete.getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            // Every partition.
            var commit = alice.offsetCommit(Requests.commit(groupId, "", -1, "t", 0, 99L).toBuilder()
                    .addTopics(io.cohort.api.v1.OffsetCommitRequest.Topic.newBuilder().setName("u")
                            .addPartitions(io.cohort.api.v1.OffsetCommitRequest.Partition.newBuilder()
                                    .setPartitionIndex(3).setCommittedOffset(1))).build());
            assertThat(commit.getTopicsList()).hasSize(2).allSatisfy(t -> assertThat(t.getPartitionsList())
                    .allSatisfy(p -> assertThat(p.getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED)));
            // Per group.
            var fetched = alice.offsetFetch(Requests.fetch(groupId, ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0));
            assertThat(fetched.getGroups(0).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            var described = alice.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(groupId).build());
            assertThat(described.getGroups(0).getGroupId()).isEqualTo(groupId);
            assertThat(described.getGroups(0).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            var deleted = alice.deleteGroups(DeleteGroupsRequest.newBuilder().addGroupIds(groupId).build());
            assertThat(deleted.getResults(0).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
            // Filtered silently.
            ListGroupsResponse listed = alice.listGroups(ListGroupsRequest.getDefaultInstance());
            assertThat(listed.getErrorCode()).as(listed.getErrorMessage()).isEqualTo(NONE);
            assertThat(listed.getPartitionIndexesList()).as("the group's partition was read").contains(1);
            assertThat(listed.getGroupsList()).isEmpty();
            // Nothing was changed: the offset is still there and the group still exists.
            var stillThere = groups(leader, adminToken).offsetFetch(
                    Requests.fetch(groupId, ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0));
            assertThat(stillThere.getGroups(0).getTopics(0).getPartitions(0).getCommittedOffset()).isEqualTo(42L);

            // Cluster operations: 31.
            ClusterAdminGrpc.ClusterAdminBlockingStub aliceAdmin = admin(leader, aliceToken);
            assertThat(aliceAdmin.transferLeadership(TransferLeadershipRequest.newBuilder().setPartitionIndex(1)
                    .setTargetNodeId(1).setTimeoutMs(1_000).build()).getErrorCode()).isEqualTo(CLUSTER_AUTHORIZATION_FAILED);
            assertThat(aliceAdmin.createAcls(CreateAclsRequest.newBuilder().addCreations(readPrefix("User:alice", "")).build())
                    .getErrorCode()).isEqualTo(CLUSTER_AUTHORIZATION_FAILED);
            assertThat(aliceAdmin.deleteAcls(DeleteAclsRequest.newBuilder().addFilters(AclBindingFilter.getDefaultInstance())
                    .build()).getErrorCode()).isEqualTo(CLUSTER_AUTHORIZATION_FAILED);
            assertThat(aliceAdmin.describeAcls(DescribeAclsRequest.getDefaultInstance()).getErrorCode())
                    .isEqualTo(CLUSTER_AUTHORIZATION_FAILED);
            // ClusterStatus still gives the cluster's shape (every client asks it at start), so its
            // refusal of the Raft details is not audited; the refused DescribeAcls is.
            ListAppender<ILoggingEvent> audit = new ListAppender<>();
            Logger auditLogger = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER_NAME);
            audit.start();
            auditLogger.addAppender(audit);
            try {
                ClusterStatusResponse shapeOnly = aliceAdmin.clusterStatus(ClusterStatusRequest.getDefaultInstance());
                assertThat(shapeOnly.getErrorCode()).isEqualTo(CLUSTER_AUTHORIZATION_FAILED);
                assertThat(shapeOnly.getPartitionCount()).isEqualTo(PARTITIONS);
                assertThat(shapeOnly.getNodesCount()).isEqualTo(NODES);
                assertThat(shapeOnly.getPartitionsList()).isEmpty();
                assertThat(audit.list).isEmpty();
                aliceAdmin.describeAcls(DescribeAclsRequest.getDefaultInstance());
                assertThat(audit.list).extracting(ILoggingEvent::getFormattedMessage).singleElement().asString()
                        .contains("principal=User:alice", "result=DENIED", "rpc=DescribeAcls");
            } finally {
                auditLogger.detachAppender(audit);
            }
            // An unauthenticated caller is ANONYMOUS: denied alike.
            assertThat(leader.blocking().joinGroup(Requests.join(groupId, "", "c")).getErrorCode())
                    .isEqualTo(GROUP_AUTHORIZATION_FAILED);
        }

        /**
         * Backups need ALTER on the cluster: DESCRIBE (what monitoring and the nodes' own principals
         * get) lets bob see the cluster's status but not copy every group's offsets; the super user
         * gets the partition's image, whole. (Bob, not alice: alice has no ACL on the shared cluster.)
         */
        @Test
        void testSaveSnapshotNeedsAlterOnTheClusterNotDescribe() {
            groupWithOffsets(1, "backup");
            CoordinatorTestCluster.Node leader = cluster.leaderOf(1);
            AclBinding describeCluster = AclBinding.newBuilder().setPrincipal("User:bob")
                    .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_CLUSTER).setResourceName("cohort-cluster")
                    .setPatternType(AclPatternType.ACL_PATTERN_TYPE_LITERAL)
                    .setOperation(AclOperation.ACL_OPERATION_DESCRIBE).setPermission(AclPermission.ACL_PERMISSION_ALLOW)
                    .build();
            assertThat(admin(leader, adminToken).createAcls(CreateAclsRequest.newBuilder().addCreations(describeCluster)
                    .build()).getErrorCode()).isEqualTo(NONE);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin(leader, bobToken)
                    .clusterStatus(ClusterStatusRequest.getDefaultInstance()).getErrorCode() == NONE);
            io.cohort.api.v1.SaveSnapshotRequest request = io.cohort.api.v1.SaveSnapshotRequest.newBuilder()
                    .setPartitionIndex(1).build();

            java.util.Iterator<io.cohort.api.v1.SaveSnapshotChunk> denied = admin(leader, bobToken).saveSnapshot(request);
            assertThat(denied.next().getInfo().getErrorCode()).isEqualTo(CLUSTER_AUTHORIZATION_FAILED);
            assertThat(denied.hasNext()).isFalse();

            java.util.Iterator<io.cohort.api.v1.SaveSnapshotChunk> stream = admin(leader, adminToken).saveSnapshot(request);
            io.cohort.api.v1.SaveSnapshotInfo info = stream.next().getInfo();
            assertThat(info.getErrorCode()).as(info.getErrorMessage()).isEqualTo(NONE);
            long received = 0;
            while (stream.hasNext()) {
                received += stream.next().getData().size();
            }
            assertThat(received).isEqualTo(info.getSnapshotBytes()).isPositive();
            assertThat(info.getPartitionIndex()).isEqualTo(1);
            assertThat(info.getAppliedIndex()).isPositive();
        }

        @Test
        void testSuperUserIsAllowedEverything() {
            String groupId = groupWithOffsets(2, "ops");
            CoordinatorTestCluster.Node leader = cluster.leaderOf(2);
            GroupCoordinatorGrpc.GroupCoordinatorBlockingStub admin = groups(leader, adminToken);

            assertThat(admin.joinGroup(Requests.join(groupId, "", "c")).getErrorCode())
                    .isEqualTo(io.cohort.api.v1.ErrorCode.MEMBER_ID_REQUIRED);
            ListGroupsResponse listed = admin.listGroups(ListGroupsRequest.getDefaultInstance());
            assertThat(listed.getErrorCode()).as(listed.getErrorMessage()).isEqualTo(NONE);
            assertThat(listed.getGroupsList()).extracting(ListGroupsResponse.Group::getGroupId).contains(groupId);
            assertThat(admin(leader, adminToken).clusterStatus(ClusterStatusRequest.getDefaultInstance()).getErrorCode())
                    .isEqualTo(NONE);
        }
    }

    @Test
    void testAclChangeThroughOneNodeIsEnforcedOnEveryNodeAcrossLeaderKillAndFullRestart() {
        // Its own cluster: it kills and restarts nodes and checks the exact list of ACLs.
        ownCluster = startCluster("acl-change");
        cluster = ownCluster;
        String appGroup = groupWithOffsets(1, "app-orders");
        String otherGroup = groupWithOffsets(2, "billing");
        // Made through a node that does not lead partition 0: it forwards to the leader with the caller's token.
        CoordinatorTestCluster.Node follower = cluster.followerOf(0);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> audit =
                new ch.qos.logback.core.read.ListAppender<>();
        audit.start();
        ch.qos.logback.classic.Logger auditLogger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(io.cohort.server.auth.AuditLog.LOGGER_NAME);
        auditLogger.addAppender(audit);
        CreateAclsResponse created;
        try {
            created = admin(follower, adminToken).createAcls(CreateAclsRequest.newBuilder()
                    .addCreations(readPrefix("User:alice", "app-")).build());
        } finally {
            auditLogger.detachAppender(audit);
        }
        assertThat(created.getErrorCode()).isEqualTo(NONE);
        assertThat(audit.list).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line).startsWith("principal=User:admin operation=ADD_ACL "
                        + "acl=\"ALLOW User:alice@* READ GROUP:PREFIXED:app-\"").contains("result=APPLIED"));
        assertThat(created.getPropagatedToAllNodes()).isTrue();
        awaitEnforcedEverywhere(appGroup, otherGroup, true);

        // Kill the leader of partition 0: the survivors keep enforcing the ACL, and a new leader serves changes.
        int killed = cluster.leaderOf(0).raft.nodeId();
        cluster.stopNode(killed);
        awaitEnforcedEverywhere(appGroup, otherGroup, true);
        CoordinatorTestCluster.Node survivor = cluster.leaderOf(0);
        AclBinding describeOther = AclBinding.newBuilder().setPrincipal("User:alice")
                .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_GROUP).setResourceName(otherGroup)
                .setPatternType(AclPatternType.ACL_PATTERN_TYPE_LITERAL)
                .setOperation(AclOperation.ACL_OPERATION_DESCRIBE).setPermission(AclPermission.ACL_PERMISSION_ALLOW)
                .build();
        CreateAclsResponse second = admin(survivor, adminToken).createAcls(CreateAclsRequest.newBuilder()
                .addCreations(describeOther).setTimeoutMs(1_000).build());
        assertThat(second.getErrorCode()).isEqualTo(NONE);
        assertThat(second.getPropagatedToAllNodes()).as("a node is down").isFalse();
        cluster.restartNode(killed);
        cluster.awaitAllLeadersReady();
        // The restarted node applied the ACL it missed: it lets alice find the other group, and the
        // cluster's list (every node's, merged) shows her both.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(alice(cluster.node(killed)).findCoordinator(FindCoordinatorRequest.newBuilder()
                    .addGroupIds(otherGroup).build()).getCoordinators(0).getErrorCode()).isEqualTo(NONE);
            assertThat(listedByAliceOnEveryNode()).containsExactly(appGroup, otherGroup);
        });

        // Remove the second ACL again, so partition 0 has logged enough to snapshot, then restart everything.
        DeleteAclsResponse removed = admin(cluster.leaderOf(0), adminToken).deleteAcls(DeleteAclsRequest.newBuilder()
                .addFilters(AclBindingFilter.newBuilder().setResourceName(otherGroup)).build());
        assertThat(removed.getErrorCode()).isEqualTo(NONE);
        assertThat(removed.getResults(0).getRemovedList()).containsExactly(describeOther.toBuilder().setHost("*")
                .build());
        for (int id = 1; id <= NODES; id++) {
            int node = id;
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.node(node).raft.status(0).snapshotIndex() > 0);
        }
        for (int id = 1; id <= NODES; id++) {
            cluster.stopNode(id);
        }
        for (int id = 1; id <= NODES; id++) {
            cluster.restartNode(id);
        }
        cluster.awaitAllLeadersReady();
        awaitEnforcedEverywhere(appGroup, otherGroup, true);
        assertThat(admin(cluster.node(1), adminToken).describeAcls(DescribeAclsRequest.getDefaultInstance())
                .getAclsList()).containsExactly(readPrefix("User:alice", "app-").toBuilder().setHost("*").build());
    }

    private GroupCoordinatorGrpc.GroupCoordinatorBlockingStub alice(CoordinatorTestCluster.Node node) {
        return groups(node, aliceToken);
    }

    /** On every running node: alice may find and list the app- group, not the other one. */
    private void awaitEnforcedEverywhere(String appGroup, String otherGroup, boolean appAllowed) {
        for (int id = 1; id <= NODES; id++) {
            CoordinatorTestCluster.Node node = cluster.node(id);
            if (node == null) {
                continue;
            }
            // Followers apply partition 0's committed entries in order, right after they learn the commit.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                var found = alice(node).findCoordinator(FindCoordinatorRequest.newBuilder().addGroupIds(appGroup)
                        .addGroupIds(otherGroup).build());
                assertThat(found.getCoordinators(0).getErrorCode())
                        .isEqualTo(appAllowed ? NONE : GROUP_AUTHORIZATION_FAILED);
                assertThat(found.getCoordinators(1).getErrorCode()).isEqualTo(GROUP_AUTHORIZATION_FAILED);
                // A node lists the partitions it leads (as Kafka's ListGroups), filtered for alice.
                ListGroupsResponse listed = alice(node).listGroups(ListGroupsRequest.getDefaultInstance());
                assertThat(listed.getErrorCode()).as(listed.getErrorMessage()).isEqualTo(NONE);
                boolean leadsApp = listed.getPartitionIndexesList().contains(node.raft.partitionFor(appGroup));
                assertThat(listed.getGroupsList()).extracting(ListGroupsResponse.Group::getGroupId)
                        .containsExactlyElementsOf(appAllowed && leadsApp ? List.of(appGroup) : List.of());
            });
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(listedByAliceOnEveryNode())
                .containsExactlyElementsOf(appAllowed ? List.of(appGroup) : List.of()));
        // Allowed means allowed for real: alice commits to the app- group on its leader.
        OffsetCommitResponse commit = alice(cluster.leaderOf(1)).offsetCommit(Requests.commit(appGroup, "", -1, "t", 0,
                43L));
        assertThat(commit.getTopics(0).getPartitions(0).getErrorCode())
                .isEqualTo(appAllowed ? NONE : GROUP_AUTHORIZATION_FAILED);
    }

    /**
     * What alice is listed by every running node together (each lists the partitions it leads),
     * sorted; fails unless every partition was read by some node.
     */
    private List<String> listedByAliceOnEveryNode() {
        java.util.TreeSet<String> groups = new java.util.TreeSet<>();
        java.util.Set<Integer> partitions = new java.util.TreeSet<>();
        for (int id = 1; id <= NODES; id++) {
            CoordinatorTestCluster.Node node = cluster.node(id);
            if (node != null) {
                ListGroupsResponse listed = alice(node).listGroups(ListGroupsRequest.getDefaultInstance());
                assertThat(listed.getErrorCode()).as(listed.getErrorMessage()).isEqualTo(NONE);
                listed.getGroupsList().forEach(g -> groups.add(g.getGroupId()));
                partitions.addAll(listed.getPartitionIndexesList());
            }
        }
        assertThat(partitions).as("partitions read").hasSize(PARTITIONS);
        return List.copyOf(groups);
    }

    static AclBinding readPrefix(String principal, String prefix) {
        return AclBinding.newBuilder().setPrincipal(principal)
                .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_GROUP).setResourceName(prefix)
                .setPatternType(AclPatternType.ACL_PATTERN_TYPE_PREFIXED)
                .setOperation(AclOperation.ACL_OPERATION_READ).setPermission(AclPermission.ACL_PERMISSION_ALLOW)
                .build();
    }
}
