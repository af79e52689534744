package io.cohort.raft;

import io.cohort.raft.net.ConnectionLimits;
import java.util.Objects;

/**
 * How a node's Raft port is exposed: its connection bounds and its mutual TLS. Both are set from
 * the node's settings by the server ({@code raft.max.connections}, {@code raft.tls.*}, ...);
 * {@link #UNBOUNDED_PLAINTEXT} is what the in-JVM Raft tests use.
 *
 * @param connectionLimits the Raft port's connection limit and timeouts ({@link ConnectionLimits});
 *                         null leaves the port as Ratis builds it (unbounded)
 * @param tls              mutual TLS on the Raft port, or {@link RaftTlsSettings#DISABLED}
 */
public record RaftPortOptions(ConnectionLimits connectionLimits, RaftTlsSettings tls) {
    /** Unbounded, plaintext: the Raft port as Ratis builds it, plus the port guard. */
    public static final RaftPortOptions UNBOUNDED_PLAINTEXT = new RaftPortOptions(null, RaftTlsSettings.DISABLED);

    public RaftPortOptions {
        Objects.requireNonNull(tls, "tls (use RaftTlsSettings.DISABLED)");
    }

    /** Unbounded, with {@code tls}. */
    public static RaftPortOptions unbounded(RaftTlsSettings tls) {
        return new RaftPortOptions(null, tls);
    }
}
