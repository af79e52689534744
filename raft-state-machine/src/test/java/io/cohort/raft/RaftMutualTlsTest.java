package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.shard.Result;
import io.cohort.raft.tls.ReloadingKeyManager;
import io.cohort.raft.tls.ReloadingTrustManager;
import io.cohort.raft.tls.TestCertificates;
import io.cohort.raft.tls.TestCertificates.Ca;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcSslContexts;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS on the Raft port with real Ratis servers, certificates made in the test: a cluster
 * whose peers hold certificates of the peer CA replicates and commits; a node whose certificate
 * comes from another CA, or that speaks no TLS, gets nothing replicated and disturbs no leader,
 * while the same node with a peer-CA certificate catches up; a peer-CA certificate for a host that
 * is no peer is refused; a rotated certificate is served to new connections without a restart.
 */
class RaftMutualTlsTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults().withInitialRebalanceDelayMs(100);
    private static final int PARTITIONS = 3;
    /**
     * Election timeouts for the tests that watch leaders while an outsider knocks: a second or two,
     * so that a test machine's load (starting the outsider's Raft server beside the others) does
     * not pass for a disruption.
     */
    private static final RaftTuning PATIENT = RaftTestCluster.TEST_TUNING.toBuilder().electionTimeouts(1_000, 2_000).build();
    /** Several of the outsider's election timeouts and many of the leaders' retries to reach it. */
    private static final Duration UNDISTURBED_FOR = Duration.ofSeconds(6);

    @TempDir
    Path tmp;

    private final Ca peerCa = TestCertificates.ca("cohort peer CA");
    private final AtomicInteger offsets = new AtomicInteger(100);

    private Path peerCaFile() {
        return peerCa.writeCertificate(tmp.resolve("tls").resolve("peer-ca.crt"));
    }

    /** A certificate of {@code ca} for the node's host, in files named after the node. */
    private RaftTlsSettings certificateOf(Ca ca, int nodeId, NodeAddress address, Path trustedCaFile) {
        TestCertificates.Leaf leaf = ca.issue("n" + nodeId, List.of(address.host(), "localhost"),
                tmp.resolve("tls"), ca.name().replace(' ', '-') + "-node-" + nodeId);
        return RaftTlsSettings.mutual(leaf.certFile(), leaf.keyFile(), trustedCaFile);
    }

    @Test
    void threeNodesWithMutualTlsReplicateAndCommit() throws Exception {
        Path caFile = peerCaFile();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp.resolve("cluster"), 3, PARTITIONS, GROUPS,
                (id, address) -> certificateOf(peerCa, id, address, caFile))) {
            commitToEveryPartition(cluster, 4);
            for (int p = 0; p < PARTITIONS; p++) {
                cluster.awaitReplicasConverged(p);
                assertThat(cluster.node(2).stateMachine(p).lastAppliedIndex()).isPositive();
            }
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.raftPort().tlsEnabled()).isTrue();
                assertThat(node.raftPort().refusedCallerCertificates()).isZero();
                assertThat(node.raftPort().refusedPeerCertificates()).isZero();
                assertThat(node.raftPort().refusedCalls()).isZero();
            }
            // The port speaks TLS only: a plaintext call from a peer's address never reaches the guard or Ratis.
            StatusRuntimeException plaintext = requestVote(cluster.spec.peer(0), null, caFile);
            assertThat(plaintext.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(cluster.node(0).raftPort().refusedCalls()).isZero();
        }
    }

    @Test
    void aNodeWhosePeerCertificateIsSignedByAnotherCaCannotJoinVoteOrAppend() throws Exception {
        Path caFile = peerCaFile();
        Ca rogueCa = TestCertificates.ca("rogue CA");
        RaftTestCluster cluster = new RaftTestCluster(tmp.resolve("cluster"), 3, PARTITIONS, GROUPS, PATIENT);
        try (cluster) {
            for (int id = 0; id < 2; id++) {
                cluster.useTls(id, certificateOf(peerCa, id, cluster.spec.peer(id), caFile));
            }
            // It trusts the peer CA, so it could talk to the others if they took its certificate.
            cluster.useTls(2, certificateOf(rogueCa, 2, cluster.spec.peer(2), caFile));
            assertOutsiderGetsNothingAndDisturbsNoLeader(cluster);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                for (int id = 0; id < 2; id++) {
                    // Its calls to them (votes: its client certificate) and theirs to it (appends: its server's).
                    assertThat(cluster.node(id).raftPort().refusedCallerCertificates()).as("node %d, callers", id)
                            .isPositive();
                    assertThat(cluster.node(id).raftPort().refusedPeerCertificates()).as("node %d, peers", id)
                            .isPositive();
                }
            });
            assertTheSameNodeJoinsWithAPeerCertificate(cluster, caFile);
        }
    }

    @Test
    void aNodeWithoutTlsCannotJoinVoteOrAppend() throws Exception {
        Path caFile = peerCaFile();
        RaftTestCluster cluster = new RaftTestCluster(tmp.resolve("cluster"), 3, PARTITIONS, GROUPS, PATIENT);
        try (cluster) {
            for (int id = 0; id < 2; id++) {
                cluster.useTls(id, certificateOf(peerCa, id, cluster.spec.peer(id), caFile));
            }
            cluster.useTls(2, RaftTlsSettings.DISABLED);
            assertOutsiderGetsNothingAndDisturbsNoLeader(cluster);
            assertTheSameNodeJoinsWithAPeerCertificate(cluster, caFile);
        }
    }

    /**
     * Starts nodes 0 and 1, then node 2 as configured; while clients keep committing, node 2 never
     * gets an entry or learns a leader, and no partition's leader or term changes.
     */
    private void assertOutsiderGetsNothingAndDisturbsNoLeader(RaftTestCluster cluster) throws Exception {
        cluster.startNode(0);
        cluster.startNode(1);
        // Leadership settled first: a partition handed back to its preferred node is the cluster's own doing.
        for (int p = 0; p < PARTITIONS; p++) {
            int preferred = cluster.spec.preferredLeader(p);
            int partition = p;
            if (preferred != 2) {
                await().atMost(Duration.ofSeconds(60)).until(() -> cluster.node(preferred).isLeaderReady(partition));
            }
        }
        Map<Integer, Long> terms = new HashMap<>();
        Map<Integer, Integer> leaders = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            CohortRaftNode leader = cluster.leaderOf(p);
            leaders.put(p, leader.nodeId());
            terms.put(p, leader.status(p).term());
        }
        commitToEveryPartition(cluster, 2);
        cluster.startNode(2);
        CohortRaftNode outsider = cluster.node(2);
        long[] appliedAtStart = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            appliedAtStart[p] = outsider.stateMachine(p).lastAppliedIndex();
        }
        await().during(UNDISTURBED_FOR).atMost(UNDISTURBED_FOR.multipliedBy(5)).untilAsserted(() -> {
            commitToEveryPartition(cluster, 1);
            for (int p = 0; p < PARTITIONS; p++) {
                CohortRaftNode leader = cluster.node(leaders.get(p));
                assertThat(leader.isLeaderReady(p)).as("node %d still leads p%d", leader.nodeId(), p).isTrue();
                assertThat(leader.status(p).term()).as("term of p%d", p).isEqualTo(terms.get(p));
                assertThat(outsider.stateMachine(p).lastAppliedIndex()).as("outsider's applied index of p%d", p)
                        .isEqualTo(appliedAtStart[p]);
                assertThat(outsider.leaderOf(p)).as("outsider's leader of p%d", p).isEqualTo(-1);
            }
        });
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(cluster.node(leaders.get(p)).status(p).commitIndex()).isGreaterThan(appliedAtStart[p]);
        }
    }

    /** Proof that the refusal was the certificate's doing: the same node and data with a peer certificate join. */
    private void assertTheSameNodeJoinsWithAPeerCertificate(RaftTestCluster cluster, Path caFile) throws Exception {
        cluster.stopNode(2);
        cluster.useTls(2, certificateOf(peerCa, 2, cluster.spec.peer(2), caFile));
        cluster.startNode(2);
        commitToEveryPartition(cluster, 1);
        for (int p = 0; p < PARTITIONS; p++) {
            cluster.awaitReplicasConverged(p);
        }
    }

    @Test
    void aPeerCaCertificateForAHostThatIsNoPeerIsRefused() throws Exception {
        Path caFile = peerCaFile();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp.resolve("cluster"), 3, 1, GROUPS,
                (id, address) -> certificateOf(peerCa, id, address, caFile))) {
            NodeAddress target = cluster.spec.peer(0);
            TestCertificates.Leaf elsewhere = peerCa.issue("not-a-peer", List.of("not-a-peer.example"),
                    tmp.resolve("tls"), "not-a-peer");
            StatusRuntimeException refused = requestVote(target, elsewhere, caFile);
            assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(refused.getStatus().getDescription()).contains("none of the configured peers' hosts");
            // The same call with a certificate for the peers' host passes the guard and gets Ratis's own answer.
            TestCertificates.Leaf peerHost = peerCa.issue("tester", List.of(target.host()), tmp.resolve("tls"),
                    "peer-host");
            StatusRuntimeException reachedRatis = requestVote(target, peerHost, caFile);
            assertThat(reachedRatis.getStatus().getCode()).isNotEqualTo(Status.Code.PERMISSION_DENIED)
                    .isNotEqualTo(Status.Code.UNAVAILABLE);
            assertThat(cluster.node(0).raftPort().refusedCalls()).isEqualTo(1);
        }
    }

    @Test
    void aRotatedCertificateIsServedToNewConnectionsWithoutRestart() throws Exception {
        Path caFile = peerCaFile();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp.resolve("cluster"), 3, 1, GROUPS,
                (id, address) -> certificateOf(peerCa, id, address, caFile))) {
            NodeAddress target = cluster.spec.peer(0);
            TestCertificates.Leaf client = peerCa.issue("tester", List.of(target.host()), tmp.resolve("tls"),
                    "tester");
            BigInteger before = serverCertificate(target, client, caFile).getSerialNumber();
            // Rewrites node 0's certificate and key files in place (each file replaced in one move).
            RaftTlsSettings rotated = certificateOf(peerCa, 0, target, caFile);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(serverCertificate(target, client, caFile).getSerialNumber()).isNotEqualTo(before)
                            .isEqualTo(TestCertificates.serialOf(rotated.certFile())));
            commitToEveryPartition(cluster, 1);
            cluster.awaitReplicasConverged(0);
        }
    }

    /** The certificate {@code target}'s Raft port presents to a new TLS connection. */
    private static X509Certificate serverCertificate(NodeAddress target, TestCertificates.Leaf client, Path caFile)
            throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {ReloadingKeyManager.open("test", client.certFile(), client.keyFile(), 0)},
                new TrustManager[] {ReloadingTrustManager.open("test", caFile, 0)}, null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(target.host(), target.raftPort())) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    /**
     * An empty RequestVote to {@code target}: plaintext if {@code client} is null, else over TLS with
     * {@code client}'s certificate, trusting the peer CA in {@code caFile}. Ratis fails it either way.
     */
    private static StatusRuntimeException requestVote(NodeAddress target, TestCertificates.Leaf client, Path caFile)
            throws IOException {
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(target.host(), target.raftPort());
        if (client == null) {
            builder.usePlaintext();
        } else {
            builder.sslContext(GrpcSslContexts.forClient()
                    .trustManager(caFile.toFile())
                    .keyManager(ReloadingKeyManager.open("test", client.certFile(), client.keyFile(), 0))
                    .build());
        }
        ManagedChannel channel = builder.build();
        try {
            RaftServerProtocolServiceGrpc.RaftServerProtocolServiceBlockingStub stub =
                    RaftServerProtocolServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
            return catchThrowableOfType(() -> stub.requestVote(RequestVoteRequestProto.getDefaultInstance()),
                    StatusRuntimeException.class);
        } finally {
            channel.shutdownNow();
        }
    }

    /** Commits {@code rounds} offsets to a group of every partition; each must be acknowledged. */
    private void commitToEveryPartition(RaftTestCluster cluster, int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            for (int p = 0; p < cluster.spec.partitions(); p++) {
                String group = groupOf(cluster, p);
                Result result = cluster.submitToLeader(p, Commands.simpleCommit(group, "t", 0,
                        offsets.incrementAndGet()));
                assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0)
                        .error()).isEqualTo(ErrorCode.NONE);
            }
        }
    }

    private static String groupOf(RaftTestCluster cluster, int partition) {
        for (int i = 0; ; i++) {
            if (cluster.spec.partitions() == 1 || io.cohort.core.PartitionFunction.partitionFor("g" + i,
                    cluster.spec.partitions()) == partition) {
                return "g" + i;
            }
        }
    }
}
