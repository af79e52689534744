package io.cohort.raft.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A few small files (PEM) whose contents are compared, not their modification times: a rotation
 * that rewrites a file within the same second, or swaps a symlink (a Kubernetes secret volume),
 * is still seen. Re-read at most once per check interval, so handshakes that ask often cost a
 * stat-free read of a few kilobytes a second at most.
 */
final class WatchedFiles {
    private final List<Path> files;
    private final long checkIntervalMs;
    private long checkedAtMs;
    private List<byte[]> contents;

    WatchedFiles(List<Path> files, long checkIntervalMs) throws IOException {
        this.files = List.copyOf(files);
        this.checkIntervalMs = checkIntervalMs;
        this.contents = read();
        this.checkedAtMs = System.currentTimeMillis();
    }

    List<Path> files() {
        return files;
    }

    /** The contents read at construction or at the last change. */
    synchronized List<byte[]> contents() {
        return contents;
    }

    /**
     * The new contents if the interval has passed since the last check and any file differs from
     * what was seen last, else null. A file that cannot be read now throws; the caller keeps what
     * it has.
     */
    synchronized List<byte[]> changed(long nowMs) throws IOException {
        if (nowMs - checkedAtMs < checkIntervalMs) {
            return null;
        }
        checkedAtMs = nowMs;
        List<byte[]> now = read();
        for (int i = 0; i < now.size(); i++) {
            if (!Arrays.equals(now.get(i), contents.get(i))) {
                contents = now;
                return now;
            }
        }
        return null;
    }

    private List<byte[]> read() throws IOException {
        List<byte[]> read = new ArrayList<>(files.size());
        for (Path file : files) {
            read.add(PemFiles.readBytes(file));
        }
        return read;
    }
}
