package io.cohort.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The Raft group directories Ratis keeps in a node's data dir, one per replica, named by group id. */
final class RaftGroupDirs {
    private RaftGroupDirs() {
    }

    /** ClusterSpec.raftGroupId for the harness's default cluster id, which Ratis names the group's dir by. */
    static String raftGroupUuid(int partition) {
        String name = "cohort/cohort-it/offsets-partition/" + partition;
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** The Raft group directories under the node's data dir (one per replica it holds). */
    static Set<String> raftGroupDirs(Path dataDir) {
        try (Stream<Path> dirs = Files.list(dataDir.resolve("raft"))) {
            return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
