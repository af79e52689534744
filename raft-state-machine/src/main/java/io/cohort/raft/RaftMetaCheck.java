package io.cohort.raft;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Refuses to start on a replica whose {@code raft-meta} (its current term and vote) is empty, with a
 * line that says what happened and what to do, instead of Ratis's bare "'term' not found".
 *
 * <p>Ratis 3.3 writes {@code raft-meta} through a temp file that it renames into place even when
 * the write failed, so a full disk can leave the file empty (docs/OPERATIONS.md, "Disk full and
 * other storage failures"). Guessing the lost term and vote could let the node vote twice in a
 * term, so the node is not repaired in place: it is recovered as a lost disk (empty data dir, the
 * peers send it a snapshot).
 */
final class RaftMetaCheck {
    private RaftMetaCheck() {
    }

    /** Throws if any replica under {@code <dataDir>/raft} has a {@code raft-meta} without a term. */
    static void throwIfAnyEmpty(Path dataDir) throws IOException {
        Path raftDir = dataDir.resolve("raft");
        if (!Files.isDirectory(raftDir)) {
            return;
        }
        try (DirectoryStream<Path> replicas = Files.newDirectoryStream(raftDir, Files::isDirectory)) {
            for (Path replica : replicas) {
                Path meta = replica.resolve("current").resolve("raft-meta");
                if (Files.isRegularFile(meta) && !hasTerm(meta)) {
                    throw new IOException(meta + " holds no term: Ratis lost this replica's term and vote when"
                            + " a write of it failed (typically a full disk). Recover this node as a lost disk:"
                            + " stop it, delete its data dir " + dataDir + ", start it again; it rejoins empty"
                            + " and gets a snapshot from its peers (docs/OPERATIONS.md, \"Disk full\")");
                }
            }
        }
    }

    private static boolean hasTerm(Path meta) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(meta)) {
            properties.load(in);
        }
        return properties.getProperty("term") != null;
    }
}
