package io.cohort.server.tools;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A small status command in the server jar, for scripts/cluster.sh until the cohort CLI exists:
 * asks each node ClusterAdmin.ClusterStatus and prints which nodes answer and which partitions each
 * leads. With {@code --wait-seconds} it polls until every partition has a ready leader.
 *
 * <p>{@code java -cp cohort-server.jar io.cohort.server.tools.Status --bootstrap 127.0.0.1:7101[,...]}
 * <br>Exit code 0 when every partition has a ready leader, 1 when some has none, 2 when no node
 * answers.
 */
@Command(name = "cohort-status", mixinStandardHelpOptions = true,
        description = "Prints which Cohort nodes answer and the partitions each leads.")
public final class Status implements Callable<Integer> {
    private static final long RPC_DEADLINE_MS = 5_000;
    private static final long POLL_INTERVAL_MS = 250;

    @Option(names = "--bootstrap", required = true, split = ",", paramLabel = "HOST:PORT",
            description = "Client endpoints of one or more nodes; the others are found from their answer.")
    List<String> bootstrap;

    @Option(names = "--wait-seconds", paramLabel = "S", defaultValue = "0",
            description = "Poll until every partition has a ready leader, at most this long.")
    int waitSeconds;

    @Option(names = "--cacert", paramLabel = "FILE", description = "Speak TLS, trusting this CA (PEM).")
    java.nio.file.Path caCert;

    @Option(names = "--cert", paramLabel = "FILE", description = "Client certificate (PEM), with --key.")
    java.nio.file.Path cert;

    @Option(names = "--key", paramLabel = "FILE", description = "Private key of --cert (PEM, PKCS#8).")
    java.nio.file.Path key;

    private io.grpc.ChannelCredentials credentials = InsecureChannelCredentials.create();

    private final PrintStream out;

    Status(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        // Before the first logger: gRPC's Netty would otherwise log at DEBUG through logback's default.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "cohort-tools-logback.xml");
        }
        System.exit(new CommandLine(new Status(System.out)).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException, java.io.IOException {
        if (caCert != null) {
            io.grpc.TlsChannelCredentials.Builder tls = io.grpc.TlsChannelCredentials.newBuilder()
                    .trustManager(caCert.toFile());
            if (cert != null && key != null) {
                tls.keyManager(cert.toFile(), key.toFile());
            }
            credentials = tls.build();
        }
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
        while (true) {
            Snapshot snapshot = poll();
            boolean done = snapshot.partitionCount > 0 && snapshot.unled().isEmpty();
            if (done || System.nanoTime() >= deadlineNanos) {
                snapshot.print(out);
                if (snapshot.partitionCount < 0) {
                    return 2;
                }
                return done ? 0 : 1;
            }
            Thread.sleep(POLL_INTERVAL_MS);
        }
    }

    /** One round: every known node's answer (or its failure). */
    private Snapshot poll() {
        Map<String, Object> answers = new LinkedHashMap<>();
        Map<String, Integer> nodeIds = new LinkedHashMap<>();
        List<String> endpoints = new ArrayList<>(bootstrap);
        for (int i = 0; i < endpoints.size(); i++) {
            String endpoint = endpoints.get(i).trim();
            Object answer = ask(endpoint);
            answers.put(endpoint, answer);
            if (answer instanceof ClusterStatusResponse response) {
                for (NodeStatus node : response.getNodesList()) {
                    String other = node.getHost() + ":" + node.getClientPort();
                    nodeIds.put(other, node.getNodeId());
                    if (!endpoints.contains(other)) {
                        endpoints.add(other);
                    }
                }
            }
        }
        return new Snapshot(answers, nodeIds);
    }

    private Object ask(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        if (colon <= 0) {
            return "not HOST:PORT";
        }
        ManagedChannel channel;
        try {
            channel = Grpc.newChannelBuilderForAddress(endpoint.substring(0, colon),
                    Integer.parseInt(endpoint.substring(colon + 1)), credentials).build();
        } catch (IllegalArgumentException e) {
            return "bad address: " + e.getMessage();
        }
        try {
            return ClusterAdminGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(RPC_DEADLINE_MS, TimeUnit.MILLISECONDS)
                    .clusterStatus(ClusterStatusRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode().toString();
        } finally {
            channel.shutdownNow();
        }
    }

    /** The answers of one round, and what they say together. */
    private static final class Snapshot {
        final Map<String, Object> answers;
        final Map<String, Integer> nodeIds;
        final int partitionCount;

        Snapshot(Map<String, Object> answers, Map<String, Integer> nodeIds) {
            this.answers = answers;
            this.nodeIds = nodeIds;
            this.partitionCount = answers.values().stream()
                    .filter(ClusterStatusResponse.class::isInstance)
                    .mapToInt(a -> ((ClusterStatusResponse) a).getPartitionCount())
                    .max().orElse(-1);
        }

        /** Partitions that no answering node leads and serves. */
        TreeSet<Integer> unled() {
            TreeSet<Integer> unled = new TreeSet<>();
            for (int p = 0; p < partitionCount; p++) {
                unled.add(p);
            }
            for (Object answer : answers.values()) {
                if (answer instanceof ClusterStatusResponse response) {
                    unled.removeAll(led(response));
                }
            }
            return unled;
        }

        static List<Integer> led(ClusterStatusResponse response) {
            return response.getPartitionsList().stream()
                    .filter(p -> p.getLeaderReady() && p.getLeaderNodeId() == response.getNodeId())
                    .map(PartitionStatus::getPartitionIndex)
                    .toList();
        }

        void print(PrintStream out) {
            for (Map.Entry<String, Object> entry : answers.entrySet()) {
                if (entry.getValue() instanceof ClusterStatusResponse response) {
                    List<Integer> led = led(response);
                    out.printf("node %d  %-21s up    leads %d: %s%n", response.getNodeId(), entry.getKey(), led.size(),
                            led.isEmpty() ? "-" : led.stream().map(String::valueOf).collect(Collectors.joining(",")));
                } else {
                    Integer id = nodeIds.get(entry.getKey());
                    out.printf("node %s  %-21s down  (%s)%n", id == null ? "?" : id, entry.getKey(),
                            entry.getValue());
                }
            }
            if (partitionCount < 0) {
                out.println("no node answered");
                return;
            }
            TreeSet<Integer> unled = unled();
            out.printf("partitions: %d, led: %d%s%n", partitionCount, partitionCount - unled.size(),
                    unled.isEmpty() ? " (all)" : ", without a leader: "
                            + unled.stream().map(String::valueOf).collect(Collectors.joining(",")));
        }
    }
}
