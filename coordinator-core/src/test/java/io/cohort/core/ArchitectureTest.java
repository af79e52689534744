package io.cohort.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.cohort.core.shard.GroupCoordinatorShard;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.Timer;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keeps coordinator-core pure (style rule 15, shared/ARCHITECTURE.md): no Ratis, gRPC or protobuf,
 * no threads, no wall clock and no randomness. Replicas must compute the same records from the same
 * log, so time and randomness only ever arrive as arguments.
 *
 * <p>Only main classes are imported; the fixtures below (test classes that break each rule) are
 * evaluated separately, so these rules cannot pass vacuously.
 */
class ArchitectureTest {
    private static final String CORE = "io.cohort.core..";

    private static final Map<Class<?>, Set<String>> WALL_CLOCK_METHODS = Map.of(
            System.class, Set.of("currentTimeMillis", "nanoTime"),
            Instant.class, Set.of("now"),
            LocalDateTime.class, Set.of("now"),
            LocalDate.class, Set.of("now"),
            LocalTime.class, Set.of("now"),
            ZonedDateTime.class, Set.of("now"),
            OffsetDateTime.class, Set.of("now"),
            Clock.class, Set.of("systemUTC", "systemDefaultZone", "system"));

    private static final Map<Class<?>, Set<String>> RANDOM_METHODS = Map.of(
            UUID.class, Set.of("randomUUID"),
            ThreadLocalRandom.class, Set.of("current"),
            Math.class, Set.of("random"));

    static final ArchRule NO_INFRASTRUCTURE = noDependencyOn("org.apache.ratis..", "io.grpc..", "com.google.protobuf..")
            .because("core is the pure domain; adapters own Ratis, gRPC and protobuf");

    static final ArchRule NO_THREADS = noClasses().that().resideInAPackage(CORE)
            .should().dependOnClassesThat().belongToAnyOf(Thread.class, ThreadPoolExecutor.class, Executors.class,
                    ExecutorService.class, ScheduledExecutorService.class, ForkJoinPool.class, Timer.class)
            .because("one Raft apply thread owns a shard; core starts no threads");

    static final ArchRule NO_WALL_CLOCK = noClasses().that().resideInAPackage(CORE)
            .should().callMethodWhere(methodIn("a wall-clock read", WALL_CLOCK_METHODS))
            .because("time is the command's leader time, passed as an argument");

    static final ArchRule NO_RANDOMNESS = noClasses().that().resideInAPackage(CORE)
            .should().callMethodWhere(methodIn("a source of randomness", RANDOM_METHODS))
            .orShould().callConstructorWhere(DescribedPredicate.describe(
                    "a constructor of java.util.Random (SecureRandom included) or SplittableRandom",
                    (JavaConstructorCall call) -> call.getTargetOwner().isAssignableTo(Random.class)
                            || call.getTargetOwner().isEquivalentTo(SplittableRandom.class)))
            .because("every replica must derive the same member ids and records");

    private static JavaClasses mainClasses;
    /** The violating fixtures, imported once (each import also resolves JDK classes, which is slow). */
    private static JavaClasses fixtures;

    @BeforeAll
    static void importClasses() {
        mainClasses = new ClassFileImporter()
                .withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.cohort.core");
        fixtures = new ClassFileImporter().importClasses(violations()
                .map(arguments -> (Class<?>) arguments.get()[0]).toArray(Class<?>[]::new));
    }

    private static ArchRule noDependencyOn(String... packages) {
        return noClasses().that().resideInAPackage(CORE).should().dependOnClassesThat().resideInAnyPackage(packages);
    }

    private static DescribedPredicate<JavaMethodCall> methodIn(String description, Map<Class<?>, Set<String>> methods) {
        return DescribedPredicate.describe(description + " " + methods, (JavaMethodCall call) -> methods.entrySet()
                .stream()
                .anyMatch(e -> call.getTargetOwner().isEquivalentTo(e.getKey()) && e.getValue().contains(call.getName())));
    }

    @Test
    @DisplayName("the import holds core's main classes and no test classes")
    void testImportIsMainClassesOnly() {
        assertThat(mainClasses.contain(GroupCoordinatorShard.class)).isTrue();
        assertThat(mainClasses.contain(PartitionFunction.class)).isTrue();
        assertThat(mainClasses.contain(ArchitectureTest.class)).isFalse();
        assertThat(mainClasses.contain(WallClockFixture.class)).isFalse();
        assertThat(mainClasses.size()).isGreaterThan(30);
    }

    @Test
    @DisplayName("core depends on no Ratis, gRPC or protobuf class")
    void testNoInfrastructureDependencies() {
        NO_INFRASTRUCTURE.check(mainClasses);
    }

    @Test
    @DisplayName("core uses no threads, executors or timers")
    void testNoThreads() {
        NO_THREADS.check(mainClasses);
    }

    @Test
    @DisplayName("core never reads the wall clock")
    void testNoWallClock() {
        NO_WALL_CLOCK.check(mainClasses);
    }

    @Test
    @DisplayName("core never creates randomness")
    void testNoRandomness() {
        NO_RANDOMNESS.check(mainClasses);
    }

