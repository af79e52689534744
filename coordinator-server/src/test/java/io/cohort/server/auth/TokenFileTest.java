package io.cohort.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenFileTest {
    /** Few iterations keep the test fast; the count is stored in each hash. */
    static final int TEST_ITERATIONS = 1_000;

    @TempDir
    Path dir;

    @Test
    void testTokenChecksAgainstItsHashedEntry() throws Exception {
        String secret = TokenHash.newSecret();
        String hash = TokenHash.hash(secret, TEST_ITERATIONS);
        Path file = write("# tokens\n", TokenFile.entry("User:alice", hash), "");
        TokenFile tokens = TokenFile.load(file);

        assertThat(Files.readString(file)).doesNotContain(secret);
        assertThat(tokens.principalOf("alice." + secret)).isEqualTo("User:alice");
        assertThat(tokens.principalOf("alice." + secret)).as("cached").isEqualTo("User:alice");
        assertThat(tokens.principalOf("alice.wrong")).isNull();
        assertThat(tokens.principalOf("bob." + secret)).isNull();
        assertThat(tokens.principalOf(secret)).isNull();
        assertThat(tokens.principalOf("alice.")).isNull();
    }

    @Test
    void testSameSecretHashesDifferentlyEachTime() {
        assertThat(TokenHash.hash("s", TEST_ITERATIONS)).isNotEqualTo(TokenHash.hash("s", TEST_ITERATIONS));
        assertThat(TokenHash.matches("s", TokenHash.hash("s", TEST_ITERATIONS))).isTrue();
    }

    @Test
    void testRevokedTokenStopsWorkingAfterReload() throws Exception {
        String secret = TokenHash.newSecret();
        Path file = write(TokenFile.entry("User:alice", TokenHash.hash(secret, TEST_ITERATIONS)));
        TokenFile tokens = TokenFile.load(file);
        assertThat(tokens.principalOf("alice." + secret)).isEqualTo("User:alice");

        Files.writeString(file, "# alice revoked\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> tokens.principalOf("alice." + secret) == null);
    }

    @Test
    void testMalformedLineIsRefusedWithItsNumber() throws Exception {
        Path file = write("User:alice:plaintext-secret");
        assertThatThrownBy(() -> TokenFile.load(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1");
    }

    private Path write(String... lines) throws Exception {
        Path file = dir.resolve("tokens");
        Files.write(file, List.of(lines));
        return file;
    }
}
