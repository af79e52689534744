package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.LocalCluster;
import io.cohort.server.ServerConfig;
import io.cohort.server.auth.TokenFile;
import io.cohort.server.auth.TokenHash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cohort acls add|remove|list} against a real node with the authorizer on (bearer-token principals). */
class AclsCliTest {
    @TempDir
    static Path root;

    private static LocalCluster cluster;
    private static String adminToken;
    private static String aliceToken;

    @BeforeAll
    static void startCluster() throws Exception {
        String adminSecret = TokenHash.newSecret();
        String aliceSecret = TokenHash.newSecret();
        adminToken = "admin." + adminSecret;
        aliceToken = "alice." + aliceSecret;
        Path tokens = root.resolve("tokens");
        Files.write(tokens, List.of(TokenFile.entry("User:admin", TokenHash.hash(adminSecret, 1_000)),
                TokenFile.entry("User:alice", TokenHash.hash(aliceSecret, 1_000))));
        cluster = LocalCluster.start(root.resolve("cluster"), 1, 2, Map.of(ServerConfig.AUTHORIZER_ENABLED, "true",
                ServerConfig.SUPER_USERS, "User:admin", ServerConfig.AUTH_TOKEN_FILE, tokens.toString()));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Cli cohort(String token, String... args) {
        String[] all = new String[args.length + 4];
        all[0] = "--bootstrap";
        all[1] = cluster.bootstrap();
        all[2] = "--token";
        all[3] = token;
        System.arraycopy(args, 0, all, 4, args.length);
        return Cli.run(all);
    }

    @Test
    void testAddListRemove() {
        Cli added = cohort(adminToken, "acls", "add", "--allow-principal", "User:alice", "--operation", "read",
                "--operation", "describe", "--group", "app-", "--resource-pattern-type", "prefixed");
        assertThat(added.exit()).as(added.toString()).isZero();
        assertThat(added.out()).isEqualTo("""
                PRINCIPAL   HOST  PERMISSION  OPERATION  RESOURCE_TYPE  PATTERN_TYPE  RESOURCE
                User:alice  *     ALLOW       READ       GROUP          PREFIXED      app-
                User:alice  *     ALLOW       DESCRIBE   GROUP          PREFIXED      app-
                """);
        Cli denyAdded = cohort(adminToken, "acls", "add", "--deny-principal", "User:*", "--operation", "alter",
                "--cluster");
        assertThat(denyAdded.exit()).as(denyAdded.toString()).isZero();

        Cli listed = cohort(adminToken, "--output", "json", "acls", "list", "--group", "app-orders",
                "--resource-pattern-type", "match");
        assertThat(listed.exit()).as(listed.toString()).isZero();
        assertThat(listed.out()).contains("\"acls\": [").contains("\"principal\": \"User:alice\"")
                .contains("\"operation\": \"READ\"").contains("\"pattern_type\": \"PREFIXED\"")
                .doesNotContain("CLUSTER");

        Cli all = cohort(adminToken, "acls", "list");
        assertThat(all.out().lines().count()).as(all.toString()).isEqualTo(4);

        Cli removed = cohort(adminToken, "acls", "remove", "--group", "app-", "--resource-pattern-type", "prefixed",
                "--operation", "describe");
        assertThat(removed.exit()).as(removed.toString()).isZero();
        assertThat(removed.out()).contains("DESCRIBE").doesNotContain("READ");
        assertThat(cohort(adminToken, "acls", "list", "--principal", "User:alice").out().lines().count()).isEqualTo(2);
    }

    @Test
    void testPrincipalWithoutClusterAlterIsRefused() {
        Cli refused = cohort(aliceToken, "acls", "add", "--allow-principal", "User:alice", "--operation", "all",
                "--group", "*");
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).contains("CLUSTER_AUTHORIZATION_FAILED");
        Cli listRefused = cohort(aliceToken, "acls", "list");
        assertThat(listRefused.exit()).isEqualTo(1);
        assertThat(listRefused.err()).contains("CLUSTER_AUTHORIZATION_FAILED");
    }

    /** FindCoordinator's GROUP_AUTHORIZATION_FAILED is the answer, not a retry until COORDINATOR_NOT_AVAILABLE. */
    @Test
    void testAGroupCallWithoutAnAclFailsWithGroupAuthorizationFailed() {
        Cli refused = cohort(aliceToken, "groups", "describe", "billing-1");

        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).contains("GROUP_AUTHORIZATION_FAILED").contains("User:alice")
                .doesNotContain("COORDINATOR_NOT_AVAILABLE");
    }

    @Test
    void testUsageErrors() {
        assertThat(cohort(adminToken, "acls", "add", "--operation", "read", "--group", "g").exit()).isEqualTo(2);
        assertThat(cohort(adminToken, "acls", "add", "--allow-principal", "User:a", "--operation", "write",
                "--group", "g").exit()).isEqualTo(2);
        assertThat(cohort(adminToken, "acls", "remove").exit()).isEqualTo(2);
    }
}
