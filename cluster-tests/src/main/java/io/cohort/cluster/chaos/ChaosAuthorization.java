package io.cohort.cluster.chaos;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclOperation;
import io.cohort.api.v1.AclPatternType;
import io.cohort.api.v1.AclPermission;
import io.cohort.api.v1.AclResourceType;
import io.cohort.client.CohortClient;
import io.cohort.cluster.ProcessCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The authorizer in a chaos run: every node checks ACLs ({@code authorizer.enabled=true}) with one
 * super user, {@code User:chaos-admin}, whose bearer token the packaged jar's {@code tokens create}
 * makes. Right after the start the super user grants {@code User:*} ALL on every group and on the
 * cluster; the workload, the nemesis and the checkers then call as ANONYMOUS, so every one of their
 * calls is allowed by those ACLs only. The ACLs are replicated state of partition 0 (its log and
 * snapshots): a fault that lost or misapplied them would show as GROUP_AUTHORIZATION_FAILED or
 * CLUSTER_AUTHORIZATION_FAILED in the workload and the checkers.
 */
final class ChaosAuthorization {
    static final String SUPER_USER = "chaos-admin";

    private final String adminToken;
    private final Path tokenFile;

    private ChaosAuthorization(String adminToken, Path tokenFile) {
        this.adminToken = adminToken;
        this.tokenFile = tokenFile;
    }

    /** Makes the super user's token with the server jar and writes the token file into {@code runDir}. */
    static ChaosAuthorization create(Path runDir) {
        String jar = System.getProperty(ProcessCluster.SERVER_JAR_PROPERTY,
                Path.of("..", "coordinator-server", "target", "cohort-server.jar").toAbsolutePath().normalize()
                        .toString());
        try {
            Process process = new ProcessBuilder(ProcessCluster.java(),
                    "-Xmx64m", "-jar", jar, "tokens", "create", SUPER_USER)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                    .toList();
            int exit = process.waitFor();
            // Three lines: a comment, "# <token>", and the token file line.
            if (exit != 0 || lines.size() != 3 || !lines.get(1).startsWith("# ")) {
                throw new IllegalStateException("'tokens create " + SUPER_USER + "' exited " + exit + " with " + lines);
            }
            Files.createDirectories(runDir);
            Path tokenFile = runDir.resolve("tokens");
            Files.write(tokenFile, List.of(lines.get(2)));
            return new ChaosAuthorization(lines.get(1).substring(2), tokenFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted making the chaos token", e);
        }
    }

    /** The node settings: the authorizer on, the super user, the token file. */
    Map<String, String> nodeSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("authorizer.enabled", "true");
        settings.put("super.users", "User:" + SUPER_USER);
        settings.put("auth.token.file", tokenFile.toString());
        return settings;
    }

    /** As the super user: ALL on every group and on the cluster for every principal (ANONYMOUS included). */
    void grantEveryone(String bootstrap, Duration timeout) {
        try (CohortClient admin = CohortClient.builder().bootstrap(bootstrap).bearerToken(adminToken)
                .apiTimeout(timeout).build()) {
            admin.createAcls(List.of(
                    allow(AclResourceType.ACL_RESOURCE_TYPE_GROUP, "*"),
                    allow(AclResourceType.ACL_RESOURCE_TYPE_CLUSTER, "cohort-cluster")));
        }
    }

    private static AclBinding allow(AclResourceType type, String name) {
        return AclBinding.newBuilder().setPrincipal("User:*").setHost("*").setResourceType(type).setResourceName(name)
                .setPatternType(AclPatternType.ACL_PATTERN_TYPE_LITERAL).setOperation(AclOperation.ACL_OPERATION_ALL)
                .setPermission(AclPermission.ACL_PERMISSION_ALLOW).build();
    }
}
