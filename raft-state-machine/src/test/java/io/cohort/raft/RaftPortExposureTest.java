package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.shard.Result;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.io.grpc.Attributes;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an outsider reaches on the Raft port: a stock Ratis client (the same group ids and peer
 * addresses every node derives) can neither append an entry nor manage groups, and every offset
 * acknowledged before the attempts is still there, also after a restart of every node.
 */
class RaftPortExposureTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults().withInitialRebalanceDelayMs(100);
    private static final int PARTITIONS = 2;

    @TempDir
    Path tmp;

    /**
     * Writes and group management on one cluster: both attempts leave every offset acknowledged
     * before them in place, before and after a restart of every node (one cluster start and one
     * full restart instead of two of each).
     */
    @Test
    void aStockRatisClientCannotWriteToAPartitionNorRemoveOrListGroups() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, PARTITIONS, GROUPS)) {
            Map<String, Long> acknowledged = commitOffsets(cluster);
            for (int p = 0; p < PARTITIONS; p++) {
                try (RaftClient client = stockClient(cluster, p)) {
                    assertThatThrownBy(() -> client.io().send(Message.valueOf("garbage"))).as("partition %d", p)
                            .hasMessageContaining("PERMISSION_DENIED");
                }
            }
            for (int p = 0; p < PARTITIONS; p++) {
                RaftGroupId groupId = cluster.spec.raftGroupId(p);
                try (RaftClient client = stockClient(cluster, p)) {
                    for (NodeAddress peer : cluster.spec.peers()) {
                        RaftPeerId peerId = RaftPeerId.valueOf(peer.peerId());
                        assertThatThrownBy(() -> client.getGroupManagementApi(peerId)
                                .remove(groupId, true, false))
                                .as("remove on %s", peerId).hasMessageContaining("PERMISSION_DENIED");
                        assertThatThrownBy(() -> client.getGroupManagementApi(peerId).list())
                                .as("list on %s", peerId).hasMessageContaining("PERMISSION_DENIED");
                    }
                }
            }
            for (int node = 0; node < 3; node++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    Path groupDir = cluster.dataDir(node).resolve("raft")
                            .resolve(cluster.spec.raftGroupId(p).getUuid().toString());
                    assertThat(Files.isDirectory(groupDir)).as("%s", groupDir).isTrue();
                }
            }
            assertEveryOffsetReadBackBeforeAndAfterARestart(cluster, acknowledged);
        }
    }

    @Test
    void aRaftPeerCallFromAnAddressNoPeerHasIsRefused() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            NodeAddress target = cluster.spec.peer(0);
            // The peers are configured on 127.0.0.1; a process connecting from 127.0.0.2 is none of them.
            StatusRuntimeException fromOutsider = requestVote(target, new InetSocketAddress("127.0.0.2", 0));
            assertThat(fromOutsider.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(fromOutsider.getStatus().getDescription()).contains("not an address of a configured peer");
            // From a peer's address the same (malformed) call reaches Ratis, which answers it its own way.
            StatusRuntimeException fromPeerAddress = requestVote(target, new InetSocketAddress("127.0.0.1", 0));
            assertThat(fromPeerAddress.getStatus().getCode()).isNotEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(cluster.node(0).raftPort().refusedCalls()).isEqualTo(1);
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
        }
    }

    /** An empty RequestVote to {@code target}'s Raft port from {@code local}; Ratis fails it either way. */
    private static StatusRuntimeException requestVote(NodeAddress target, InetSocketAddress local) {
        ManagedChannel channel = NettyChannelBuilder.forAddress(target.host(), target.raftPort())
                .usePlaintext()
                .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
                    @Override
                    public SocketAddress createSocketAddress(SocketAddress remote, Attributes attributes) {
                        return local;
                    }
                })
                .build();
        try {
            RaftServerProtocolServiceGrpc.RaftServerProtocolServiceBlockingStub stub =
                    RaftServerProtocolServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
            return catchThrowableOfType(() -> stub.requestVote(RequestVoteRequestProto.getDefaultInstance()),
                    StatusRuntimeException.class);
        } finally {
            channel.shutdownNow();
        }
    }

    /** A Ratis client as anyone could build it from the cluster's peer list; it gives up at once. */
    private static RaftClient stockClient(RaftTestCluster cluster, int partition) {
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(5, TimeUnit.SECONDS));
        return RaftClient.newBuilder()
                .setProperties(properties)
                .setRaftGroup(cluster.node(0).raftGroup(partition))
                .setRetryPolicy(RetryPolicies.noRetry())
                .build();
    }

    private static Map<String, Long> commitOffsets(RaftTestCluster cluster) throws Exception {
        Map<String, Long> acknowledged = new HashMap<>();
        for (int i = 0; i < 12; i++) {
            String group = "g" + (i % 4);
            int partition = cluster.node(0).partitionFor(group);
            Result result = cluster.submitToLeader(partition, Commands.simpleCommit(group, "t", 0, 100 + i));
            assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0).error())
                    .isEqualTo(ErrorCode.NONE);
            acknowledged.put(group, 100L + i);
        }
        assertThat(acknowledged.keySet().stream().map(g -> cluster.node(0).partitionFor(g)).distinct().count())
                .as("the groups cover every partition").isEqualTo(PARTITIONS);
        return acknowledged;
    }

    private static void assertEveryOffsetReadBackBeforeAndAfterARestart(RaftTestCluster cluster,
                                                                       Map<String, Long> acknowledged) throws Exception {
        assertEveryOffsetReadBack(cluster, acknowledged);
        for (int i = 0; i < 3; i++) {
            cluster.stopNode(i);
        }
        for (int i = 0; i < 3; i++) {
            cluster.startNode(i);
        }
        cluster.awaitAllLeadersReady();
        assertEveryOffsetReadBack(cluster, acknowledged);
    }

    static void assertEveryOffsetReadBack(RaftTestCluster cluster, Map<String, Long> acknowledged) throws Exception {
        for (Map.Entry<String, Long> entry : acknowledged.entrySet()) {
            int partition = cluster.node(0).partitionFor(entry.getKey());
            OffsetFetchResponse response = cluster.leaderOf(partition).read(partition, true,
                            shard -> shard.fetchOffsets(entry.getKey(), Map.of("t", List.of(0))))
                    .get(20, TimeUnit.SECONDS);
            assertThat(response.topics().get(0).partitions().get(0).offset()).as(entry.getKey())
                    .isEqualTo(entry.getValue());
        }
    }

}
