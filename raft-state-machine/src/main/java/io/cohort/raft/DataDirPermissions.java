package io.cohort.raft;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a node's data directory private to the user running the node: the directory and every
 * directory beneath it 700, every file 600. Java has no umask, so files Ratis creates later (log
 * segments, raft-meta, snapshot digests) get the process umask's mode; the data directory being 700
 * keeps them out of other users' reach whatever that mode is, and the launchers
 * (scripts/cluster.sh, the cluster tests) run the node under {@code umask 077} so they are 600 too.
 * Data written by an older version (644/755) is tightened at the next start.
 */
final class DataDirPermissions {
    private static final Logger LOG = LoggerFactory.getLogger(DataDirPermissions.class);
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private DataDirPermissions() {
    }

    /**
     * Creates {@code dataDir} (700) if missing, and sets 700 on it and every directory beneath it and
     * 600 on every file. Symbolic links are not followed. On a file system without POSIX
     * permissions it only creates the directory and says so once.
     */
    static void makePrivate(Path dataDir) throws IOException {
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        if (!posix) {
            Files.createDirectories(dataDir);
            LOG.warn("{}: this file system has no POSIX permissions; restrict access to the data directory"
                    + " by other means", dataDir);
            return;
        }
        if (!Files.isDirectory(dataDir)) {
            Path parent = dataDir.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createDirectory(dataDir, PosixFilePermissions.asFileAttribute(DIRECTORY));
        }
        Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                restrict(dir, DIRECTORY);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile()) {
                    restrict(file, FILE);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                // A file Ratis renamed or deleted while we walked: nothing left to protect.
                if (Files.notExists(file)) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }

    private static void restrict(Path path, Set<PosixFilePermission> wanted) throws IOException {
        try {
            if (!Files.getPosixFilePermissions(path).equals(wanted)) {
                Files.setPosixFilePermissions(path, wanted);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // Renamed or deleted by Ratis while we walked: nothing left to protect.
        }
    }
}
