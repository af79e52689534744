package io.cohort.cluster;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A process started with a node's identity beside a {@link ProcessCluster} ({@link ProcessCluster#startOutsider}). */
public final class Outsider {
    private final NodeProcess node;
    private final String host;

    Outsider(NodeProcess node, String host) {
        this.node = node;
        this.host = host;
    }

    public Path dir() {
        return node.dir;
    }

    /** Its node log ({@code logs/node-<id>.log}). */
    public Path logFile() {
        return node.logDir().resolve("node-" + node.id + ".log");
    }

    public boolean isRunning() {
        return node.process != null && node.process.isAlive();
    }

    /** ClusterStatus as the outsider sees it (its client port, plaintext; 5 s deadline). */
    public ClusterStatusResponse status() {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress(host, node.clientPort,
                InsecureChannelCredentials.create()).build();
        try {
            return ClusterAdminGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .clusterStatus(ClusterStatusRequest.getDefaultInstance());
        } finally {
            channel.shutdownNow();
        }
    }

    /** SIGKILL, and waits until it is gone. */
    public void kill() {
        Process process = node.process;
        process.destroyForcibly();
        node.awaitExit(process, Duration.ofSeconds(10));
    }
}
