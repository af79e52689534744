package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection bounds of a real node's client and Raft ports, small enough to test in one JVM:
 * connections over a port's limit are closed at once, the others at the handshake timeout (nothing
 * sent) or the idle timeout (the HTTP/2 preface, then nothing), and the node serves throughout.
 * {@code cluster-tests ConnectionFloodIT} does the same with 20,000 connections.
 */
class ConnectionLimitsTest {
    private static final int LIMIT = 8;
    private static final int PER_PORT = 20;
    private static final byte[] PREFACE_AND_SETTINGS = ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
            + "\0\0\0\u0004\0\0\0\0\0").getBytes(StandardCharsets.ISO_8859_1);

    @TempDir
    Path root;

    private CohortServer server;
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void testConnectionsOverTheLimitOrIdleAreClosedAndTheNodeServes() throws Exception {
        Map<String, String> settings = TestNodes.settings(root, 1, TestNodes.peers(1), 1);
        settings.put(ServerConfig.CLIENT_MAX_CONNECTIONS, Integer.toString(LIMIT));
        settings.put(ServerConfig.RAFT_MAX_CONNECTIONS, Integer.toString(LIMIT));
        settings.put(ServerConfig.HANDSHAKE_TIMEOUT_MS, "1000");
        settings.put(ServerConfig.CLIENT_IDLE_TIMEOUT_MS, "2000");
        settings.put(ServerConfig.RAFT_IDLE_TIMEOUT_MS, "2000");
        server = CohortServer.start(ServerConfig.of(settings));
        int raftPort = server.config().self().raftPort();
        for (int i = 0; i < PER_PORT; i++) {
            sockets.add(connect(server.clientPort(), i % 2 == 0));
            sockets.add(connect(raftPort, i % 2 == 0));
        }

        // Over the limit: refused at once; the rest: closed at the handshake or idle timeout.
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(sockets).allMatch(ConnectionLimitsTest::closedByPeer));
        assertThat(server.clientConnections().refused()).isGreaterThanOrEqualTo(PER_PORT - LIMIT);
        assertThat(server.node().raftPort().connections().refused()).isGreaterThanOrEqualTo(PER_PORT - LIMIT);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.clientConnections().open() == 0
                && server.node().raftPort().connections().open() == 0);

        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.clientPort(),
                InsecureChannelCredentials.create()).build();
        try {
            assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance()).getStatus())
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        } finally {
            channel.shutdownNow();
        }
    }

    private static Socket connect(int port, boolean sendPreface) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(50);
        if (sendPreface) {
            try {
                OutputStream out = socket.getOutputStream();
                out.write(PREFACE_AND_SETTINGS);
                out.flush();
            } catch (IOException e) {
                // Refused over the limit before the preface went out: closed, as expected.
            }
        }
        return socket;
    }

    /** Reads what the node sent; true once the node closed the connection (end of stream or reset). */
    private static boolean closedByPeer(Socket socket) {
        byte[] buffer = new byte[4096];
        try {
            while (true) {
                if (socket.getInputStream().read(buffer) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
