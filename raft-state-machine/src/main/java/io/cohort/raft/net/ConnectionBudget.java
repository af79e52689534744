package io.cohort.raft.net;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open connections of one port against its limit. The port's server channel asks {@link
 * #tryOpen()} for every accepted connection and closes it at once when refused, so a flood holds
 * at most {@code maxConnections} file descriptors; {@link #closed()} runs when an admitted
 * connection closes. Thread-safe (accepts and closes run on Netty's event loops).
 */
public final class ConnectionBudget {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionBudget.class);

    private final String port;
    private final int maxConnections;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    /** Set while the port refuses, so the log says it once per episode, not once per connection. */
    private final AtomicBoolean refusing = new AtomicBoolean();

    /**
     * @param port           the port's name in logs and metrics, e.g. "client" or "raft"
     * @param maxConnections the most connections open at once
     */
    public ConnectionBudget(String port, int maxConnections) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
        }
        this.port = port;
        this.maxConnections = maxConnections;
    }

    /** Admits one more connection if the port is under its limit; counts a refusal if not. */
    public boolean tryOpen() {
        while (true) {
            int now = open.get();
            if (now >= maxConnections) {
                long total = refused.incrementAndGet();
                if (refusing.compareAndSet(false, true)) {
                    LOG.warn("{} port: {} connections open, its limit; refusing new connections until some close "
                            + "({} refused so far)", port, now, total);
                }
                return false;
            }
            if (open.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /** An admitted connection closed. */
    public void closed() {
        int now = open.decrementAndGet();
        if (now < maxConnections / 2 && refusing.compareAndSet(true, false)) {
            LOG.info("{} port: {} connections open, accepting again ({} refused so far)", port, now, refused.get());
        }
    }

    public String port() {
        return port;
    }

    public int maxConnections() {
        return maxConnections;
    }

    /** Connections open now. */
    public int open() {
        return open.get();
    }

    /** Connections refused since the node started. */
    public long refused() {
        return refused.get();
    }
}
