package io.cohort.client;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.PartitionStatus;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which nodes to ask for a partition's backup image (ClusterAdmin SaveSnapshot), in order. Shared
 * by {@code cohort snapshot save} and the chaos run's backups, so both ask as an operator's backup
 * does.
 */
public final class BackupSources {
    private BackupSources() {
    }

    /**
     * The partition's followers first, its leader last (from one ClusterStatus answer); every node
     * if the answer names no replica of it. The replica asked cuts its state and writes the image
     * beside its apply thread: seconds of CPU and a state's worth of disk for millions of offsets,
     * which on a follower compete with no commit's own work (the leader serves the commits; the other
     * followers make the quorum with it). (Until 2026-12-07 the image was a snapshot written on the
     * apply thread, so on the leader every commit waited.) A follower's read barrier waits until it
     * has applied what the leader committed; one that cannot (cut off, far behind) fails within the
     * call's time and the next candidate is asked.
     */
    public static List<Integer> candidates(ClusterStatusResponse status, int partitionIndex) {
        Set<Integer> nodes = new LinkedHashSet<>();
        for (PartitionStatus partition : status.getPartitionsList()) {
            if (partition.getPartitionIndex() == partitionIndex) {
                for (int replica : partition.getReplicaNodeIdsList()) {
                    if (replica != partition.getLeaderNodeId()) {
                        nodes.add(replica);
                    }
                }
                if (partition.getLeaderNodeId() >= 0) {
                    nodes.add(partition.getLeaderNodeId());
                }
            }
        }
        if (nodes.isEmpty()) {
            status.getNodesList().forEach(n -> nodes.add(n.getNodeId()));
        }
        return new ArrayList<>(nodes);
    }
}
