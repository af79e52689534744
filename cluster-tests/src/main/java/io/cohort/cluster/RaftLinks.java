package io.cohort.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A fault-injecting TCP proxy on every directed Raft link of a {@link ProcessCluster}, so that a
 * test can cut the network between nodes and heal it.
 *
 * <p>How traffic is routed through it without changing Cohort or Ratis: every node is named
 * {@code cohort-n<id>} in the peers list, and each node JVM resolves those names through its own
 * hosts file ({@code -Djdk.net.hosts.file}). Node a's file maps its own name to 127.0.0.1 (where it
 * binds) and peer b's name to 127.a.b.1, where the proxy of link a→b listens on b's Raft port and
 * forwards to 127.0.0.1. Every connection a opens to b, and so every byte of a's requests to b and
 * of b's replies, crosses that proxy. The proxy listens on b's client port too: nodes call each
 * other's client ports (a follower forwarding a topic-registry change to the leader, the log-format
 * gate's ClusterStatus calls), and those calls take the same path, and the same cuts, as Raft's. Cutting a link closes its connections and refuses new ones
 * (the peer sees a reset, as after a crash or a firewall reject); healing lets connections through
 * again. Ratis reconnects on its own.
 */
public final class RaftLinks implements AutoCloseable {
    private final Map<Integer, Integer> raftPorts;
    private final Map<String, Link> links = new TreeMap<>();

    private RaftLinks(Map<Integer, Integer> raftPorts) {
        this.raftPorts = Map.copyOf(raftPorts);
    }

    /**
     * Starts a proxy for every ordered pair of distinct nodes, on the target's Raft port and (when
     * {@code clientPorts} has it) its client port.
     */
    static RaftLinks start(Map<Integer, Integer> raftPorts, Map<Integer, Integer> clientPorts) {
        RaftLinks network = new RaftLinks(raftPorts);
        try {
            for (int from : raftPorts.keySet()) {
                for (int to : raftPorts.keySet()) {
                    if (from != to) {
                        List<Integer> ports = clientPorts.containsKey(to)
                                ? List.of(raftPorts.get(to), clientPorts.get(to)) : List.of(raftPorts.get(to));
                        Link link = new Link(from, to, ports);
                        network.links.put(key(from, to), link);
                        link.start();
                    }
                }
            }
            return network;
        } catch (RuntimeException e) {
            network.close();
            throw e;
        }
    }

    /** The name node {@code nodeId} has in the peers list. */
    public static String hostName(int nodeId) {
        return "cohort-n" + nodeId;
    }

    /** The proxy address of link from→to: 127.from.to.1 (every 127.x.y.z is loopback on Linux). */
    static String proxyAddress(int from, int to) {
        return "127." + from + "." + to + ".1";
    }

    /** Node {@code nodeId}'s hosts file: itself on 127.0.0.1, each peer at its link's proxy. */
    String hostsFileOf(int nodeId) {
        StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n");
        for (int peer : raftPorts.keySet()) {
            hosts.append(peer == nodeId ? "127.0.0.1" : proxyAddress(nodeId, peer)).append(' ')
                    .append(hostName(peer)).append('\n');
        }
        return hosts.toString();
    }

    /**
     * A hosts file for client JVMs (tests, the chaos runner): every node name on 127.0.0.1, so
     * addresses the nodes hand out (leader hints, ClusterStatus) resolve. Covers nodes 1-9.
     */
    public static String clientHostsFile() {
        StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n");
        for (int id = 1; id <= 9; id++) {
            hosts.append("127.0.0.1 ").append(hostName(id)).append('\n');
        }
        return hosts.toString();
    }

