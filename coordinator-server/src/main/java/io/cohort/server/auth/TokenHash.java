package io.cohort.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.InvalidKeySpecException;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Salted, slow hashes of bearer-token secrets, so a token file that leaks does not leak tokens:
 * {@code pbkdf2-sha256$<iterations>$<salt, base64>$<hash, base64>} (PBKDF2-HMAC-SHA256, 16-byte random
 * salt, 32-byte hash). Only the JDK is needed to create or check one.
 */
public final class TokenHash {
    public static final String SCHEME = "pbkdf2-sha256";
    /** The iteration count new hashes get; stored in each hash, so it can be raised later. */
    public static final int DEFAULT_ITERATIONS = 210_000;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BITS = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenHash() {
    }

    /** A new random secret: 32 bytes, base64url without padding (no '.', so it ends a token). */
    public static String newSecret() {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    public static String hash(String secret, int iterations) {
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        Base64.Encoder base64 = Base64.getEncoder().withoutPadding();
        return SCHEME + "$" + iterations + "$" + base64.encodeToString(salt) + "$"
                + base64.encodeToString(pbkdf2(secret, salt, iterations));
    }

    /** Whether {@code secret} matches {@code hash}; {@link IllegalArgumentException} for a malformed hash. */
    public static boolean matches(String secret, String hash) {
        String[] parts = hash.split("\\$");
        if (parts.length != 4 || !parts[0].equals(SCHEME)) {
            throw new IllegalArgumentException("expected " + SCHEME + "$<iterations>$<salt>$<hash>");
        }
        int iterations;
        byte[] salt;
        byte[] expected;
        try {
            iterations = Integer.parseInt(parts[1]);
            salt = Base64.getDecoder().decode(parts[2]);
            expected = Base64.getDecoder().decode(parts[3]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed " + SCHEME + " hash: " + e.getMessage());
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be positive");
        }
        return MessageDigest.isEqual(expected, pbkdf2(secret, salt, iterations));
    }

    private static byte[] pbkdf2(String secret, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(secret.toCharArray(), salt, iterations, HASH_BITS);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (NoSuchAlgorithmException | InvalidKeySpecException e) {
            throw new IllegalStateException("Every Java platform provides PBKDF2WithHmacSHA256", e);
        }
    }

    /** SHA-256 of a whole token, the key of the verified-token cache (never stored on disk). */
    static String fingerprint(String token) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
    }
}
