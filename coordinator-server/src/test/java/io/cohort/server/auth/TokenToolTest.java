package io.cohort.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenToolTest {
    @TempDir
    Path dir;

    @Test
    void testCreatedTokenIsAcceptedByTheLineItPrints() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = TokenTool.run(new String[] {"create", "alice"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(exit).isZero();
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        String token = lines[1].substring(2);
        assertThat(token).startsWith("alice.");
        assertThat(lines[2]).startsWith("User:alice:pbkdf2-sha256$").doesNotContain(token.substring(6));
        Path file = dir.resolve("tokens");
        Files.writeString(file, lines[2] + "\n");
        assertThat(TokenFile.load(file).principalOf(token)).isEqualTo("User:alice");
    }

    @Test
    void testHashReadsTheSecretFromStdin() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = TokenTool.run(new String[] {"hash", "bob"}, new ByteArrayInputStream("s3cret\n".getBytes()),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(exit).isZero();
        Path file = dir.resolve("tokens");
        Files.writeString(file, out.toString(StandardCharsets.UTF_8));
        assertThat(TokenFile.load(file).principalOf("bob.s3cret")).isEqualTo("User:bob");
        assertThat(TokenTool.run(new String[] {"create", "a.b"}, System.in, System.out,
                new PrintStream(new ByteArrayOutputStream()))).isEqualTo(2);
    }
}
