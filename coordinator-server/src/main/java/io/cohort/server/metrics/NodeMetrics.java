package io.cohort.server.metrics;

import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.PartitionStatus;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;

/**
 * Gauges read from the node at scrape time: the groups, members and committed offsets of the
 * partitions this node leads (so summing over nodes counts each group once), and the Raft state of
 * every local replica. Reads run beside apply; the shard's read methods allow that.
 */
public final class NodeMetrics {
    private NodeMetrics() {
    }

    public static void register(PrometheusRegistry registry, CohortRaftNode node) {
        Info.builder()
                .name("cohort_node_info")
                .help("This node's id, cluster and partition count")
                .labelNames("node_id", "cluster_id", "partitions")
                .register(registry)
                .setLabelValues(Integer.toString(node.nodeId()), node.spec().clusterId(),
                        Integer.toString(node.partitions()));
        registerGroupGauges(registry, node);
        registerRaftGauges(registry, node);
        registerRaftRefusals(registry, node);
    }

    private static void registerGroupGauges(PrometheusRegistry registry, CohortRaftNode node) {
        GaugeWithCallback.builder()
                .name("cohort_groups")
                .help("Groups in the partitions this node leads, by partition and state")
                .labelNames("partition", "state")
                .callback(cb -> {
                    for (int p = 0; p < node.partitions(); p++) {
                        if (!node.isLeader(p)) {
                            continue;
                        }
                        Map<ClassicGroupState, Long> byState = node.shard(p).groupsByState();
                        for (ClassicGroupState state : ClassicGroupState.values()) {
                            cb.call(byState.getOrDefault(state, 0L), Integer.toString(p), state.displayName());
                        }
                    }
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("cohort_group_members")
                .help("Members of the groups in the partitions this node leads, by partition")
                .labelNames("partition")
                .callback(cb -> {
                    for (int p = 0; p < node.partitions(); p++) {
                        if (node.isLeader(p)) {
                            cb.call(memberCount(node.shard(p)), Integer.toString(p));
                        }
                    }
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("cohort_committed_offsets")
                .help("Committed offsets (group, topic, partition) in the partitions this node leads, by partition")
                .labelNames("partition")
                .callback(cb -> {
                    for (int p = 0; p < node.partitions(); p++) {
                        if (node.isLeader(p)) {
                            cb.call(node.shard(p).offsetCount(), Integer.toString(p));
                        }
                    }
                })
                .register(registry);
    }

    private static long memberCount(GroupCoordinatorShard shard) {
        long members = 0;
        for (String groupId : shard.groupIds()) {
            ClassicGroup group = shard.group(groupId);
            if (group != null) {
                members += group.members().size();
            }
        }
        return members;
    }

    private static void registerRaftGauges(PrometheusRegistry registry, CohortRaftNode node) {
        GaugeWithCallback.builder()
                .name("cohort_partitions_led")
                .help("Partitions this node leads and is ready to serve")
                .callback(cb -> {
                    int led = 0;
                    // A node whose storage failed serves nothing, whatever Ratis still says it leads.
                    for (int p = 0; p < node.partitions() && node.storageFailure().isEmpty(); p++) {
                        led += node.isLeaderReady(p) ? 1 : 0;
                    }
                    cb.call(led);
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("cohort_storage_failed")
                .help("1 once a log or snapshot write of this node failed (disk full, I/O error): the node is "
                        + "stopping and exits with code 74; 0 otherwise")
                .callback(cb -> cb.call(node.storageFailure().isPresent() ? 1 : 0))
                .register(registry);
        GaugeWithCallback.builder()
                .name("cohort_partition_leader")
                .help("The node leading each partition as this node knows it; -1 if none is known")
                .labelNames("partition")
                .callback(cb -> {
                    for (int p = 0; p < node.partitions(); p++) {
                        cb.call(node.leaderOf(p), Integer.toString(p));
                    }
                })
                .register(registry);
        registerStatusGauge(registry, node, "cohort_raft_term", "Current Raft term of this node's replica",
                PartitionStatus::term);
        registerStatusGauge(registry, node, "cohort_raft_commit_index",
                "Highest log index this node's replica knows to be committed", PartitionStatus::commitIndex);
        registerStatusGauge(registry, node, "cohort_raft_applied_index",
                "Highest log index this node's replica has applied", PartitionStatus::appliedIndex);
        registerStatusGauge(registry, node, "cohort_raft_apply_lag_entries",
                "Committed entries this node's replica has not applied yet",
                s -> s.commitIndex() < 0 || s.appliedIndex() < 0 ? 0 : Math.max(0, s.commitIndex() - s.appliedIndex()));
        registerStatusGauge(registry, node, "cohort_raft_snapshot_index",
                "Log index of this node's latest snapshot; -1 if none", PartitionStatus::snapshotIndex);
        GaugeWithCallback.builder()
                .name("cohort_raft_follower_lag_entries")
                .help("On the leader: how many committed entries each follower is behind, by partition and follower")
                .labelNames("partition", "follower")
                .callback(cb -> {
                    for (int p = 0; p < node.partitions(); p++) {
                        if (!node.isLeader(p)) {
                            continue;
                        }
                        for (PartitionStatus.Replica replica : node.status(p).replicas()) {
                            cb.call(replica.lagEntries(), Integer.toString(p), Integer.toString(replica.nodeId()));
                        }
                    }
                })
                .register(registry);
        CounterWithCallback.builder()
                .name("cohort_batch_linger_expiries_total")
                .help("Log entries this node proposed after waiting out the whole batch linger (raft.batch.linger.max.us)"
                        + " for commands that did not come, by partition")
                .labelNames("partition")
                .callback(cb -> {
                    // The partitions this node holds a replica of.
                    for (int p : node.hostedPartitions()) {
                        cb.call(node.proposalCounts(p).lingerExpiries(), Integer.toString(p));
                    }
                })
                .register(registry);
    }

    /** What the Raft side refused or skipped: never expected in a healthy cluster, each worth an alert. */
    private static void registerRaftRefusals(PrometheusRegistry registry, CohortRaftNode node) {
        CounterWithCallback.builder()
                .name("cohort_raft_undecodable_entries_skipped_total")
                .help("Committed log entries this replica skipped because they do not decode as Cohort entries"
                        + " (every replica skips the same ones), since the node started, by partition")
                .labelNames("partition")
                .callback(cb -> {
                    // The partitions this node holds a replica of.
                    for (int p : node.hostedPartitions()) {
                        cb.call(node.stateMachine(p).undecodableEntriesSkipped(), Integer.toString(p));
                    }
                })
                .register(registry);
        CounterWithCallback.builder()
                .name("cohort_raft_port_refused_calls_total")
                .help("Calls refused on the Raft port since the node started: Ratis's client or admin services,"
                        + " or a caller whose address is not a configured peer's")
                .callback(cb -> cb.call(node.raftPort().refusedCalls()))
                .register(registry);
        CounterWithCallback.builder()
                .name("cohort_raft_tls_refused_certificates_total")
                .help("Certificates refused by the Raft port's mutual TLS since the node started (not signed by"
                        + " the peer CA, expired, or not for the peer's host); side=caller: presented to this node's"
                        + " Raft port, side=peer: presented by a peer this node called; 0 without TLS")
                .labelNames("side")
                .callback(cb -> {
                    cb.call(node.raftPort().refusedCallerCertificates(), "caller");
                    cb.call(node.raftPort().refusedPeerCertificates(), "peer");
                })
                .register(registry);
    }

    private static void registerStatusGauge(PrometheusRegistry registry, CohortRaftNode node, String name,
                                            String help, java.util.function.ToLongFunction<PartitionStatus> value) {
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames("partition")
                .callback(cb -> {
                    // The partitions this node holds a replica of.
                    for (int p : node.hostedPartitions()) {
                        cb.call(value.applyAsLong(node.status(p)), Integer.toString(p));
                    }
                })
                .register(registry);
    }
}
