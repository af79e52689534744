package io.cohort.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The client depends on the public API only (grpc-api, gRPC, protobuf, slf4j): never on the server,
 * the Raft layer, the core or Ratis, which its tests have on the classpath to start real nodes.
 */
class ClientArchitectureTest {
    private static final JavaClasses CLIENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.cohort.client");

    private static final ArchRule API_ONLY = noClasses().that().resideInAPackage("io.cohort.client..")
            .should().dependOnClassesThat().resideInAnyPackage("io.cohort.server..", "io.cohort.raft..",
                    "io.cohort.core..", "org.apache.ratis..")
            .as("the client depends on the API only");

    @Test
    void testTheClientDependsOnTheApiOnly() {
        assertThat(CLIENT).isNotEmpty();
        API_ONLY.check(CLIENT);
    }

    @Test
    void testTheRuleCatchesATestClassThatUsesTheServer() {
        JavaClasses withTests = new ClassFileImporter().importClasses(LocalCluster.class);
        assertThat(API_ONLY.evaluate(withTests).hasViolation()).isTrue();
    }
}
