package io.cohort.server;

import io.cohort.raft.NodeAddress;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices at once that another node's process has exited, so that the partitions it led elect a
 * successor without waiting out an election timeout ({@code raft.election.on.leader.exit}; the
 * election itself is {@code CohortRaftNode#peerProcessExited}).
 *
 * <p>It holds one idle connection to each other member's client port (the channels of
 * {@link PeerChannels}, so TLS like every node-to-node call) and reacts to what the connection does,
 * not to a poll: when a connection that was up closes, it connects again at once, and if that
 * attempt fails within {@value #REFUSED_WITHIN_MS} ms and a plain TCP connection to the port is then
 * refused, the node's process is gone (its kernel closed the sockets and nothing listens on the
 * port; a node over its connection limit accepts and closes, which is not that). A process killed with SIGKILL, crashed or
 * stopped by an out-of-memory error looks like that within a millisecond; a node that is paused,
 * overloaded, cut off by the network or on a machine that lost power does not (its connection stays
 * up, or the new one times out), and those are left to Raft's election timeout, as before. A
 * connection closed by the peer's idle timeout (a GOAWAY) reconnects, so it reports nothing.
 *
 * <p>One thread; every state change and the {@value #TICK_MS} ms tick (which follows membership
 * changes and resets gRPC's reconnect backoff, so a returning node is watched again within a tick)
 * run on it.
 */
final class PeerExitWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerExitWatch.class);
    static final long TICK_MS = 1_000;
    /** A reconnect refused within this long of the connection's close means the process exited. */
    static final long REFUSED_WITHIN_MS = 1_000;
    /** How long the plain TCP probe that confirms a refusal may take (a refusal takes microseconds). */
    private static final int PROBE_TIMEOUT_MS = 200;

    private final int selfNodeId;
    private final Supplier<List<NodeAddress>> members;
    private final Function<NodeAddress, ManagedChannel> channels;
    private final IntConsumer onExit;
    private final ScheduledExecutorService thread;
    /** Per watched node id. Only touched on {@link #thread}. */
    private final Map<Integer, Watched> watched = new HashMap<>();
    private volatile boolean closed;

    /**
     * @param members  the cluster's current members (this node included, skipped)
     * @param channels a channel to a member's client port, idle mode off (it is never used for calls)
     * @param onExit   told the node id whose process exited; runs on the watch's thread
     */
    PeerExitWatch(int selfNodeId, Supplier<List<NodeAddress>> members, Function<NodeAddress, ManagedChannel> channels,
                  IntConsumer onExit) {
        this.selfNodeId = selfNodeId;
        this.members = members;
        this.channels = channels;
        this.onExit = onExit;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cohort-peer-exit-watch-n" + selfNodeId);
            t.setDaemon(true);
            return t;
        });
    }

    PeerExitWatch start() {
        thread.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** The state of the connection to {@code nodeId} (null if not watched): for tests. */
    ConnectivityState state(int nodeId) {
        try {
            return thread.submit(() -> {
                Watched w = watched.get(nodeId);
                return w == null ? null : w.channel.getState(false);
            }).get();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.RejectedExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void tick() {
        if (closed) {
            return;
        }
        try {
            Map<Integer, NodeAddress> current = new HashMap<>();
            for (NodeAddress member : members.get()) {
                if (member.nodeId() != selfNodeId) {
                    current.put(member.nodeId(), member);
                }
            }
            for (Iterator<Map.Entry<Integer, Watched>> it = watched.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Integer, Watched> entry = it.next();
                NodeAddress now = current.get(entry.getKey());
                if (now == null || !now.equals(entry.getValue().address)) {
                    entry.getValue().channel.shutdownNow();
                    it.remove();
                }
            }
            for (NodeAddress member : current.values()) {
                watched.computeIfAbsent(member.nodeId(), id -> new Watched(member)).tick();
            }
        } catch (RuntimeException e) {
            LOG.warn("node {}: watching the other nodes' processes failed this time", selfNodeId, e);
        }
    }

    /**
     * Whether {@code host:port} refuses a plain TCP connection (ECONNREFUSED: nothing listens). gRPC's
     * failure to reconnect is not enough by itself: a node over its connection limit (it accepts and
     * closes), or one whose TLS handshake failed, also fails the attempt, and it is alive. A
     * connection that opens is closed at once; a timeout or an unreachable host is no refusal.
     */
    static boolean refusesConnections(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), PROBE_TIMEOUT_MS);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            // The map is the thread's: let a running tick or observation end before closing the channels.
            thread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Watched w : watched.values()) {
            w.channel.shutdownNow();
        }
    }

    /** One member's connection and what it last did. */
    private final class Watched {
        final NodeAddress address;
        final ManagedChannel channel;
        ConnectivityState last = ConnectivityState.IDLE;
        /** When a connection that was up went down, or -1: only then does a refusal count. */
        long lostAtNanos = -1;
        /** For the log: a "watching" line at the first connection and at the first after an exit. */
        boolean everConnected;
        boolean exitReported;

        Watched(NodeAddress address) {
            this.address = address;
            this.channel = channels.apply(address);
            observe();
        }

        /** Reads the state (connecting if idle), acts on the change, and waits for the next one. */
        void observe() {
            if (closed || channel.isShutdown()) {
                return;
            }
            ConnectivityState now = channel.getState(true);
            if (now == ConnectivityState.READY) {
                lostAtNanos = -1;
                if (!everConnected || exitReported) {
                    LOG.info("node {}: watching node {}'s process (connected to its client port {})", selfNodeId,
                            address.nodeId(), address.clientPort());
                }
                everConnected = true;
                exitReported = false;
            } else {
                if (last == ConnectivityState.READY) {
                    lostAtNanos = System.nanoTime();
                }
                // Also when READY went to TRANSIENT_FAILURE between two looks: the states in between are
                // not always seen.
                if (now == ConnectivityState.TRANSIENT_FAILURE && lostAtNanos != -1) {
                    long sinceLostMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lostAtNanos);
                    lostAtNanos = -1;
                    if (sinceLostMs <= REFUSED_WITHIN_MS) {
                        if (refusesConnections(address.host(), address.clientPort())) {
                            exitReported = true;
                            LOG.info("node {}: node {}'s connection closed and its port refused a new one {} ms later: "
                                    + "its process exited", selfNodeId, address.nodeId(), sinceLostMs);
                            onExit.accept(address.nodeId());
                        } else {
                            LOG.info("node {}: node {}'s connection closed and reconnecting failed, but its port still "
                                    + "accepts connections: not taken for an exit", selfNodeId, address.nodeId());
                        }
                    }
                }
            }
            last = now;
            channel.notifyWhenStateChanged(now, () -> {
                try {
                    thread.execute(this::observe);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    // closed meanwhile
                }
            });
        }

        /** Reconnects a node that was down (gRPC's own backoff would wait up to minutes). */
        void tick() {
            if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                channel.resetConnectBackoff();
            }
        }
    }
}
