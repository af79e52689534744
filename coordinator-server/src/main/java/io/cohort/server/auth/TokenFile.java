package io.cohort.server.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens a node accepts ({@code auth.token.file}). One entry per line,
 * {@code User:<name>:<TokenHash>}; blank lines and lines starting with {@code #} are ignored. A token
 * is {@code <name>.<secret>}: the name says which entry to check, so one slow hash is computed per
 * new token, never one per entry. A verified token is remembered (by its SHA-256, in memory) until the
 * file changes, so requests do not pay PBKDF2. The file is re-read when its modification time
 * changes (checked at most once a second): adding or revoking a token needs no restart.
 */
public final class TokenFile {
    private static final Logger LOG = LoggerFactory.getLogger(TokenFile.class);
    static final long RECHECK_INTERVAL_NANOS = 1_000_000_000L;

    private final Path path;
    private volatile Map<String, String> hashByPrincipal;
    private volatile FileTime loadedModified;
    private volatile long checkedAtNanos;
    private final ConcurrentHashMap<String, String> verified = new ConcurrentHashMap<>();

    private TokenFile(Path path) {
        this.path = path;
    }

    /** Loads {@code path}; {@link IllegalArgumentException} naming the bad line for a malformed file. */
    public static TokenFile load(Path path) {
        TokenFile file = new TokenFile(path);
        file.reload();
        return file;
    }

    /** The line of a token file for {@code principal} ("User:alice") and {@code hash}. */
    public static String entry(String principal, String hash) {
        return principal + ":" + hash;
    }

    /** The principal of a valid token, or null (unknown name, wrong secret, malformed token). */
    public String principalOf(String token) {
        maybeReload();
        String fingerprint = TokenHash.fingerprint(token);
        String known = verified.get(fingerprint);
        if (known != null) {
            return known;
        }
        int dot = token.lastIndexOf('.');
        if (dot <= 0 || dot == token.length() - 1) {
            return null;
        }
        String principal = "User:" + token.substring(0, dot);
        String hash = hashByPrincipal.get(principal);
        if (hash == null || !TokenHash.matches(token.substring(dot + 1), hash)) {
            return null;
        }
        verified.put(fingerprint, principal);
        return principal;
    }

    private void maybeReload() {
        long now = System.nanoTime();
        if (now - checkedAtNanos < RECHECK_INTERVAL_NANOS) {
            return;
        }
        checkedAtNanos = now;
        try {
            if (!Files.getLastModifiedTime(path).equals(loadedModified)) {
                reload();
                LOG.info("reloaded the token file {} ({} tokens)", path, hashByPrincipal.size());
            }
        } catch (IOException | RuntimeException e) {
            // Keep serving with the tokens already loaded; a half-written file must not lock everyone out.
            LOG.warn("cannot reload the token file {}; keeping the {} tokens loaded before: {}", path,
                    hashByPrincipal.size(), e.getMessage());
        }
    }

    private synchronized void reload() {
        List<String> lines;
        FileTime modified;
        try {
            modified = Files.getLastModifiedTime(path);
            lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the token file " + path + ": " + e.getMessage(), e);
        }
        Map<String, String> entries = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int split = line.lastIndexOf(':');
            String principal = split < 0 ? "" : line.substring(0, split);
            String hash = split < 0 ? "" : line.substring(split + 1);
            if (!principal.startsWith("User:") || principal.length() == 5 || !hash.startsWith(TokenHash.SCHEME + "$")) {
                throw new IllegalArgumentException("token file " + path + " line " + (i + 1)
                        + ": expected User:<name>:" + TokenHash.SCHEME + "$<iterations>$<salt>$<hash>");
            }
            entries.put(principal, hash);
        }
        hashByPrincipal = Map.copyOf(entries);
        loadedModified = modified;
        verified.clear();
    }
}
