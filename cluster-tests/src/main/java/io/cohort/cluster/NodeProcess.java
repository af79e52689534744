package io.cohort.cluster;

import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One node of a {@link ProcessCluster} (or an outsider started beside it): its identity and ports,
 * fixed for the cluster's life, and its current process: how it is launched, how its start is
 * awaited (the {@code COHORT NODE <id> SERVING ...} line on stdout, checked against the ports it was
 * given) and how it ended. The cluster builds the command line; this class runs it.
 */
final class NodeProcess {
    private static final Pattern SERVING = Pattern.compile(
            "COHORT NODE (\\d+) SERVING client=(\\S+):(\\d+) raft=(\\S+):(\\d+) metrics=(-?\\d+)");

    final int id;
    final int clientPort;
    final int raftPort;
    final int metricsPort;
    final Path dir;
    /** Its {@code raft.tls.*} settings; empty for a plaintext Raft port. */
    final Map<String, String> raftTlsSettings = new LinkedHashMap<>();
    int starts;
    /** The jar of its next start if not the cluster's ({@link ProcessCluster#useServerJar}); null for the cluster's. */
    volatile Path serverJar;
    /** {@code host:clientPort} of the member a node started by {@link ProcessCluster#startJoining} joins through. */
    String joinSeed;
    volatile Process process;
    ManagedChannel channel;

    NodeProcess(int id, int clientPort, int raftPort, int metricsPort, Path dir) {
        this.id = id;
        this.clientPort = clientPort;
        this.raftPort = raftPort;
        this.metricsPort = metricsPort;
        this.dir = dir;
    }

    Path logDir() {
        return dir.resolve("logs");
    }

    Path stdout() {
        return dir.resolve("stdout." + starts + ".log");
    }

    Path stderr() {
        return dir.resolve("stderr." + starts + ".log");
    }

    /**
     * Starts {@code command} as this node's next process, in its directory, under umask 077.
     * {@code hostsFile}: the contents of the JVM's hosts file (a faulty network's links), or null.
     * {@code clusterJar} names the cluster's jar in the error if the start fails.
     */
    void launch(List<String> command, String hostsFile, Path clusterJar) {
        try {
            Files.createDirectories(dir.resolve("data"));
            Files.createDirectories(logDir());
            if (hostsFile != null) {
                Files.writeString(dir.resolve("hosts"), hostsFile, StandardCharsets.UTF_8);
            }
            starts++;
            // umask 077, as scripts/cluster.sh: the node's files are private (Java cannot set a umask);
            // exec keeps the pid, so signals still go to the JVM itself.
            List<String> underUmask = new ArrayList<>(List.of("sh", "-c", "umask 077 && exec \"$@\"", "sh"));
            underUmask.addAll(command);
            ProcessBuilder builder = new ProcessBuilder(underUmask)
                    .directory(dir.toFile())
                    .redirectOutput(stdout().toFile())
                    .redirectError(stderr().toFile());
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start node " + id + " from "
                    + (serverJar != null ? serverJar : clusterJar), e);
        }
    }

    /**
     * Waits until the process prints its SERVING line; fails if it exits first or {@code startTimeout}
     * passes, with the tails of its output and {@code files} (where the run's files are).
     */
    void awaitServing(Duration startTimeout, Supplier<String> files) {
        Process current = process;
        long deadlineNanos = System.nanoTime() + startTimeout.toNanos();
        while (true) {
            Matcher serving = findServingLine();
            if (serving != null) {
                checkServingLine(serving);
                return;
            }
            if (!current.isAlive()) {
                throw new IllegalStateException("node " + id + " exited with " + current.exitValue()
                        + " before printing SERVING\n--- stderr (tail) ---\n" + tail(stderr(), 30)
                        + "\n--- stdout (tail) ---\n" + tail(stdout(), 30) + "\n" + files.get());
            }
            if (System.nanoTime() > deadlineNanos) {
                throw new IllegalStateException("node " + id + " (pid " + current.pid() + ") did not print "
                        + "'COHORT NODE " + id + " SERVING ...' within " + startTimeout
                        + "\n--- stdout (tail) ---\n" + tail(stdout(), 30) + "\n" + files.get());
            }
            ProcessCluster.pause(ProcessCluster.POLL_INTERVAL);
        }
    }

    private Matcher findServingLine() {
        try {
            if (!Files.exists(stdout())) {
                return null;
            }
            for (String line : Files.readAllLines(stdout(), StandardCharsets.UTF_8)) {
                Matcher matcher = SERVING.matcher(line);
                if (matcher.find()) {
                    return matcher;
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SERVING line must name the node and the ports it was given; anything else breaks the CLI contract. */
    private void checkServingLine(Matcher serving) {
        int printedId = Integer.parseInt(serving.group(1));
        int printedClientPort = Integer.parseInt(serving.group(3));
        int printedRaftPort = Integer.parseInt(serving.group(5));
        int printedMetricsPort = Integer.parseInt(serving.group(6));
        if (printedId != id || printedClientPort != clientPort || printedRaftPort != raftPort
                || printedMetricsPort != metricsPort) {
            throw new IllegalStateException("node " + id + " printed '" + serving.group() + "' but was started with "
                    + "client port " + clientPort + ", raft port " + raftPort + ", metrics port " + metricsPort);
        }
    }

    static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(no " + file.getFileName() + ")";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(unreadable " + file + ": " + e + ")";
        }
    }

    /** Waits until {@code process} (this node's) exits; its exit status. Fails past {@code timeout}. */
    int awaitExit(Process process, Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("node " + id + " (pid " + process.pid() + ") did not exit within "
                        + timeout + "; see " + stdout() + " and " + logDir());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for node " + id + " to exit", e);
        }
    }

    /** How its last process ended ("" while it runs): for failure messages. */
    String exitDescription() {
        Process current = process;
        return current == null || current.isAlive() ? "" : " (last exit " + current.exitValue() + ")";
    }

    /** Closes the cluster's client channel to it, if open. */
    void closeChannel() {
        synchronized (this) {
            if (channel != null) {
                channel.shutdownNow();
                channel = null;
            }
        }
    }
}
