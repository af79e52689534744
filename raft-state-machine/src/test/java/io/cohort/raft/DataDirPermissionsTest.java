package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.GroupConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's data is private to its user: the data directory and every directory in it 700, its
 * files 600, also data left 755/644 by an earlier version. (This JVM runs under the build's
 * umask, typically 022, so what Ratis creates after the start follows it; the 700 directories keep
 * those files out of reach, and the launchers run nodes under umask 077.)
 */
class DataDirPermissionsTest {
    @TempDir
    Path tmp;

    @Test
    void aNodesDataDirectoryAndItsFilesArePrivate() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 1, 2, GroupConfig.defaults())) {
            cluster.submitToLeader(0, Commands.simpleCommit("g", "t", 0, 1));
            Path dataDir = cluster.dataDir(0);
            assertThat(mode(dataDir)).isEqualTo("rwx------");
            assertThat(mode(dataDir.resolve(ClusterMetadata.FILE_NAME))).isEqualTo("rw-------");
            assertEveryDirectoryIsPrivate(dataDir);

            // Data as an earlier version left it: readable by everyone.
            cluster.stopNode(0);
            Map<Path, Object> filesBefore = new HashMap<>();
            for (Path path : walk(dataDir)) {
                boolean directory = Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(directory ? "rwxr-xr-x" : "rw-r--r--"));
                if (!directory) {
                    filesBefore.put(path, fileKey(path));
                }
            }
            cluster.startNode(0);
            cluster.awaitAllLeadersReady();

            assertThat(mode(dataDir)).isEqualTo("rwx------");
            assertEveryDirectoryIsPrivate(dataDir);
            int tightened = 0;
            for (Path path : walk(dataDir)) {
                if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) && fileKey(path).equals(filesBefore.get(path))) {
                    // The same file as before the restart (Ratis rewrites some by rename: those are new files).
                    assertThat(mode(path)).as("%s", path).isEqualTo("rw-------");
                    tightened++;
                }
            }
            assertThat(tightened).as("files kept across the restart").isGreaterThanOrEqualTo(1);
        }
    }

    private static void assertEveryDirectoryIsPrivate(Path dataDir) throws IOException {
        for (Path path : walk(dataDir)) {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                assertThat(mode(path)).as("%s", path).isEqualTo("rwx------");
            }
        }
    }

    private static List<Path> walk(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.toList();
        }
    }

    private static Object fileKey(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }
}
