package io.cohort.raft.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * The SHA-256 of some files' contents, to tell whether a rotation replaced them. Contents, not
 * modification times: a certificate rewritten within the file system's timestamp granularity, or
 * copied with its old timestamp preserved, still counts as changed.
 */
final class FileFingerprint {
    private FileFingerprint() {
    }

    /** The digest of the files' contents, or null if one cannot be read right now (mid-rotation). */
    static byte[] of(List<Path> files) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (Path file : files) {
                digest.update(Files.readAllBytes(file));
                digest.update((byte) 0);
            }
            return digest.digest();
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static boolean same(byte[] a, byte[] b) {
        return Arrays.equals(a, b);
    }
}
