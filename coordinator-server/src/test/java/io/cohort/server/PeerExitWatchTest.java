package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.raft.NodeAddress;
import io.grpc.Attributes;
import io.grpc.ConnectivityState;
import io.grpc.Server;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PeerExitWatch} against a real grpc-netty server on loopback, standing in for another node's
 * client port: a server that stops listening (what a killed process leaves) is reported as exited;
 * a server that closes the connection but still listens (its idle timeout) is not, and is watched
 * again; a member that was never reachable is not reported either.
 */
class PeerExitWatchTest {
    private static final int SELF = 1;
    private static final int PEER = 2;
    private static final Duration BOUND = Duration.ofSeconds(30);

    private final List<Integer> exits = new CopyOnWriteArrayList<>();
    private final AtomicInteger connectionsAccepted = new AtomicInteger();
    private Server server;
    private PeerExitWatch watch;

    @AfterEach
    void stop() throws InterruptedException {
        if (watch != null) {
            watch.close();
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private Server startServer(NettyServerBuilder builder) throws IOException {
        return builder.addService(new HealthStatusManager().getHealthService())
                .addTransportFilter(new ServerTransportFilter() {
                    @Override
                    public Attributes transportReady(Attributes attributes) {
                        connectionsAccepted.incrementAndGet();
                        return attributes;
                    }
                })
                .build().start();
    }

    private PeerExitWatch watch(int peerClientPort) {
        List<NodeAddress> members = List.of(new NodeAddress(SELF, "127.0.0.1", 1, 1),
                new NodeAddress(PEER, "127.0.0.1", 2, peerClientPort));
        return new PeerExitWatch(SELF, () -> members, PeerChannels.plaintext()::watchChannel, exits::add).start();
    }

    /** Stops the stand-in node as a killed process would (nothing listens any more) and awaits the report. */
    private void stopServerAndAwaitTheExitReported() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        await().atMost(BOUND).until(() -> !exits.isEmpty());
        assertThat(exits).containsExactly(PEER);
    }

    @Test
    void aPeerThatStopsListeningIsReportedAsExited() throws Exception {
        server = startServer(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
        watch = watch(server.getPort());
        await().atMost(BOUND).until(() -> watch.state(PEER) == ConnectivityState.READY);
        assertThat(exits).isEmpty();

        stopServerAndAwaitTheExitReported();
    }

    @Test
    void aConnectionClosedByAPeerThatStillListensIsNotAnExit() throws Exception {
        // The shortest idle timeout grpc-netty allows: the server closes the unused connection (GOAWAY).
        server = startServer(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxConnectionIdle(1, TimeUnit.SECONDS));
        watch = watch(server.getPort());
        await().atMost(BOUND).until(() -> watch.state(PEER) == ConnectivityState.READY);

        // The server closed the first connection and the watch connected again: no exit on the way.
        await().atMost(BOUND).until(() -> connectionsAccepted.get() >= 2);
        await().atMost(BOUND).until(() -> watch.state(PEER) == ConnectivityState.READY);
        assertThat(exits).isEmpty();

        // It still watches: now the process "exits".
        stopServerAndAwaitTheExitReported();
    }

    /**
     * The confirmation a failed reconnect needs before it counts as an exit: a port that accepts
     * connections (a live node over its connection limit accepts and closes them) is no refusal.
     */
    @Test
    void onlyAPortNothingListensOnRefuses() throws Exception {
        int port;
        try (java.net.ServerSocket listening = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getLoopbackAddress())) {
            port = listening.getLocalPort();
            assertThat(PeerExitWatch.refusesConnections("127.0.0.1", port)).isFalse();
        }
        assertThat(PeerExitWatch.refusesConnections("127.0.0.1", port)).isTrue();
    }

    @Test
    void aPeerNeverReachedIsNotReported() throws Exception {
        // A port nothing listens on: the watch's attempts are refused, but it never saw the node up.
        Server placeholder = startServer(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
        int port = placeholder.getPort();
        placeholder.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        watch = watch(port);
        await().atMost(BOUND).until(() -> watch.state(PEER) == ConnectivityState.TRANSIENT_FAILURE);

        // Refused, but never seen up: not an exit. A node starting on the port is watched (within a tick).
        server = startServer(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port)));
        await().atMost(BOUND).until(() -> watch.state(PEER) == ConnectivityState.READY);
        assertThat(exits).isEmpty();
    }
}
