package io.cohort.raft;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageMetadata;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.util.SizeInBytes;

/**
 * Writes the Ratis storage of one replica as it would be right after loading a snapshot and
 * purging its log, offline (no Raft server runs on it): a restore from a backup
 * ({@link BackupRestore}) and the replicas of a new cluster ({@link NewReplicas}).
 * <ul>
 *   <li>{@code raft/<group>/sm/snapshot.<term>_<index>} (+ {@code .md5}): the snapshot bytes,
 *       which {@link PartitionStateMachine} loads at start;</li>
 *   <li>{@code raft/<group>/current/raft-meta}: the snapshot's term, no vote, so the first election
 *       is in a later term than every entry the state holds;</li>
 *   <li>{@code raft/<group>/current/raft-meta.conf}: the Raft configuration (the partition's
 *       replicas), as Ratis writes it when a configuration entry is applied, at the snapshot's
 *       index: a group found on disk takes its peers from this file, not from the node's settings.</li>
 * </ul>
 * The log is empty; Ratis continues it at the snapshot index + 1.
 */
final class ReplicaStorage {
    /** Writes the snapshot file's bytes. */
    @FunctionalInterface
    interface SnapshotWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    private ReplicaStorage() {
    }

    /** The directory Ratis keeps {@code partition}'s replica in, under a node's data dir. */
    static Path groupDir(Path dataDir, ClusterSpec spec, int partition) {
        return dataDir.resolve("raft").resolve(spec.raftGroupId(partition).getUuid().toString());
    }

    /**
     * Writes {@code partition}'s replica into {@code groupDir} (created if missing): the snapshot at
     * {@code term}/{@code index} from {@code snapshot}, fsynced, and the configuration of the
     * partition's replicas in {@code spec} at that index.
     */
    static void write(Path groupDir, ClusterSpec spec, int partition, long term, long index, SnapshotWriter snapshot)
            throws IOException {
        Files.createDirectories(groupDir);
        RaftStorage storage = RaftStorage.newBuilder().setDirectory(groupDir.toFile())
                .setOption(RaftStorage.StartupOption.FORMAT).setStorageFreeSpaceMin(SizeInBytes.valueOf(0)).build();
        try {
            storage.initialize();
            storage.getMetadataFile().persist(RaftStorageMetadata.valueOf(term, null));
            Path conf = groupDir.resolve("current").resolve("raft-meta.conf");
            try (OutputStream out = Files.newOutputStream(conf)) {
                configurationEntry(spec, partition, term, index).writeTo(out);
            }
            SimpleStateMachineStorage smStorage = new SimpleStateMachineStorage();
            smStorage.init(storage);
            Path snapshotFile = smStorage.getSnapshotFile(term, index).toPath();
            Files.createDirectories(snapshotFile.getParent());
            try (FileOutputStream file = new FileOutputStream(snapshotFile.toFile());
                 OutputStream out = new BufferedOutputStream(file, 1 << 16)) {
                snapshot.writeTo(out);
                out.flush();
                // Synced before the replica is used: what the caller reports written is on disk.
                file.getFD().sync();
            }
            MD5FileUtil.computeAndSaveMd5ForFile(snapshotFile.toFile());
        } finally {
            storage.close();
        }
        // Ratis's storage lock file is no state; a started node creates its own.
        Files.deleteIfExists(groupDir.resolve("in_use.lock"));
    }

    /**
     * Whether the replica in {@code groupDir} holds no data of a group node {@code nodeId} was ever
     * listed in: no log segment, no snapshot past index 0, and no configuration that lists the node.
     * A replica created empty to wait for its leader (a joining node's, or one created for a replica
     * move) that was never added: its node killed while creating it (a half-written dir), or Ratis
     * closed it after it had stored its leader's configuration without it. It can be deleted and
     * created again. A new cluster's replica (an empty snapshot at 0 and a configuration listing
     * the node) is kept.
     */
    static boolean holdsNoData(Path groupDir, int nodeId) throws IOException {
        Path current = groupDir.resolve("current");
        if (Files.isDirectory(current)) {
            try (java.util.stream.Stream<Path> files = Files.list(current)) {
                if (files.anyMatch(f -> f.getFileName().toString().startsWith("log_"))) {
                    return false;
                }
            }
        }
        Path sm = groupDir.resolve("sm");
        if (Files.isDirectory(sm)) {
            try (java.util.stream.Stream<Path> files = Files.list(sm)) {
                if (files.map(f -> f.getFileName().toString())
                        .anyMatch(name -> name.startsWith("snapshot.") && !name.matches("snapshot\\.\\d+_0(\\.md5)?"))) {
                    return false;
                }
            }
        }
        Path conf = current.resolve("raft-meta.conf");
        if (!Files.exists(conf)) {
            return true;
        }
        try (java.io.InputStream in = Files.newInputStream(conf)) {
            LogEntryProto entry = LogEntryProto.parseFrom(in);
            String self = "n" + nodeId;
            return entry.getConfigurationEntry().getPeersList().stream()
                    .noneMatch(peer -> peer.getId().toStringUtf8().equals(self))
                    && entry.getConfigurationEntry().getListenersList().stream()
                    .noneMatch(peer -> peer.getId().toStringUtf8().equals(self));
        } catch (IOException | RuntimeException e) {
            return false; // unreadable: keep it, the node's start reports it
        }
    }

    /** The entry Ratis stores in raft-meta.conf: the group's peers, as of the snapshot's index. */
    static LogEntryProto configurationEntry(ClusterSpec spec, int partition, long term, long index) {
        RaftConfigurationProto.Builder conf = RaftConfigurationProto.newBuilder();
        spec.raftPeers(partition).forEach(peer -> conf.addPeers(peer.getRaftPeerProto()));
        return LogEntryProto.newBuilder().setTerm(term).setIndex(index).setConfigurationEntry(conf).build();
    }
}
