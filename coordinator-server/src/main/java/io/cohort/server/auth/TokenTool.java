package io.cohort.server.auth;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * {@code cohort-server tokens create NAME} / {@code cohort-server tokens hash NAME < secret}: makes
 * bearer tokens and the lines of the token file ({@code auth.token.file}) that accept them. The file
 * holds only salted PBKDF2 hashes; the token itself is printed once and never stored by Cohort.
 */
public final class TokenTool {
    /** Token names: the characters of a bearer token (RFC 6750 token68), no '.' (it ends the name). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_~+/-]{1,128}");

    private TokenTool() {
    }

    /** Runs {@code args} (after "tokens"); returns the exit code (0, or 2 for a usage error). */
    public static int run(String[] args, java.io.InputStream in, PrintStream out, PrintStream err) {
        if (args.length != 2 || !(args[0].equals("create") || args[0].equals("hash"))) {
            err.println("usage: cohort-server tokens create NAME     (prints a new token and its token-file line)");
            err.println("       cohort-server tokens hash NAME < SECRET (prints the token-file line for NAME.SECRET)");
            return 2;
        }
        String name = args[1];
        if (!NAME.matcher(name).matches()) {
            err.println("cohort-server tokens: a name is 1 to 128 of A-Z a-z 0-9 _ ~ + / -, got '" + name + "'");
            return 2;
        }
        String secret;
        if (args[0].equals("create")) {
            secret = TokenHash.newSecret();
        } else {
            try {
                secret = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                err.println("cohort-server tokens: cannot read the secret: " + e.getMessage());
                return 2;
            }
            if (secret == null || secret.isBlank() || secret.contains(".")) {
                err.println("cohort-server tokens: expected the secret (no '.') on stdin");
                return 2;
            }
            secret = secret.trim();
        }
        String line = TokenFile.entry("User:" + name, TokenHash.hash(secret, TokenHash.DEFAULT_ITERATIONS));
        if (args[0].equals("create")) {
            out.println("# token for User:" + name + " (give it to the client, e.g. COHORT_TOKEN; shown only now):");
            out.println("# " + name + "." + secret);
        }
        out.println(line);
        return 0;
    }
}
