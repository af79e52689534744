package io.cohort.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for test clusters that cannot collide: each port is handed out at most once per JVM,
 * and never to two JVMs on this machine at the same time.
 *
 * <p>Why not {@code new ServerSocket(0)} then close: the kernel picks from its ephemeral range and
 * forgets the port as soon as the socket closes, so two calls can return the same port (a fresh
 * clone's build failed with "address 127.0.0.1:32849 is used twice"), and any outgoing connection
 * may take the port before the node binds it. Raft peers must know every address before any node
 * starts, so binding port 0 and reading it back is not an option for them.
 *
 * <p>The scheme:
 * <ul>
 *   <li>Ports come from below the kernel's ephemeral range (15000 up to
 *       {@code /proc/sys/net/ipv4/ip_local_port_range}'s low end, 32768 by default), so neither
 *       {@code bind(0)} nor an outgoing connection of any process ever takes one; a node that is down
 *       between a kill and its restart finds its port still free.</li>
 *   <li>The range is cut into blocks of {@value #BLOCK_SIZE}. A JVM reserves a block by taking an
 *       exclusive {@link FileLock} on {@code <java.io.tmpdir>/cohort-test-ports/block-<first>.lock}
 *       and holds it until it exits; the operating system releases the lock when the process dies,
 *       even on SIGKILL, so a crashed fork never leaks its block. Surefire and failsafe forks, other
 *       modules' test JVMs and other checkouts of the project on the same machine therefore get
 *       disjoint blocks.</li>
 *   <li>Inside its blocks, a JVM hands ports out in order, each once, skipping any that some other
 *       program is listening on at that moment.</li>
 * </ul>
 * A JVM that has handed out every port of every block it could lock fails with a clear message
 * rather than reusing one.
 */
public final class TestPorts {
    static final int BLOCK_SIZE = 64;
    private static final String HOST = "127.0.0.1";
    private static final TestPorts SHARED = new TestPorts(defaultRange(), defaultLockDir());

    private final int lowPort;
    private final int highPortExclusive;
    private final Path lockDir;
    private final int blockCount;
    private final int firstBlock;
    private final List<FileChannel> heldBlocks = new ArrayList<>();
    private int blocksVisited;
    private int nextPort;
    private int blockEndExclusive;

    TestPorts(int[] range, Path lockDir) {
        this.lowPort = range[0];
        this.highPortExclusive = range[1];
        this.lockDir = lockDir;
        this.blockCount = (highPortExclusive - lowPort) / BLOCK_SIZE;
        if (blockCount < 1) {
            throw new IllegalArgumentException("port range " + lowPort + ".." + highPortExclusive + " is smaller than "
                    + "one block of " + BLOCK_SIZE);
        }
        // A random first block spreads concurrent JVMs over the range, so they rarely even try the same lock.
        this.firstBlock = ThreadLocalRandom.current().nextInt(blockCount);
    }

    /** One port no other caller in this JVM or in another JVM on this machine has been handed. */
    public static int next() {
        return SHARED.nextPort();
    }

    /** {@code count} distinct ports, each as {@link #next()}. */
    public static int[] next(int count) {
        int[] ports = new int[count];
        for (int i = 0; i < count; i++) {
            ports[i] = next();
        }
        return ports;
    }

    synchronized int nextPort() {
        while (true) {
            if (nextPort >= blockEndExclusive) {
                reserveNextBlock();
            }
            int port = nextPort++;
            if (isBindable(port)) {
                return port;
            }
        }
    }

    private void reserveNextBlock() {
        while (blocksVisited < blockCount) {
            int block = (firstBlock + blocksVisited) % blockCount;
            blocksVisited++;
            int first = lowPort + block * BLOCK_SIZE;
            if (tryLockBlock(first)) {
                nextPort = first;
                blockEndExclusive = first + BLOCK_SIZE;
                return;
            }
        }
        throw new IllegalStateException("no test ports left: this JVM has handed out every port of the blocks it could"
                + " reserve in " + lowPort + ".." + highPortExclusive + " (locks in " + lockDir + ")");
    }

    private boolean tryLockBlock(int firstPort) {
        FileChannel channel = null;
        try {
            Files.createDirectories(lockDir);
            channel = FileChannel.open(lockDir.resolve("block-" + firstPort + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return false;
            }
            // Held (channel open, never closed) until this JVM exits: a port handed out stays reserved
            // while its node is stopped and restarted.
            heldBlocks.add(channel);
            return true;
        } catch (IOException | OverlappingFileLockException e) {
            // Locked by another class loader of this JVM, or not writable (another user's file): not ours.
            closeQuietly(channel);
            return false;
        }
    }

    private static boolean isBindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing held
            }
        }
    }

    /** [low, high): 15000 up to the start of the ephemeral range (Linux default 32768). */
    static int[] defaultRange() {
        int ephemeralLow = 32768;
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            // Read line by line: /proc files report size 0, which Files.readString trusts.
            try (BufferedReader reader = Files.newBufferedReader(range)) {
                ephemeralLow = Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
            } catch (IOException | RuntimeException e) {
                // keep the default
            }
        }
        return ephemeralLow > 16000 ? new int[] {15000, ephemeralLow} : new int[] {10000, 15000};
    }

    private static Path defaultLockDir() {
        Path shared = Path.of(System.getProperty("java.io.tmpdir"), "cohort-test-ports");
        if (Files.isDirectory(shared) && !Files.isWritable(shared)) {
            // Another user's directory: coordinate with this user's JVMs at least.
            return shared.resolveSibling("cohort-test-ports-" + System.getProperty("user.name"));
        }
        return shared;
    }

    /** Prints {@code count} ports, one a line (used by TestPortsTest from a second JVM). */
    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        for (int port : next(count)) {
            System.out.println(port);
        }
        System.out.flush();
        try {
            // Keep the blocks locked until the parent has read the ports and says we may go.
            System.in.read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