    /** Writes {@link #clientHostsFile()} to {@code file}. */
    public static void writeClientHostsFile(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, clientHostsFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Cuts the links between {@code a} and {@code b}, both directions. */
    public void cut(int a, int b) {
        link(a, b).setUp(false);
        link(b, a).setUp(false);
    }

    /** Cuts every link between {@code side} and the other nodes: a network partition. */
    public void partition(Set<Integer> side) {
        for (int a : side) {
            for (int b : raftPorts.keySet()) {
                if (!side.contains(b)) {
                    cut(a, b);
                }
            }
        }
    }

    /** Cuts node {@code nodeId} off from every other node. */
    public void isolate(int nodeId) {
        partition(Set.of(nodeId));
    }

    /** Restores every link. */
    public void heal() {
        links.values().forEach(link -> link.setUp(true));
    }

    /** The cut links, as "a->b". */
    public Set<String> cutLinks() {
        return links.values().stream().filter(l -> !l.up).map(l -> l.from + "->" + l.to)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Connections each link has carried, for reports: "a->b" -> count. */
    public Map<String, Integer> connectionCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        links.values().forEach(l -> counts.put(l.from + "->" + l.to, l.accepted.get()));
        return counts;
    }

    private Link link(int from, int to) {
        Link link = links.get(key(from, to));
        if (link == null) {
            throw new IllegalArgumentException("no link " + from + "->" + to + " (nodes " + raftPorts.keySet() + ")");
        }
        return link;
    }

    private static String key(int from, int to) {
        return from + "->" + to;
    }

    @Override
    public void close() {
        links.values().forEach(Link::close);
    }

    /** The proxy of one directed link, on each of the target's ports. */
    private static final class Link {
        final int from;
        final int to;
        final List<Integer> ports;
        final AtomicInteger accepted = new AtomicInteger();
        final Set<Socket> open = ConcurrentHashMap.newKeySet();
        final List<ServerSocket> servers = new ArrayList<>();
        volatile boolean up = true;
        volatile boolean closed;

        Link(int from, int to, List<Integer> ports) {
            this.from = from;
            this.to = to;
            this.ports = List.copyOf(ports);
        }

        void start() {
            for (int port : ports) {
                ServerSocket server;
                try {
                    server = new ServerSocket();
                    servers.add(server);
                    server.setReuseAddress(true);
                    server.bind(new InetSocketAddress(InetAddress.getByName(proxyAddress(from, to)), port), 64);
                } catch (IOException e) {
                    throw new UncheckedIOException("could not bind the proxy of link " + from + "->" + to + " on "
                            + proxyAddress(from, to) + ":" + port, e);
                }
                Thread acceptor = new Thread(() -> acceptLoop(server, port), "link-" + from + "-" + to + "-" + port);
                acceptor.setDaemon(true);
                acceptor.start();
            }
        }

        private void acceptLoop(ServerSocket server, int port) {
            while (!closed) {
                Socket inbound;
                try {
                    inbound = server.accept();
                } catch (IOException e) {
                    return; // closed
                }
                accepted.incrementAndGet();
                if (!up) {
                    reset(inbound);
                    continue;
                }
                Socket outbound = new Socket();
                try {
                    outbound.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 2_000);
                    inbound.setTcpNoDelay(true);
                    outbound.setTcpNoDelay(true);
                } catch (IOException e) {
                    // The target node is down: the client sees its connection reset, as it would.
                    reset(inbound);
                    closeQuietly(outbound);
                    continue;
                }
                open.add(inbound);
                open.add(outbound);
                pump(inbound, outbound, "up");
                pump(outbound, inbound, "down");
            }
        }

        private void pump(Socket source, Socket sink, String direction) {
            Thread thread = new Thread(() -> {
                byte[] buffer = new byte[64 * 1024];
                try (InputStream in = source.getInputStream(); OutputStream out = sink.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        if (!up) {
                            break;
                        }
                        out.write(buffer, 0, n);
                    }
                } catch (IOException e) {
                    // One side closed or was reset; close both below.
                } finally {
                    reset(source);
                    reset(sink);
                    open.remove(source);
                    open.remove(sink);
                }
            }, "link-" + from + "-" + to + "-" + direction);
            thread.setDaemon(true);
            thread.start();
        }

        void setUp(boolean value) {
            up = value;
            if (!value) {
                for (Socket socket : List.copyOf(open)) {
                    reset(socket);
                }
                open.clear();
            }
        }

        void close() {
            closed = true;
            servers.forEach(Link::closeQuietly);
            setUp(false);
        }

        /** Closes with an RST rather than a FIN, as a cut connection looks to its peer. */
        private static void reset(Socket socket) {
            try {
                socket.setSoLinger(true, 0);
            } catch (SocketException e) {
                // Already closed.
            }
            closeQuietly(socket);
        }

        private static void closeQuietly(AutoCloseable closeable) {
            if (closeable == null) {
                return;
            }
            try {
                closeable.close();
            } catch (Exception e) {
                // Nothing more to do.
            }
        }
    }

    @Override
    public String toString() {
        List<String> cut = new ArrayList<>(cutLinks());
        return cut.isEmpty() ? "all links up" : "cut: " + cut;
    }
}
