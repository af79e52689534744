package io.cohort.server.auth;

import java.nio.file.Path;
import java.util.Set;

/**
 * A node's authentication and authorization settings (docs/SECURITY.md).
 *
 * @param authorizerEnabled    {@code authorizer.enabled}: check ACLs on every RPC (default false: every
 *                             principal may do everything, as before)
 * @param superUsers           {@code super.users}: principals allowed everything, e.g. {@code User:admin}
 * @param tokenFile            {@code auth.token.file}: bearer tokens (hashed), or null for none
 * @param principalMappingRules {@code auth.principal.mapping.rules}: how a client certificate's subject
 *                             DN becomes a user name (Kafka's ssl.principal.mapping.rules)
 */
public record AuthConfig(boolean authorizerEnabled, Set<String> superUsers, Path tokenFile,
                         PrincipalMappingRules principalMappingRules) {

    public static final AuthConfig DISABLED = new AuthConfig(false, Set.of(), null, PrincipalMappingRules.DEFAULT);

    public AuthConfig {
        superUsers = Set.copyOf(superUsers);
    }
}
