package io.cohort.raft;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File-tree chores shared by the restore and the node's throwaway directories. */
public final class Directories {
    private Directories() {
    }

    /** Creates {@code dir} private to this user (700), as a node's data dir ({@link DataDirPermissions}). */
    public static void createPrivate(Path dir) throws IOException {
        DataDirPermissions.makePrivate(dir);
    }

    /** Deletes {@code dir} and everything under it; nothing if it does not exist. */
    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
