package io.cohort.raft.net;

/**
 * How many TCP connections a node keeps open on each of its ports, and for how long an idle one.
 * Without bounds, ~20,000 idle HTTP/2 connections (the preface only) took every file descriptor of
 * a follower: it could not write its Raft metadata, lost an election and looked down until they
 * closed. With them, a flood costs at most {@link #clientMaxConnections} + {@link
 * #raftMaxConnections} descriptors (docs/OPERATIONS.md, "Connections").
 *
 * @param clientMaxConnections    open connections the client (gRPC) port accepts; one more is
 *                                closed as soon as it is accepted
 * @param clientIdleTimeoutMs     a client connection without a call for this long is closed (gRPC
 *                                GOAWAY; a client reconnects on its next call)
 * @param raftMaxConnections      open connections the Raft port accepts
 * @param raftIdleTimeoutMs       a Raft connection without a call for this long is closed; peers
 *                                keep their streams busy with heartbeats, so only strays idle
 * @param handshakeTimeoutMs      a connection that has not completed the HTTP/2 handshake (the
 *                                client preface and SETTINGS) this long after it was accepted is
 *                                closed, on both ports
 */
public record ConnectionLimits(int clientMaxConnections, long clientIdleTimeoutMs, int raftMaxConnections,
                               long raftIdleTimeoutMs, long handshakeTimeoutMs) {

    public static final int DEFAULT_CLIENT_MAX_CONNECTIONS = 4_096;
    public static final long DEFAULT_CLIENT_IDLE_TIMEOUT_MS = 300_000;
    public static final int DEFAULT_RAFT_MAX_CONNECTIONS = 256;
    public static final long DEFAULT_RAFT_IDLE_TIMEOUT_MS = 60_000;
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

    public ConnectionLimits {
        if (clientMaxConnections < 1 || raftMaxConnections < 1) {
            throw new IllegalArgumentException("connection limits must be positive, got client "
                    + clientMaxConnections + " and Raft " + raftMaxConnections);
        }
        if (clientIdleTimeoutMs < 1 || raftIdleTimeoutMs < 1 || handshakeTimeoutMs < 1) {
            throw new IllegalArgumentException("connection timeouts must be positive, got idle "
                    + clientIdleTimeoutMs + "/" + raftIdleTimeoutMs + " ms and handshake " + handshakeTimeoutMs + " ms");
        }
    }

    public static ConnectionLimits defaults() {
        return new ConnectionLimits(DEFAULT_CLIENT_MAX_CONNECTIONS, DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
                DEFAULT_RAFT_MAX_CONNECTIONS, DEFAULT_RAFT_IDLE_TIMEOUT_MS, DEFAULT_HANDSHAKE_TIMEOUT_MS);
    }
}
