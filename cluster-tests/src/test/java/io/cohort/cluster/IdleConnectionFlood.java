package io.cohort.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * An attacker, run as its own JVM by {@link ConnectionFloodIT}: opens {@code count} TCP connections
 * to {@code host:port}, sends on every other one the HTTP/2 client preface with an empty SETTINGS
 * frame (the handshake is then complete, and the connection idles), on the others nothing, and
 * then just holds them, reading and dropping what the node sends. Every 200 ms it prints {@code
 * connected=C closed=D failed=F} (connections established; of those, closed by the node; connects
 * that failed) so the test
 * can follow it. A process of its own, because the test JVM's file descriptor limit (as the
 * node's) is 20,000: one process cannot hold a flood that size.
 *
 * <p>Usage: {@code IdleConnectionFlood HOST PORT COUNT}
 */
public final class IdleConnectionFlood {
    /** "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", then a SETTINGS frame: length 0, type 4, flags 0, stream 0. */
    private static final byte[] PREFACE_AND_SETTINGS = concat(
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
            new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});

    private IdleConnectionFlood() {
    }

    public static void main(String[] args) throws IOException {
        InetSocketAddress target = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        int count = Integer.parseInt(args[2]);
        int connected = 0;
        int closed = 0;
        int failed = 0;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < count; i++) {
                SocketChannel channel = SocketChannel.open();
                channel.configureBlocking(false);
                channel.connect(target);
                channel.register(selector, SelectionKey.OP_CONNECT, i % 2 == 0);
                // Drain readiness as we go, so connects completing early are counted early.
                if (i % 500 == 499) {
                    int[] counts = poll(selector, 0);
                    connected += counts[0];
                    closed += counts[1];
                    failed += counts[2];
                }
            }
            ByteBuffer scratch = ByteBuffer.allocate(64 << 10);
            long nextReportNanos = 0;
            while (true) {
                int[] counts = poll(selector, 50, scratch);
                connected += counts[0];
                closed += counts[1];
                failed += counts[2];
                if (System.nanoTime() >= nextReportNanos) {
                    System.out.println("connected=" + connected + " closed=" + closed + " failed=" + failed);
                    System.out.flush();
                    nextReportNanos = System.nanoTime() + 200_000_000L;
                }
            }
        }
    }

    private static int[] poll(Selector selector, long timeoutMs) throws IOException {
        return poll(selector, timeoutMs, ByteBuffer.allocate(64 << 10));
    }

    /** Handles ready keys: completes connects (sending the preface where asked), reads and drops, counts closes. */
    private static int[] poll(Selector selector, long timeoutMs, ByteBuffer scratch) throws IOException {
        int connected = 0;
        int closed = 0;
        int failed = 0;
        if (timeoutMs == 0) {
            selector.selectNow();
        } else {
            selector.select(timeoutMs);
        }
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            SocketChannel channel = (SocketChannel) key.channel();
            try {
                if (key.isConnectable()) {
                    channel.finishConnect();
                    connected++;
                    if ((Boolean) key.attachment()) {
                        channel.write(ByteBuffer.wrap(PREFACE_AND_SETTINGS));
                    }
                    key.interestOps(SelectionKey.OP_READ);
                } else if (key.isReadable()) {
                    scratch.clear();
                    if (channel.read(scratch) < 0) {
                        closed++;
                        key.cancel();
                        channel.close();
                    }
                }
            } catch (IOException e) {
                // A reset by the node: closed too; before finishConnect, a connect that failed.
                if (channel.isConnected()) {
                    closed++;
                } else {
                    failed++;
                }
                key.cancel();
                channel.close();
            }
        }
        return new int[] {connected, closed, failed};
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