    // ----- the rules really fail on violating classes ----------------------------------------------

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of(WallClockFixture.class, NO_WALL_CLOCK, "System.currentTimeMillis()"),
                Arguments.of(NanoTimeFixture.class, NO_WALL_CLOCK, "System.nanoTime()"),
                Arguments.of(InstantNowFixture.class, NO_WALL_CLOCK, "Instant.now()"),
                Arguments.of(LocalDateTimeNowFixture.class, NO_WALL_CLOCK, "LocalDateTime.now()"),
                Arguments.of(ClockSystemUtcFixture.class, NO_WALL_CLOCK, "Clock.systemUTC()"),
                Arguments.of(ClockDefaultZoneFixture.class, NO_WALL_CLOCK, "Clock.systemDefaultZone()"),
                Arguments.of(RandomUuidFixture.class, NO_RANDOMNESS, "UUID.randomUUID()"),
                Arguments.of(NewRandomFixture.class, NO_RANDOMNESS, "java.util.Random.<init>"),
                Arguments.of(NewSecureRandomFixture.class, NO_RANDOMNESS, "java.security.SecureRandom.<init>"),
                Arguments.of(ThreadLocalRandomFixture.class, NO_RANDOMNESS, "ThreadLocalRandom.current()"),
                Arguments.of(ThreadFixture.class, NO_THREADS, "java.lang.Thread"),
                Arguments.of(ExecutorsFixture.class, NO_THREADS, "java.util.concurrent.Executors"),
                Arguments.of(ThreadPoolExecutorFixture.class, NO_THREADS, "java.util.concurrent.ThreadPoolExecutor"));
    }

    @ParameterizedTest(name = "{0} violates its rule")
    @MethodSource("violations")
    @DisplayName("each rule reports a test-only class that breaks it")
    void testRuleFailsOnViolation(Class<?> fixture, ArchRule rule, String expectedInReport) {
        EvaluationResult result = rule.evaluate(fixtures);

        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anyMatch(detail -> detail.contains(fixture.getName()) && detail.contains(expectedInReport));
    }

    @Test
    @DisplayName("the forbidden-package rule shape reports a dependency (shown with slf4j: Ratis, gRPC and protobuf "
            + "are, rightly, not on core's classpath)")
    void testPackageRuleFailsOnViolation() {
        JavaClasses classes = new ClassFileImporter().importClasses(Slf4jFixture.class);

        assertThat(noDependencyOn("org.slf4j..").evaluate(classes).hasViolation()).isTrue();
        assertThat(NO_INFRASTRUCTURE.evaluate(classes).hasViolation()).isFalse();
    }

    @Test
    @DisplayName("a class that keeps the rules passes all of them")
    void testCleanClassPasses() {
        JavaClasses classes = new ClassFileImporter().importClasses(CleanFixture.class);

        for (ArchRule rule : new ArchRule[] {NO_INFRASTRUCTURE, NO_THREADS, NO_WALL_CLOCK, NO_RANDOMNESS}) {
            assertThat(rule.evaluate(classes).hasViolation()).as(rule.getDescription()).isFalse();
        }
    }

    // ----- fixtures: test-only classes in io.cohort.core, imported explicitly ----------------------

    static final class WallClockFixture {
        long now() {
            return System.currentTimeMillis();
        }
    }

    static final class NanoTimeFixture {
        long now() {
            return System.nanoTime();
        }
    }

    static final class InstantNowFixture {
        Instant now() {
            return Instant.now();
        }
    }

    static final class LocalDateTimeNowFixture {
        LocalDateTime now() {
            return LocalDateTime.now();
        }
    }

    static final class ClockSystemUtcFixture {
        Clock clock() {
            return Clock.systemUTC();
        }
    }

    static final class ClockDefaultZoneFixture {
        Clock clock() {
            return Clock.systemDefaultZone();
        }
    }

    static final class RandomUuidFixture {
        UUID id() {
            return UUID.randomUUID();
        }
    }

    static final class NewRandomFixture {
        int roll() {
            return new Random().nextInt();
        }
    }

    static final class NewSecureRandomFixture {
        int roll() {
            return new SecureRandom().nextInt();
        }
    }

    static final class ThreadLocalRandomFixture {
        int roll() {
            return ThreadLocalRandom.current().nextInt();
        }
    }

    static final class ThreadFixture {
        Thread thread(Runnable task) {
            return new Thread(task);
        }
    }

    static final class ExecutorsFixture {
        ExecutorService pool() {
            return Executors.newSingleThreadExecutor();
        }
    }

    static final class ThreadPoolExecutorFixture {
        int size(ThreadPoolExecutor pool) {
            return pool.getPoolSize();
        }
    }

    static final class Slf4jFixture {
        Object logger() {
            return org.slf4j.LoggerFactory.getLogger(Slf4jFixture.class);
        }
    }

    /** Time and ids as arguments, concurrent maps for readers: all allowed. */
    static final class CleanFixture {
        private final ConcurrentHashMap<String, Long> deadlines = new ConcurrentHashMap<>();

        Instant at(long nowMs) {
            deadlines.put("key", nowMs + Duration.ofSeconds(1).toMillis());
            return Instant.ofEpochMilli(nowMs);
        }

        String memberId(String clientId, String suffix) {
            return clientId + "-" + suffix;
        }
    }
}
