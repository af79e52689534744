package io.cohort.server;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.NodeAddress;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node learns the leaders of the partitions it holds no replica of (replication factor below
 * the node count), so that FindCoordinator and the NOT_COORDINATOR hints work on every node: every
 * {@value #POLL_INTERVAL_MS} ms it asks each other node, on its client port, for the leaders of the
 * partitions that node holds (ClusterStatus with {@code routing_only}) and keeps, per partition, the
 * leader named at the highest term among reports younger than {@value #REPORT_MAX_AGE_MS} ms
 * (a dead node's last report ages out; -1 when no fresh report names one).
 *
 * <p>A client sent to a stale leader is answered NOT_COORDINATOR with that node's own hint, or
 * cannot connect, and finds the coordinator again: the same as after any failover. Not started
 * with one partition (every node holds partition 0); with more it polls only while this node lacks
 * some partition or holds one the placement does not give it (replica moves change both at
 * runtime), and asks the current members. A leader's report also names its group's committed
 * voters: a replica this node still holds although the cluster removed it (while the node was
 * down) is released ({@link CohortRaftNode#releaseIfRemoved}). Channels are {@link PeerChannels}: TLS with the node's own
 * certificate when the client ports speak TLS (with the authorizer on, the nodes' certificate
 * principals need DESCRIBE on the cluster, or to be super users).
 */
final class PartitionLeaderDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLeaderDirectory.class);
    static final long POLL_INTERVAL_MS = 250;
    static final long REPORT_MAX_AGE_MS = 2_000;
    private static final long CALL_DEADLINE_MS = 1_000;

    private final CohortRaftNode node;
    private final ScheduledExecutorService poller;
    private final PeerChannels peerChannels;
    /** Guarded by this. */
    private final Map<Integer, ManagedChannel> channels = new HashMap<>();
    /** Per partition, per reporting node: its last report. Guarded by this. */
    private final Map<Integer, Map<Integer, Report>> reports = new HashMap<>();

    private record Report(long term, int leader, long receivedAtMs) {
    }

    private PartitionLeaderDirectory(CohortRaftNode node, PeerChannels peerChannels) {
        this.node = node;
        this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "cohort-leader-directory-n" + node.nodeId());
            thread.setDaemon(true);
            return thread;
        });
        this.peerChannels = peerChannels;
    }

    /** The current members other than this node, each with its channel (made once per node id). */
    private synchronized Map<Integer, ManagedChannel> peers() {
        Map<Integer, ManagedChannel> current = new HashMap<>();
        for (NodeAddress peer : node.spec().peers()) {
            if (peer.nodeId() != node.nodeId()) {
                current.put(peer.nodeId(), channels.computeIfAbsent(peer.nodeId(), id -> peerChannels.apply(peer)));
            }
        }
        return current;
    }

    /** Starts polling with several partitions; null with one, which every node holds. */
    static PartitionLeaderDirectory startIfNeeded(CohortRaftNode node, PeerChannels peerChannels) {
        if (node.partitions() == 1) {
            return null;
        }
        PartitionLeaderDirectory directory = new PartitionLeaderDirectory(node, peerChannels);
        directory.poller.scheduleWithFixedDelay(directory::pollAll, 0, POLL_INTERVAL_MS, TimeUnit.MILLISECONDS);
        return directory;
    }

    private void pollAll() {
        try {
            if (node.hostedPartitions().size() == node.partitions() && !node.holdsUnplacedReplica()) {
                return;
            }
            for (Map.Entry<Integer, ManagedChannel> peer : peers().entrySet()) {
                int peerId = peer.getKey();
                ClusterAdminGrpc.newStub(peer.getValue()).withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS)
                        .clusterStatus(ClusterStatusRequest.newBuilder().setRoutingOnly(true).build(),
                                new StreamObserver<>() {
                                    @Override
                                    public void onNext(ClusterStatusResponse response) {
                                        record(peerId, response);
                                    }

                                    @Override
                                    public void onError(Throwable error) {
                                        LOG.debug("node {}: no routing answer from node {}: {}", node.nodeId(), peerId,
                                                error.toString());
                                    }

                                    @Override
                                    public void onCompleted() {
                                        // Recorded in onNext.
                                    }
                                });
            }
            publish(System.currentTimeMillis());
        } catch (RuntimeException e) {
            LOG.warn("node {}: leader directory poll failed", node.nodeId(), e);
        }
    }

    private synchronized void record(int peerId, ClusterStatusResponse response) {
        long nowMs = System.currentTimeMillis();
        for (PartitionStatus partition : response.getPartitionsList()) {
            int index = partition.getPartitionIndex();
            if (!partition.getHosted() || index < 0 || index >= node.partitions()) {
                continue;
            }
            if (node.hosts(index)) {
                // A replica the cluster removed while this node was down learns it from the leader.
                if (partition.getLeaderNodeId() == peerId && partition.getCommittedVoterNodeIdsCount() > 0) {
                    node.releaseIfRemoved(index, peerId, partition.getTerm(), partition.getCommittedVoterNodeIdsList());
                }
                continue;
            }
            reports.computeIfAbsent(index, p -> new HashMap<>())
                    .put(peerId, new Report(partition.getTerm(), partition.getLeaderNodeId(), nowMs));
        }
        publish(nowMs);
    }

    /** Per partition not held here: the leader named at the highest fresh term, else -1. */
    private synchronized void publish(long nowMs) {
        for (int p = 0; p < node.partitions(); p++) {
            if (node.hosts(p)) {
                continue;
            }
            int leader = -1;
            long bestTerm = -1;
            for (Report report : reports.getOrDefault(p, Map.of()).values()) {
                if (nowMs - report.receivedAtMs() > REPORT_MAX_AGE_MS || report.leader() < 0) {
                    continue;
                }
                if (report.term() > bestTerm) {
                    bestTerm = report.term();
                    leader = report.leader();
                }
            }
            node.learnRemoteLeader(p, leader);
        }
    }

    @Override
    public void close() {
        poller.shutdownNow();
        synchronized (this) {
            channels.values().forEach(ManagedChannel::shutdownNow);
        }
    }
}
