package io.cohort.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small fixed-size tmpfs mounted on one node's data dir, so a test can run that node out of
 * space ({@link #fill()}) and give the space back ({@link #free()}). Mounting needs root (CI runs
 * as root); without it {@link #mount} fails with a message saying so, never silently.
 */
public final class SmallDisk {
    /** The file that takes the free space; outside the node's own files so freeing is one delete. */
    static final String FILLER = "disk-filler";

    private final Path dir;
    private final long sizeBytes;
    private boolean mounted;

    private SmallDisk(Path dir, long sizeBytes) {
        this.dir = dir;
        this.sizeBytes = sizeBytes;
    }

    /** Mounts a tmpfs of {@code sizeBytes} on {@code dir} (created if missing). */
    public static SmallDisk mount(Path dir, long sizeBytes) {
        SmallDisk disk = new SmallDisk(dir.toAbsolutePath().normalize(), sizeBytes);
        try {
            Files.createDirectories(disk.dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + disk.dir, e);
        }
        String out = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + sizeBytes + ",mode=700", "tmpfs",
                disk.dir.toString()));
        if (out != null) {
            throw new IllegalStateException("could not mount a " + sizeBytes + "-byte tmpfs on " + disk.dir
                    + " (the disk-full tests and the chaos disk-full fault need root, as in CI): " + out);
        }
        disk.mounted = true;
        return disk;
    }

    public Path dir() {
        return dir;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    /**
     * Writes a filler file until the tmpfs has no space left.
     *
     * @return the bytes the filler took
     */
    public long fill() {
        Path filler = dir.resolve(FILLER);
        byte[] block = new byte[64 << 10];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
                written += block.length;
            }
        } catch (IOException full) {
            // "No space left on device": the point. Top up with single bytes to the last page.
        }
        try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
            while (true) {
                out.write(block, 0, 512);
                out.flush();
                written += 512;
            }
        } catch (IOException full) {
            return written;
        }
    }

    /** Deletes the filler: the node's files get their space back. */
    public void free() {
        try {
            Files.deleteIfExists(dir.resolve(FILLER));
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the filler in " + dir, e);
        }
    }

    /** Unmounts the tmpfs (its contents go with it); call once the node using it is stopped. */
    public synchronized void unmount() {
        if (!mounted) {
            return;
        }
        String out = run(List.of("umount", "-l", dir.toString()));
        if (out != null) {
            throw new IllegalStateException("could not unmount the tmpfs on " + dir + ": " + out);
        }
        mounted = false;
    }

    /** Runs a command; null if it succeeded, else its exit status and output. */
    private static String run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return String.join(" ", command) + " did not finish within 30 s";
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.exitValue() == 0 ? null
                    : String.join(" ", command) + " exited with " + process.exitValue() + ": " + output;
        } catch (IOException e) {
            return String.join(" ", command) + " could not run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return String.join(" ", command) + " interrupted";
        }
    }
}
