package io.cohort.cluster;

import io.cohort.testsupport.TestPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A class-data-sharing archive (JDK CDS) of a node's classes, for the node JVMs this test JVM starts:
 * each node maps the classes from it instead of loading, parsing and verifying them again, as
 * scripts/cluster.sh's nodes do (docs/OPERATIONS.md, "Class-data sharing"). Measured here, a 1-node
 * start to SERVING took 1.21-1.41 CPU-seconds and 0.86-1.00 s with the archive against 2.60-2.80 CPU-s
 * and 1.87-2.05 s without; every cluster test starts three to five node JVMs, several of them again
 * after kills, on two cores.
 *
 * <p>On only where the build asks for it ({@value #PROPERTY}{@code =true}, the cluster tests'
 * failsafe configuration): the benchmarks' and scripts/chaos.sh's nodes start as they did, so their
 * restart figures keep their meaning. The archive is made once per server jar and test JVM, by a
 * throwaway 1-node cluster that runs the leader-path warm-up (so the leader's, the appender's and
 * the client paths' classes are in it) and is stopped with SIGTERM, when the JVM writes the archive
 * ({@code -XX:ArchiveClassesAtExit}). A trial JVM must map it ({@code -Xshare:on ... -version})
 * before any node gets it: a damaged archive would crash a node at start. If anything in that
 * fails, the nodes start without an archive and the reason is printed: slower, never different.
 */
final class NodeClassArchive {
    /** System property that turns the archive on ("true"). */
    static final String PROPERTY = "cohort.cluster.cds";
    private static final Duration DUMP_RUN_LIMIT = Duration.ofSeconds(120);
    private static final String WARMUP_DONE = "leader-path warm-up done";
    private static final String WARMUP_FAILED = "leader-path warm-up did not complete";
    /** Per server jar: the archive, or empty when it could not be made. */
    private static final Map<Path, Optional<Path>> ARCHIVES = new HashMap<>();

    private NodeClassArchive() {
    }

    /**
     * The JVM options that map the archive of {@code serverJar} (made on the first call for that
     * jar, under {@code baseDir}); none when the property is off or no archive could be made.
     */
    static List<String> jvmOptions(Path serverJar, Path baseDir) {
        if (!Boolean.getBoolean(PROPERTY)) {
            return List.of();
        }
        Optional<Path> archive;
        synchronized (ARCHIVES) {
            archive = ARCHIVES.computeIfAbsent(serverJar, jar -> make(jar, baseDir));
        }
        return archive.map(a -> List.of("-XX:SharedArchiveFile=" + a)).orElse(List.of());
    }

    private static Optional<Path> make(Path serverJar, Path baseDir) {
        long startNanos = System.nanoTime();
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
        Path dir = baseDir.toAbsolutePath().normalize().resolve("cds-" + stamp);
        Path archive = dir.resolve("node.jsa");
        try {
            Files.createDirectories(dir);
            String failure = dumpRun(serverJar, dir, archive);
            if (failure == null) {
                failure = trial(serverJar, dir, archive);
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            if (failure != null) {
                System.out.printf("[cluster] no class-data-sharing archive for the nodes (%s; %d ms; files in %s):"
                        + " they start without one%n", failure, ms, dir);
                return Optional.empty();
            }
            System.out.printf("[cluster] class-data-sharing archive for the nodes: %s (%d MB, made in %d ms)%n",
                    archive, Files.size(archive) >> 20, ms);
            return Optional.of(archive);
        } catch (IOException e) {
            System.out.printf("[cluster] no class-data-sharing archive for the nodes (%s): they start without one%n", e);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making the nodes' class-data-sharing archive", e);
        }
    }

    /** Runs the throwaway node that writes the archive at its exit; null when it did, else why not. */
    private static String dumpRun(Path serverJar, Path dir, Path archive) throws IOException, InterruptedException {
        int[] ports = TestPorts.next(3);
        Path logs = dir.resolve("logs");
        List<String> command = new ArrayList<>(List.of(ProcessCluster.java()));
        command.addAll(ProcessCluster.DEFAULT_JVM_ARGS);
        command.add("-XX:ArchiveClassesAtExit=" + archive);
        command.addAll(List.of("-jar", serverJar.toString(), "--node-id", "1", "--cluster-id", "cohort-cds",
                "--peers", "1=127.0.0.1:" + ports[0] + ":" + ports[1], "--data-dir", dir.resolve("data").toString(),
                "--log-dir", logs.toString(), "--partitions", "1", "--metrics-port", String.valueOf(ports[2]),
                "--set", ProcessCluster.LEADER_WARMUP_SETTING + "=true"));
        Process process = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout.log").toFile()).redirectError(dir.resolve("stderr.log").toFile())
                .start();
        try {
            Path log = logs.resolve("node-1.log");
            long deadline = System.nanoTime() + DUMP_RUN_LIMIT.toNanos();
            boolean warmedUp = false;
            while (!warmedUp) {
                if (!process.isAlive()) {
                    return "the archive's node exited with " + process.exitValue() + " before its warm-up ended";
                }
                if (System.nanoTime() > deadline) {
                    return "the archive's node did not end its warm-up within " + DUMP_RUN_LIMIT.toSeconds() + " s";
                }
                String text = Files.isRegularFile(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
                warmedUp = text.contains(WARMUP_DONE) || text.contains(WARMUP_FAILED);
                if (!warmedUp) {
                    process.waitFor(ProcessCluster.POLL_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
            process.destroy();
            if (!process.waitFor(DUMP_RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                return "the archive's node did not exit within " + DUMP_RUN_LIMIT.toSeconds() + " s of SIGTERM";
            }
            return Files.isRegularFile(archive) && Files.size(archive) > 0 ? null
                    : "the archive's node exited with " + process.exitValue() + " without writing it";
        } finally {
            process.destroyForcibly();
        }
    }

    /** A JVM with the nodes' options must map the archive and start; null when it does, else why not. */
    private static String trial(Path serverJar, Path dir, Path archive) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(ProcessCluster.java()));
        command.addAll(ProcessCluster.DEFAULT_JVM_ARGS);
        command.addAll(List.of("-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-XX:ErrorFile=/dev/null",
                "-cp", serverJar.toString(), "-version"));
        Path output = dir.resolve("trial.log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(DUMP_RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return "a JVM on the archive did not start within " + DUMP_RUN_LIMIT.toSeconds() + " s";
        }
        return process.exitValue() == 0 ? null
                : "a JVM could not map the archive (exit " + process.exitValue() + ", see " + output + ")";
    }
}
