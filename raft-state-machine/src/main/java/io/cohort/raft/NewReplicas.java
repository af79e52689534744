package io.cohort.raft;

import io.cohort.raft.log.SnapshotCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas of a new cluster, written at a node's first start before Ratis runs: each partition
 * the node holds starts from the same empty snapshot at index 0, term 0, with the partition's
 * replicas as its configuration at that index ({@link ReplicaStorage}, as a restore from a backup
 * does). Every replica of a partition starts byte-for-byte equal, and Ratis numbers the first
 * entry 1.
 *
 * <p>Why not let Ratis create the group with an empty log: then each leader of the first seconds
 * writes its own entry at index 0, and Ratis 3.3.0 can mark a replica's index 0 committed
 * whatever entry it holds there. A follower takes {@code min(leaderCommit, 0)} as its commit index
 * from a heartbeat that names no previous entry ({@code ServerImplUtils.effectiveCommitIndex}),
 * and a leader sends such heartbeats to a follower whose next index is 0 and while data requests
 * are pending ({@code LogAppenderBase.newAppendEntriesRequest}). A replica that kept the index-0
 * entry of a leader deposed before replicating it was then stuck for good: every append from
 * index 0 answered "already committed", every one from 1 "previous entry not found" (seen in
 * ReplicaPlacementIT, OPERATIONS.md "a replica stuck at its first entry"). With index 0 in an
 * identical snapshot on every replica, such a heartbeat can only commit what every replica holds.
 */
final class NewReplicas {
    private static final Logger LOG = LoggerFactory.getLogger(NewReplicas.class);

    private NewReplicas() {
    }

    /**
     * Writes node {@code nodeId}'s replicas of a new cluster into {@code dataDir}. A replica dir
     * left by an earlier attempt (a crash before {@code cluster.properties} was written, so Ratis
     * never ran on it) is written again; one holding log segments is Raft state and is refused.
     *
     * @return the partitions written
     */
    static List<Integer> create(Path dataDir, int nodeId, ClusterSpec spec) throws IOException {
        List<Integer> written = new ArrayList<>();
        for (int p = 0; p < spec.partitions(); p++) {
            if (!spec.hosts(nodeId, p)) {
                continue;
            }
            int partition = p;
            Path groupDir = ReplicaStorage.groupDir(dataDir, spec, p);
            if (Files.exists(groupDir)) {
                throwIfHoldsLog(groupDir);
                Directories.deleteRecursively(groupDir);
            }
            ReplicaStorage.write(groupDir, spec, p, 0, 0,
                    out -> SnapshotCodec.write(out, partition, 0, 0, List.of()));
            written.add(p);
        }
        LOG.info("node {}: created its replicas of partitions {} of new cluster {} (empty snapshot at index 0)",
                nodeId, written, spec.clusterId());
        return written;
    }

    private static void throwIfHoldsLog(Path groupDir) throws IOException {
        Path current = groupDir.resolve("current");
        if (!Files.isDirectory(current)) {
            return;
        }
        try (Stream<Path> files = Files.list(current)) {
            if (files.anyMatch(f -> f.getFileName().toString().startsWith("log_"))) {
                throw new IOException("data dir has no cluster.properties but holds Raft log segments in " + current
                        + ": it is not a new node's data dir; restore its cluster.properties or point the node at an"
                        + " empty directory");
            }
        }
    }
}
