package io.cohort.server;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.JoinInfoRequest;
import io.cohort.api.v1.JoinInfoResponse;
import io.cohort.api.v1.Member;
import io.cohort.raft.ClusterMetadata;
import io.cohort.raft.NodeAddress;
import io.cohort.server.tls.ServerTls;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code cluster.join=HOST:CLIENT_PORT} (or {@code --join}): a node being added to a running
 * cluster invents no cluster settings of its own. At its first start it asks that member
 * ({@code JoinInfo}) for the cluster id, the partition count, the replication factor, the racks,
 * the group settings and the current members, and starts with them (its replicas empty, waiting for
 * {@code cohort cluster add-node}); at later starts its own {@code cluster.properties} holds them,
 * and the seed is not asked again. Like etcd's {@code --initial-cluster-state existing}, without
 * having to copy the member list by hand.
 */
final class JoinBootstrap {
    static final String JOIN = "cluster.join";
    private static final long JOIN_INFO_TIMEOUT_MS = 15_000;

    private JoinBootstrap() {
    }

    /**
     * The settings layer a joining node starts with: the cluster's settings (from its data dir, or
     * the seed) and the peers (the members plus this node). {@code config} is the node's own
     * configuration, whose peers list at least this node.
     */
    static Map<String, String> clusterLayer(ServerConfig config, String seed) {
        NodeAddress self = config.self();
        Map<String, String> layer = new LinkedHashMap<>();
        try {
            Optional<Map<String, String>> stored = ClusterMetadata.storedSettings(config.dataDir());
            if (stored.isPresent()) {
                layer.putAll(stored.get());
                return layer;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JoinInfoResponse info = ask(config, seed);
        layer.putAll(info.getClusterSettingsMap());
        List<String> peers = new ArrayList<>();
        for (Member member : info.getMembersList()) {
            if (member.getNodeId() == self.nodeId()) {
                continue;
            }
            peers.add(new NodeAddress(member.getNodeId(), member.getHost(), member.getRaftPort(),
                    member.getClientPort()).toSpec());
        }
        peers.add(self.toSpec());
        layer.put(ServerConfig.PEERS, String.join(",", peers));
        return layer;
    }

    private static JoinInfoResponse ask(ServerConfig config, String seed) {
        int colon = seed.lastIndexOf(':');
        if (colon <= 0) {
            throw new ConfigException(JOIN + " '" + seed + "' is not host:clientPort");
        }
        int port;
        try {
            port = Integer.parseInt(seed.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(JOIN + " '" + seed + "' has a non-numeric port");
        }
        ServerTls tls;
        try {
            tls = config.clientTls().enabled() ? ServerTls.load(config.clientTls()) : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The seed's client port: NodeAddress wants a Raft port too, which this channel never uses.
        ManagedChannel channel = PeerChannels.of(tls).apply(new NodeAddress(0, seed.substring(0, colon), port, port));
        try {
            JoinInfoResponse info = ClusterAdminGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(JOIN_INFO_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .joinInfo(JoinInfoRequest.newBuilder().setNodeId(config.nodeId()).build());
            if (info.getMembersCount() == 0) {
                throw new IllegalStateException("the seed " + seed + " answered without members: "
                        + info.getErrorMessage());
            }
            return info;
        } catch (StatusRuntimeException e) {
            throw new IllegalStateException("node " + config.nodeId() + " cannot join through " + seed + ": "
                    + e.getStatus(), e);
        } finally {
            channel.shutdownNow();
        }
    }
}
