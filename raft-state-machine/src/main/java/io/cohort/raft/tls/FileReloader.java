package io.cohort.raft.tls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a value built from some files and rebuilds it when their contents change, looking at most
 * once per check interval. The check runs on the caller's thread (a TLS handshake), so nothing
 * needs a background thread or a stop call, and a new connection made after the interval sees the
 * new files. A rebuild that fails (a rotation half done, a key that does not match) keeps the
 * previous value, logs why, and is tried again at the next check.
 */
final class FileReloader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(FileReloader.class);

    private final List<Path> files;
    private final Function<Integer, T> build;
    private final long checkIntervalNanos;
    private final String what;
    private volatile T current;
    private volatile long nextCheckNanos;
    private byte[] fingerprint;
    private String lastFailure;
    private int generation;

    /**
     * Builds the value once; a failure here is thrown (a node must not start without its certificate).
     *
     * @param build builds the value from the files; its argument is the generation (1, 2, ...)
     */
    FileReloader(String what, List<Path> files, Duration checkInterval, Function<Integer, T> build) {
        this.what = what;
        this.files = List.copyOf(files);
        this.build = build;
        this.checkIntervalNanos = checkInterval.toNanos();
        this.fingerprint = FileFingerprint.of(this.files);
        this.generation = 1;
        this.current = build.apply(generation);
        this.nextCheckNanos = System.nanoTime() + checkIntervalNanos;
    }

    /** The value, rebuilt first if the check interval has passed and the files changed. */
    T get() {
        if (System.nanoTime() - nextCheckNanos >= 0) {
            maybeReload();
        }
        return current;
    }

    /** The value as it is, without looking at the files. */
    T current() {
        return current;
    }

    private synchronized void maybeReload() {
        long now = System.nanoTime();
        if (now - nextCheckNanos < 0) {
            return;
        }
        nextCheckNanos = now + checkIntervalNanos;
        byte[] seen = FileFingerprint.of(files);
        if (seen == null || FileFingerprint.same(seen, fingerprint)) {
            return;
        }
        try {
            T rebuilt = build.apply(generation + 1);
            generation++;
            current = rebuilt;
            fingerprint = seen;
            lastFailure = null;
            LOG.info("reloaded {} from {} (generation {})", what, files, generation);
        } catch (RuntimeException e) {
            String failure = e.getMessage();
            if (!failure.equals(lastFailure)) {
                LOG.warn("{} changed on disk but cannot be loaded, keeping the previous one: {}", what, failure);
                lastFailure = failure;
            }
        }
    }
}
